public class Main {
    static long scale(long value, double factor, int shift, boolean negate, char unit, byte b, short s, float f) {
        long r = (long) (value * factor) << shift;
        return negate ? -r : r;
    }

    public static void main(String[] args) {
        System.out.println(scale(1000000000000L, 1.5, 2, true, 'm', (byte) -1, (short) 300, 2.5f));
    }
}
