@Tag(value = "main-class", level = 7)
public class Main {
    @Tag("ctor")
    Main() {
        helper("from ctor");
    }

    @Tag(value = "run", level = 3)
    void run() {
        helper("from run");
        new Inner().go();
    }

    void plain() {
        helper("from plain");
    }

    static void helper(String s) {
        System.out.println("  helper " + s);
    }

    @Tag("inner-class")
    static class Inner {
        @Tag(value = "go", level = 5)
        void go() {
            helper("from inner go");
        }
    }

    public static void main(String[] args) {
        Main m = new Main();
        m.run();
        m.plain();
    }
}
