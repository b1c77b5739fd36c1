import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/** Fixture: lambdas, method references, string concatenation, arrays, casts. */
public class Lambdas {
    static final List<String> NAMES = new ArrayList<>();

    static {
        NAMES.add("x");
        NAMES.add("y");
    }

    public static Function<Integer, String> adder(int base) {
        return k -> "v" + (k + base);
    }

    public static Supplier<List<String>> supplier() {
        return ArrayList::new;
    }

    public static int total(List<String> xs) {
        return xs.stream().mapToInt(String::length).sum();
    }

    public static Object arrays(int n) {
        int[][] grid = new int[n][n + 1];
        long[] ls = new long[n];
        String[] ss = new String[n];
        for (int i = 0; i < n; i++) {
            grid[i][i] = i;
            ls[i] = grid[i][0];
            ss[i] = "s" + i + ls[i];
        }
        Object o = ss;
        if (o instanceof String[]) {
            return ((String[]) o).length + grid.length;
        }
        return o;
    }

    public static <T extends Comparable<T>> T max(List<T> xs) {
        T best = null;
        for (T x : xs) {
            if (best == null || x.compareTo(best) > 0) {
                best = x;
            }
        }
        return best;
    }
}
