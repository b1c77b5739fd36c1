public class Main {
    static int count(String s) { return s.length(); }
    static double ratio(int a, int b) { return (double) a / b; }
    static String name() { return "major"; }
    static void noop() { System.out.println("  noop"); }

    public static void main(String[] args) {
        System.out.println(count("hello"));
        System.out.println(ratio(1, 4));
        System.out.println(name());
        noop();
    }
}
