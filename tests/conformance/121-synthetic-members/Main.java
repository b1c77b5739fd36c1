import java.util.function.IntSupplier;

public class Main {
    enum Color { RED, GREEN }

    private int hidden = 7;

    class Inner {
        int peek() {
            return hidden + 1;
        }
    }

    static String name(Color c) {
        switch (c) {
            case RED:
                return "red";
            default:
                return "other";
        }
    }

    static int checked(int x) {
        assert x >= 0 : "negative";
        return x * 2;
    }

    public static void main(String[] args) {
        Main m = new Main();
        System.out.println(name(Color.GREEN));
        System.out.println(Color.values().length);
        System.out.println(m.new Inner().peek());
        System.out.println(checked(4));
        int base = 5;
        IntSupplier s = () -> base + m.hidden;
        System.out.println(s.getAsInt());
    }
}
