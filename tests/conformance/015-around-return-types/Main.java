import java.util.Arrays;

public class Main {
    static int i() { return 1; }
    static long l() { return 2L; }
    static double d() { return 3.5; }
    static float f() { return 4.5f; }
    static boolean z() { return false; }
    static byte b() { return 6; }
    static void v() { System.out.println("  v()"); }
    static int[] ints() { return new int[] {1, 2, 3}; }
    static String[][] grid() { return new String[][] {{"a"}, {"b", "c"}}; }
    static Object obj() { return "obj"; }

    public static void main(String[] args) {
        System.out.println(i());
        System.out.println(l());
        System.out.println(d());
        System.out.println(f());
        System.out.println(z());
        System.out.println(b());
        v();
        System.out.println(Arrays.toString(ints()));
        System.out.println(Arrays.deepToString(grid()));
        System.out.println(obj());
    }
}
