public class Main {
    static int divide(int a, int b) {
        return a / b;
    }

    static void check(boolean ok) {
        if (!ok) {
            throw new IllegalArgumentException("not ok");
        }
        System.out.println("  checked");
    }

    public static void main(String[] args) {
        System.out.println(divide(10, 2));
        try {
            divide(1, 0);
        } catch (ArithmeticException e) {
            System.out.println("caught " + e.getMessage());
        }
        check(true);
        try {
            check(false);
        } catch (IllegalArgumentException e) {
            System.out.println("caught " + e.getMessage());
        }
    }
}
