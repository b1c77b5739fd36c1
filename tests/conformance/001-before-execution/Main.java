public class Main {
    static int square(int x) {
        System.out.println("  square(" + x + ")");
        return x * x;
    }

    void greet(String who) {
        System.out.println("  hello " + who);
    }

    public static void main(String[] args) {
        System.out.println("result " + square(7));
        new Main().greet("world");
    }
}
