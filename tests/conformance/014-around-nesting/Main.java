public class Main {
    static String work(String in) {
        System.out.println("        work(" + in + ")");
        return in.toUpperCase();
    }

    public static void main(String[] args) {
        System.out.println(work("abc"));
    }
}
