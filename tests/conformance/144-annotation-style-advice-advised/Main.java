public class Main {
    static void work() { System.out.println("  work"); }
    public static void main(String[] a) { work(); }
}
