public aspect Bind {
    before(long v, double f, int sh, boolean neg, char u, byte b, short s, float fl):
            execution(long Main.scale(..)) && args(v, f, sh, neg, u, b, s, fl) {
        System.out.println("v=" + v + " f=" + f + " sh=" + sh + " neg=" + neg + " u=" + u + " b=" + b + " s=" + s + " fl=" + fl);
    }

    before(Object first, Object last): call(long Main.scale(..)) && args(first, .., last) {
        System.out.println("boxed " + first.getClass().getSimpleName() + " " + first + ", " + last.getClass().getSimpleName() + " " + last);
    }

    long around(long v): execution(long Main.scale(..)) && args(v, ..) {
        return proceed(v / 1000) + 1;
    }
}
