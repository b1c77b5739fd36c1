public class Main {
    double mix(long a, double b, int c, long d, double e) {
        return a + b + c + d + e;
    }

    static long shift(long v, int by) {
        return v << by;
    }

    static double avg(double... xs) {
        double s = 0;
        for (double x : xs) {
            s += x;
        }
        return xs.length == 0 ? 0 : s / xs.length;
    }

    public static void main(String[] args) {
        Main m = new Main();
        System.out.println(m.mix(Long.MAX_VALUE / 2, 0.5, 3, -7L, 1e-3));
        System.out.println(shift(3L, 40));
        System.out.println(avg(1.5, 2.5, 5.0));
    }
}
