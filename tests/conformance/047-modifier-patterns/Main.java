public class Main {
    public static void ps() { }
    private static void prs() { }
    protected void pt() { }
    void pkg() { }
    public final void pf() { }
    private synchronized void sync() { }

    public static void main(String[] args) {
        ps();
        prs();
        Main m = new Main();
        m.pt();
        m.pkg();
        m.pf();
        m.sync();
    }
}
