public class Main {
    static long f(int x) {
        return x * 10L;
    }

    static double g(double y) {
        return y / 2;
    }

    static String h(long a, String b) {
        return b + a;
    }

    public static void main(String[] args) {
        long base = 7L;
        double r = base * f(3) + g(5.0) - f(1);
        System.out.println(r);
        String s = h(f(2), "x" + g(1.0)) + h(base, "y");
        System.out.println(s);
        System.out.println(f(1) > 0 ? g(f(2)) : -1);
    }
}
