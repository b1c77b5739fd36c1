public aspect Convert {
    Object around(): execution(static * Main.p*()) {
        proceed();
        return Main.next;
    }

    Object around(): call(static * Main.call*()) {
        Object r = proceed();
        return Main.next;
    }
}
