public class Main {
    static class Base {
        final int v;
        final String s;

        Base(int v, String s) {
            this.v = v;
            this.s = s;
            System.out.println("Base(" + v + ", " + s + ")");
        }
    }

    static class Calc {
        String label(int n) {
            return "n" + n;
        }
    }

    static class Sub extends Base {
        final long extra;

        Sub(int x, Calc c) {
            super(helper(x), c.label(x));
            extra = 1;
        }

        Sub(int x) {
            this(helper(x) + 100, new Calc());
        }

        Sub(long big, int x) {
            super(helper(x), String.valueOf(big));
            extra = big + helper(0);
        }

        static int helper(int x) {
            return x + 1;
        }
    }

    public static void main(String[] args) {
        Sub a = new Sub(1, new Calc());
        System.out.println(a.v + " " + a.s);
        Sub b = new Sub(2);
        System.out.println(b.v + " " + b.s);
        Sub c = new Sub(5L, 3);
        System.out.println(c.v + " " + c.s + " " + c.extra);
    }
}
