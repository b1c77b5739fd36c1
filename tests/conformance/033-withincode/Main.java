public class Main {
    static void log(String s) {
        System.out.println("    log: " + s);
    }

    static void alpha() {
        log("from alpha");
    }

    static void beta(int n) {
        log("from beta " + n);
    }

    Main() {
        log("from constructor");
    }

    public static void main(String[] args) {
        alpha();
        beta(1);
        new Main();
        log("from main");
    }
}
