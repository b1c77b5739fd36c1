public class Main {
    static class Point {
        final int x;
        final int y;

        Point(int x, int y) {
            this.x = x;
            this.y = y;
            System.out.println("  Point(" + x + ", " + y + ") body");
        }

        Point() {
            this(0, 0);
            System.out.println("  Point() body");
        }
    }

    static class Named {
        Named(String name) {
            System.out.println("  Named body " + name);
        }
    }

    public static void main(String[] args) {
        new Point(1, 2);
        new Point();
        new Named("n");
    }
}
