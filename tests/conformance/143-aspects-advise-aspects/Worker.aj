public aspect Worker {
    private int calls;

    int count() {
        return calls;
    }

    void note(String what) {
        System.out.println("  note " + what);
    }

    before(int n): execution(void Main.work(int)) && args(n) {
        calls++;
        note("before work " + n);
    }

    void around(): call(void Main.work(int)) {
        proceed();
        System.out.println("  around done");
    }

    after() returning: execution(void Main.main(..)) {
        System.out.println("count " + count());
    }
}
