import java.util.function.Supplier;

public class Main {
    static Object next;

    static int pi() { return 1; }
    static long pj() { return 2L; }
    static boolean pz() { return false; }
    static char pc() { return 'c'; }
    static byte pb() { return 3; }
    static short ps() { return 4; }
    static float pf() { return 5.5f; }
    static double pd() { return 6.5; }
    static int callInt() { return 9; }
    static long callLong() { return 10L; }

    static String show(Supplier<Object> s) {
        try {
            Object o = s.get();
            return o instanceof Character ? "'" + o + "'(" + (int) (Character) o + ")" : String.valueOf(o);
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName();
        }
    }

    public static void main(String[] args) {
        Object[] values = {null, 7L, 70000L, 3.9, -2.5f, 'A', 65, (short) 300, (byte) -1, true, "str", Long.MAX_VALUE};
        for (Object v : values) {
            next = v;
            String name = v == null ? "null" : v.getClass().getSimpleName() + " " + v;
            System.out.println(name + ":"
                + " int=" + show(() -> pi())
                + " long=" + show(() -> pj())
                + " boolean=" + show(() -> pz())
                + " char=" + show(() -> pc())
                + " byte=" + show(() -> pb())
                + " short=" + show(() -> ps())
                + " float=" + show(() -> pf())
                + " double=" + show(() -> pd())
                + " call int=" + show(() -> callInt())
                + " call long=" + show(() -> callLong()));
        }
    }
}
