public aspect Change {
    int around(int a, int b): call(int Main.add(int, int)) && args(a, b) {
        System.out.println("add called with " + a + ", " + b + "; proceeding with " + (a * 10) + ", " + (b * 10));
        return proceed(a * 10, b * 10);
    }

    String around(String sep): execution(String Main.join(..)) && args(sep, ..) {
        return proceed(" + ");
    }
}
