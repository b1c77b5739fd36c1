/**
 * Static initializers: reading A.X runs A.<clinit>, which computes with
 * A.compute() and reads B.Y (B.<clinit> runs inside A's); reading them again
 * runs nothing.
 */
public class CctStatics {
    static class A {
        static final int X = compute();

        static int compute() {
            return B.Y + 1;
        }
    }

    static class B {
        static final int Y;

        static {
            Y = seed();
        }

        static int seed() {
            return 41;
        }
    }

    public static void main(String[] args) {
        int x = A.X;
        int y = B.Y;
        int x2 = A.X;
        if (x != 42 || y != 41 || x2 != 42) {
            throw new AssertionError(x + " " + y);
        }
    }
}
