public abstract aspect Monitor {
    protected abstract pointcut monitored();

    protected abstract String label();

    private int calls;

    before(): monitored() {
        calls++;
        System.out.println("[" + label() + " #" + calls + "] " + thisJoinPointStaticPart.toShortString());
    }

    after() returning(Object r): monitored() {
        if (r != null) {
            System.out.println("[" + label() + "] returned " + r);
        }
    }
}
