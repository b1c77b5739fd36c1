public class Main {
    static void leaf(String from) {
        System.out.println("    leaf from " + from);
    }

    static void middle() {
        leaf("middle");
    }

    static void top() {
        middle();
        leaf("top");
    }

    public static void main(String[] args) {
        top();
        middle();
        leaf("main");
    }
}
