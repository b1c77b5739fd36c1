package util;

public class Helper {
    public static int square(int n) {
        return n * n;
    }

    public static String twice(String s) {
        return s + s;
    }

    public static Value inner() {
        return new Value();
    }

    public static class Value {
        public int value() {
            return square(4);
        }
    }
}
