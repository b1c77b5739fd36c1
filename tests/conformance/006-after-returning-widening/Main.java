public class Main {
    static char letter() { return 'A'; }
    static short small() { return 7; }
    static int number() { return 5; }
    static long big() { return 9L; }

    public static void main(String[] args) {
        char c = letter();
        short s = small();
        int i = number();
        long l = big();
        System.out.println(c + " " + s + " " + i + " " + l);
    }
}
