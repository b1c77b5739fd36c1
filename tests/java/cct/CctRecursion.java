/**
 * Recursion: fib(10) called once from main, and a mutual recursion
 * (even/odd) of depth 7. Deterministic: the calling-context tree of the
 * application part is fixed by the arguments.
 */
public class CctRecursion {
    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static boolean even(int n) {
        return n == 0 || odd(n - 1);
    }

    static boolean odd(int n) {
        return n != 0 && even(n - 1);
    }

    public static void main(String[] args) {
        int f = fib(10);
        boolean e = even(7);
        if (f != 55 || e) {
            throw new AssertionError("fib(10) = " + f + ", even(7) = " + e);
        }
    }
}
