public class Main {
    static int f(int x) {
        return x;
    }

    static int g(int x) {
        return x;
    }

    static void m() {
        f(1); g(2); f(3);
        for (int i = 0; i < 2; i++) {
            f(i); f(i);
        }
    }

    static class Base {
        Base(int x) {
        }
    }

    static class Sub extends Base {
        Sub() {
            super(f(3));
            g(4);
        }

        Sub(int y) {
            this();
            f(y);
        }
    }

    public static void main(String[] args) {
        f(1);
        m();
        g(1);
        new Sub(2);
    }
}
