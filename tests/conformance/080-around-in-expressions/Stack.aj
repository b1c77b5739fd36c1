public aspect Stack {
    long around(int x): call(long Main.f(int)) && args(x) {
        long r = proceed(x + 1);
        System.out.println("  f(" + x + ") -> " + r);
        return r;
    }

    double around(double y): call(double Main.g(double)) && args(y) {
        System.out.println("  g(" + y + ")");
        return proceed(y) + 0.25;
    }

    String around(long a, String b): call(String Main.h(long, String)) && args(a, b) {
        return "[" + proceed(a, b) + "]";
    }
}
