public class Main {
    static class Calculator {
        int twice(int x) {
            System.out.println("    body of twice(" + x + ")");
            return 2 * x;
        }
    }

    public static void main(String[] args) {
        Calculator c = new Calculator();
        int r = c.twice(21);
        System.out.println("result " + r);
    }
}
