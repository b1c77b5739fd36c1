import java.util.Arrays;

public class Main {
    static int sum(int[] values) {
        int s = 0;
        for (int v : values) {
            s += v;
        }
        return s;
    }

    static String[] split(String s) {
        return s.split(",");
    }

    static int cells(char[][] grid) {
        return grid.length * grid[0].length;
    }

    static Object[] wrap(Object o) {
        return new Object[] {o};
    }

    public static void main(String[] args) {
        System.out.println(sum(new int[] {1, 2, 3}));
        System.out.println(Arrays.toString(split("a,b")));
        System.out.println(cells(new char[2][3]));
        System.out.println(wrap("w").length);
    }
}
