public aspect Lexical {
    pointcut work(): execution(int Main.compute());

    after() returning(int r): work() {
        System.out.println("      after returning #1: " + r);
    }

    int around(): work() {
        System.out.println("around #1 in");
        int r = proceed();
        System.out.println("around #1 out");
        return r;
    }

    before(): work() {
        System.out.println("  before #1");
    }

    before(): work() {
        System.out.println("  before #2");
    }

    int around(): work() {
        System.out.println("    around #2 in");
        int r = proceed();
        System.out.println("    around #2 out");
        return r;
    }

    after(): work() {
        System.out.println("after #2");
    }

    after() returning: work() {
        System.out.println("after returning #3");
    }
}
