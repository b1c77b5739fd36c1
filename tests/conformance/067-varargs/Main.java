public class Main {
    static String format(String fmt, Object... values) {
        return String.format(fmt, values);
    }

    static int count(String... items) {
        return items.length;
    }

    static int count(int first, int... rest) {
        return 1 + rest.length;
    }

    public static void main(String[] args) {
        System.out.println(format("%s-%s", "a", 1));
        System.out.println(count());
        System.out.println(count("x", "y", "z"));
        System.out.println(count(1, 2, 3, 4));
        System.out.println(count(new String[] {"p"}));
    }
}
