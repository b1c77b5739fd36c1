import java.util.Arrays;

public class Main {
    static void fill(int[] a, int v) {
        Arrays.fill(a, v);
    }

    static String[][] transpose(String[][] m) {
        String[][] t = new String[m[0].length][m.length];
        for (int i = 0; i < m.length; i++) {
            for (int j = 0; j < m[i].length; j++) {
                t[j][i] = m[i][j];
            }
        }
        return t;
    }

    static long sum(long[] values) {
        long s = 0;
        for (long v : values) {
            s += v;
        }
        return s;
    }

    public static void main(String[] args) {
        int[] a = new int[3];
        fill(a, 7);
        System.out.println(Arrays.toString(a));
        System.out.println(Arrays.deepToString(transpose(new String[][] {{"a", "b"}, {"c", "d"}})));
        System.out.println(sum(new long[] {1L << 40, 1L}));
        System.out.println(args.length);
    }
}
