package sample.lib;

import java.util.Map;
import java.util.TreeMap;

/** Counts of items in stock. */
public class Inventory {
    private final Map<String, Integer> stock = new TreeMap<>();

    /** Adds {@code n} of {@code item}. */
    public void add(String item, int n) {
        stock.merge(item, n, Integer::sum);
    }

    /** Takes {@code n} of {@code item} out of stock. */
    public void remove(String item, int n) {
        int left = count(item) - n;
        if (left < 0) {
            throw new IllegalStateException("only " + count(item) + " " + item + " in stock");
        }
        stock.put(item, left);
    }

    /** How many of {@code item} are in stock. */
    public int count(String item) {
        return stock.getOrDefault(item, 0);
    }
}
