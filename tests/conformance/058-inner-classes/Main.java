public class Main {
    private int base = 100;

    class Inner {
        private final int offset;

        Inner(int offset) {
            this.offset = offset;
        }

        int value() {
            return base + offset;
        }

        class Deeper {
            int deep() {
                return value() * 2;
            }
        }
    }

    static class Nested {
        static String id() {
            return "nested";
        }

        String hello() {
            return "hello from " + id();
        }
    }

    public static void main(String[] args) {
        Main outer = new Main();
        Main.Inner inner = outer.new Inner(5);
        System.out.println(inner.value());
        Main.Inner.Deeper deeper = inner.new Deeper();
        System.out.println(deeper.deep());
        System.out.println(new Nested().hello());
    }
}
