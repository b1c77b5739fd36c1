/**
 * Quiet leaves (bodies that run nothing but their own code and cannot throw:
 * getters, setters, arithmetic, the class's own statics), which the weaver
 * counts without making them current, called from several contexts, in
 * loops and in recursion; beside them leaves that are not quiet: a getter
 * on another object that throws NullPointerException (its constructor runs
 * under the getter), integer division by zero, a static leaf whose class is
 * initialized at its first call (the initializer runs under the caller).
 */
public class CctLeaves {
    static int total;

    int value;
    long wide;
    CctLeaves next;

    int value() {
        return value;
    }

    void setValue(int v) {
        value = v;
    }

    void setWide(long w) {
        wide = w;
    }

    long wide() {
        return wide;
    }

    int either(boolean first) {
        return first ? value : (int) wide;
    }

    static void add(int n) {
        total += n;
    }

    static int clamp(int x) {
        return x < 0 ? 0 : x > 100 ? 100 : x;
    }

    static int sum(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += i;
        }
        return s;
    }

    /** Not quiet: `next` may be null. */
    int nextValue() {
        return next.value;
    }

    /** Not quiet: may divide by zero. */
    static int ratio(int a, int b) {
        return a / b;
    }

    static class Late {
        static final int K = init();

        static int init() {
            return 7;
        }

        /** Quiet; Late is initialized when it is first called. */
        static int plusK(int x) {
            return x + K;
        }
    }

    int walk(int depth) {
        setValue(depth);
        add(value());
        if (depth == 0) {
            return clamp(value()) + either(true);
        }
        return walk(depth - 1) + clamp(depth * 40) + either(false);
    }

    public static void main(String[] args) {
        CctLeaves a = new CctLeaves();
        for (int i = 0; i < 1000; i++) {
            a.setValue(i);
            a.setWide(i * 3L);
            add(a.value());
            total += (int) a.wide() + sum(i % 7);
        }
        int w = a.walk(5);
        int caught = 0;
        for (int i = 0; i < 3; i++) {
            try {
                a.nextValue();
            } catch (NullPointerException e) {
                caught++;
            }
            try {
                ratio(i, 0);
            } catch (ArithmeticException e) {
                caught++;
            }
        }
        int k = Late.plusK(1) + Late.plusK(2);
        System.out.println(total + " " + w + " " + caught + " " + k);
    }
}
