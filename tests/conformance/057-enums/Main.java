public class Main {
    enum Color {
        RED("r"), GREEN("g"), BLUE("b");

        private final String code;

        Color(String code) {
            this.code = code;
        }

        String code() {
            return code;
        }
    }

    enum Op {
        ADD {
            int apply(int a, int b) { return a + b; }
        },
        MUL {
            int apply(int a, int b) { return a * b; }
        };

        abstract int apply(int a, int b);
    }

    static String describe(Color c) {
        switch (c) {
            case RED:
                return "warm";
            case BLUE:
                return "cold";
            default:
                return "neutral";
        }
    }

    public static void main(String[] args) {
        for (Color c : Color.values()) {
            System.out.println(c + " " + c.code() + " " + describe(c) + " " + c.ordinal());
        }
        System.out.println(Color.valueOf("GREEN").code());
        System.out.println(Op.ADD.apply(3, 4) + " " + Op.MUL.apply(3, 4));
    }
}
