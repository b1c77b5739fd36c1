/** Fixture: table and lookup switches, string switch, long/double locals, wide iinc. */
public class Switches {
    static final long BIG = 1L << 40;

    public static int table(int k) {
        switch (k) {
            case 0: return 10;
            case 1: return 11;
            case 2: return 12;
            case 3: return 13;
            case 5: return 15;
            default: return -1;
        }
    }

    public static int lookup(int k) {
        switch (k) {
            case -1000: return 1;
            case 7: return 2;
            case 100000: return 3;
            default: return 0;
        }
    }

    public static int strings(String s) {
        switch (s) {
            case "alpha": return 1;
            case "beta": return 2;
            case "gamma": return 3;
            default: return 0;
        }
    }

    public static double mix(long a, double b, int n) {
        long acc = a;
        double d = b;
        for (int i = 0; i < n; i += 1000) {
            acc += i * BIG;
            d = d * 0.5 + acc;
        }
        float f = (float) d;
        return f + acc + d;
    }

    public long counter(long start) {
        long x = start;
        int i = 0;
        while (x < 1_000_000L) {
            x = x * 3 + 1;
            i++;
            if (i > 100) {
                break;
            }
        }
        return x + i;
    }
}
