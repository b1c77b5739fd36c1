public class Main {
    static int add(int a, int b) {
        return a + b;
    }

    static String join(String sep, String first, String second) {
        return first + sep + second;
    }

    public static void main(String[] args) {
        System.out.println("add " + add(2, 3));
        System.out.println("join " + join("-", "left", "right"));
    }
}
