public aspect Skip {
    int around(int n): execution(int Main.expensive(int)) && args(n) {
        if (n == 2) {
            System.out.println("  cached value for " + n);
            return -2;
        }
        return proceed(n);
    }

    void around(): call(void Main.dangerous()) {
        System.out.println("  skipped " + thisJoinPointStaticPart.toShortString());
    }
}
