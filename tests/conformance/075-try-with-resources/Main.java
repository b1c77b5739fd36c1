public class Main {
    static class Res implements AutoCloseable {
        final String name;
        final boolean failOnClose;

        Res(String name, boolean failOnClose) {
            this.name = name;
            this.failOnClose = failOnClose;
        }

        @Override
        public void close() {
            System.out.println("  close " + name);
            if (failOnClose) {
                throw new IllegalStateException("close failed: " + name);
            }
        }
    }

    static void use(boolean failBody, boolean failClose) {
        try (Res r = new Res("r", failClose)) {
            if (failBody) {
                throw new RuntimeException("body failed");
            }
            System.out.println("  body ok");
        }
    }

    public static void main(String[] args) {
        use(false, false);
        try {
            use(true, true);
        } catch (RuntimeException e) {
            System.out.println("caught " + e.getMessage() + " suppressed " + e.getSuppressed().length);
        }
    }
}
