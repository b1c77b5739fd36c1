package sample.app;

import sample.lib.Inventory;

/** A shop selling from an inventory at one price a piece. */
public class Shop {
    private final Inventory inventory = new Inventory();

    /** Receives a delivery. */
    public void deliver(String item, int n) {
        inventory.add(item, n);
    }

    /** Sells {@code n} of {@code item}; returns the price in cents. */
    public int sell(String item, int n) {
        inventory.remove(item, n);
        return price(n);
    }

    int price(int n) {
        return n * 100;
    }

    /** How many of {@code item} are left. */
    public int left(String item) {
        return inventory.count(item);
    }
}
