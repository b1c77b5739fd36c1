public class Main {
    static int answer() { return 42; }
    static long big() { return 1L << 40; }
    static double half() { return 0.5; }
    static boolean yes() { return true; }
    static char letter() { return 'q'; }
    static void nothing() { }

    public static void main(String[] args) {
        int a = answer();
        long b = big();
        double c = half();
        boolean d = yes();
        char e = letter();
        nothing();
        System.out.println(a + " " + b + " " + c + " " + d + " " + e);
    }
}
