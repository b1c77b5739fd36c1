public aspect Security {
    void around(): execution(void Main.run()) {
        System.out.println("  Security around in");
        proceed();
        System.out.println("  Security around out");
    }

    before(): execution(void Main.run()) {
        System.out.println("Security before");
    }

    after(): execution(void Main.run()) {
        System.out.println("Security after");
    }
}
