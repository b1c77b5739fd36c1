package probe;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

public class Shapes {
    static int counter;
    static {
        counter = 1;
    }
    public String name;
    protected int[] nums = new int[2];
    private List<String> list = new ArrayList<String>();
    static final long[][] GRID = new long[1][1];

    public Shapes() {
        this("x");
    }

    protected Shapes(String name) {
        this.name = name;
    }

    Shapes(int a, String... rest) throws Oops {
        throw new Oops();
    }

    public static void main(String[] args) throws Exception {
        Shapes s = new Shapes();
        s.run(3, "a", new int[] {1});
        s.generic(new ArrayList<Integer>(), "t");
        s.varargs("v", 1, 2);
        arrays(new String[0][], new char[0]);
        Inner in = s.new Inner(4);
        in.go();
        new Nested().m(null);
        Api api = new ApiImpl();
        api.call(5L);
        api.def();
        Api.util();
        Api anon = new Api() {
            public void call(long l) {
            }
        };
        anon.call(6L);
        stat(1.5f, 2.0, (byte) 3, (short) 4, 'c', true);
        try {
            s.fail();
        } catch (IllegalStateException ex) {
            counter++;
        }
        try {
            new Shapes(1, "b");
        } catch (Oops ex) {
            counter--;
        }
        try {
            Integer.parseInt("x");
        } catch (NumberFormatException ex) {
            counter++;
        }
        int x = s.nums[0] + GRID.length + s.list.size();
        int[] copy = s.nums.clone();
        s.name = String.valueOf(x + copy.length);
        Object out = System.out;
        s.twice(21);
    }

    public final synchronized int run(int n, String t, int[] arr) {
        return n + arr.length;
    }

    <T extends Number> T generic(List<T> l, Object o) {
        return null;
    }

    public String varargs(String f, int... rest) {
        return f;
    }

    private static Object arrays(String[][] a, char[] c) {
        return a;
    }

    public static strictfp double stat(float f, double d, byte b, short s, char c, boolean z) {
        return d;
    }

    void fail() throws IllegalStateException {
        throw new IllegalStateException("boom");
    }

    int twice(int v) {
        return v * 2;
    }

    public class Inner {
        int v;

        Inner(int v) {
            this.v = v;
        }

        public void go() {
            v++;
        }
    }

    public static class Nested {
        void m(Map.Entry<String, Inner>[] e) {
        }
    }

    public static class Oops extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    public interface Api {
        void call(long l);

        default void def() {
        }

        static void util() {
        }
    }

    static class ApiImpl implements Api {
        public void call(long l) {
        }
    }
}
