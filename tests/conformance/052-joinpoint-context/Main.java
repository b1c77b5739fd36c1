public class Main {
    static class Box {
        final String label;

        Box(String label) {
            this.label = label;
        }

        String wrap(String s, int n, long l, double d) {
            return label + ":" + s + n + l + d;
        }

        static int count(Object... items) {
            return items.length;
        }

        @Override
        public String toString() {
            return "Box[" + label + "]";
        }
    }

    public static void main(String[] args) {
        Box b = new Box("b1");
        System.out.println(b.wrap("s", 1, 2L, 3.5));
        System.out.println(Box.count("a", 'c', 7));
    }
}
