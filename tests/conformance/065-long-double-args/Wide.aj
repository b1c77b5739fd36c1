public aspect Wide {
    double around(long a, double b, int c, long d, double e): call(double Main.mix(long, double, int, long, double)) && args(a, b, c, d, e) {
        System.out.println("mix(" + a + ", " + b + ", " + c + ", " + d + ", " + e + ")");
        return proceed(1L, b * 2, c, d, e * 1000);
    }

    long around(long v, int by): execution(long Main.shift(long, int)) && args(v, by) {
        long r = proceed(v + 1, by - 38);
        System.out.println("shift(" + v + ", " + by + ") -> " + r);
        return r;
    }

    before(double[] xs): execution(double Main.avg(double...)) && args(xs) {
        System.out.println("avg of " + xs.length + " doubles, last " + xs[xs.length - 1]);
    }

    after(long a) returning(double r): execution(* Main.mix(..)) && args(a, ..) {
        System.out.println("mix executed with a=" + a + " -> " + r);
    }
}
