public class Main {
    static String echo(String s, int n) {
        return s + n;
    }

    public static void main(String[] args) {
        System.out.println(echo("a", 1));
    }
}
