public aspect Logging {
    void around(): execution(void Main.run()) {
        System.out.println("    Logging around in");
        proceed();
        System.out.println("    Logging around out");
    }

    before(): execution(void Main.run()) {
        System.out.println("    Logging before");
    }

    after(): execution(void Main.run()) {
        System.out.println("    Logging after");
    }
}
