public aspect ArrayArgs {
    void around(int[] a, int v): call(void Main.fill(int[], int)) && args(a, v) {
        System.out.println("fill with " + v + ", doubling it");
        proceed(a, v * 2);
        a[0] = -1;
    }

    String[][] around(String[][] m): execution(String[][] Main.transpose(String[][])) && args(m) {
        m[0][0] = m[0][0].toUpperCase();
        return proceed(m);
    }

    long around(long[] values): execution(long Main.sum(long[])) && args(values) {
        return proceed(new long[] {values.length});
    }

    before(String[] a): execution(void Main.main(String[])) && args(a) {
        System.out.println("main with " + a.length + " arguments");
    }

    before(Object o): execution(* Main.*(..)) && args(o, ..) {
        System.out.println("first arg is " + o.getClass().getSimpleName());
    }
}
