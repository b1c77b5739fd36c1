public class Main {
    static int expensive(int n) {
        System.out.println("  computing expensive(" + n + ")");
        return n * 100;
    }

    static void dangerous() {
        System.out.println("  dangerous ran!");
    }

    public static void main(String[] args) {
        System.out.println(expensive(1));
        System.out.println(expensive(2));
        dangerous();
        System.out.println("done");
    }
}
