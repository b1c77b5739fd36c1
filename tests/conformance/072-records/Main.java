public class Main {
    record Point(int x, int y) {
        Point {
            if (x < 0) {
                throw new IllegalArgumentException("negative x");
            }
        }

        int sum() {
            return x + y;
        }

        static Point origin() {
            return new Point(0, 0);
        }
    }

    public static void main(String[] args) {
        Point p = new Point(3, 4);
        System.out.println(p.x() + " " + p.y() + " " + p.sum());
        System.out.println(p);
        System.out.println(p.equals(new Point(3, 4)) + " " + p.equals(Point.origin()));
        try {
            new Point(-1, 0);
        } catch (IllegalArgumentException e) {
            System.out.println("caught " + e.getMessage());
        }
    }
}
