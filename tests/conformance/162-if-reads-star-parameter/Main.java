public class Main {
    static int f(int n) {
        System.out.println("f " + n);
        return g("v" + n);
    }

    static int g(String s) {
        System.out.println("g " + s);
        return s.length();
    }

    public static void main(String[] args) {
        for (int i = 1; i <= 4; i++) {
            f(i);
        }
        g("direct");
    }
}
