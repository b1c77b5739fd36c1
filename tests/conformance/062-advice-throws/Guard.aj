public aspect Guard {
    before(int level): execution(void Main.guarded(int)) && args(level) {
        if (level == 1) {
            throw new SecurityException("level " + level);
        }
    }

    after() throwing(RuntimeException e): execution(void Main.guarded(int)) {
        System.out.println("  after throwing sees " + e.getClass().getSimpleName());
    }

    after(): execution(void Main.guarded(int)) {
        System.out.println("  after (finally) guarded");
    }

    int around(int x): call(int Main.compute(int)) && args(x) {
        try {
            return proceed(x);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("x=" + x, e);
        }
    }
}
