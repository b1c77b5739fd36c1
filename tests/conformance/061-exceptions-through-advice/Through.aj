public aspect Through {
    int around(String s) throws Main.AppException: execution(int Main.parse(String)) && args(s) {
        System.out.println("  around parse(" + s + ") in");
        try {
            int r = proceed(s);
            System.out.println("  around parse out normally");
            return r;
        } catch (Main.AppException e) {
            System.out.println("  around parse saw " + e.getMessage() + ", rethrowing");
            throw e;
        } finally {
            System.out.println("  around parse finally");
        }
    }

    after() throwing(Main.AppException e): call(int Main.parse(String)) {
        System.out.println("  call to parse threw " + e.getMessage());
    }

    after(): execution(int Main.safeParse(String)) {
        System.out.println("  after safeParse");
    }
}
