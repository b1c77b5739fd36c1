public class Main {
    private static int count;
    private String text = "t";

    public Main() {
    }

    public String concat(String other, int times) throws IllegalStateException {
        return text + other + times;
    }

    public static void main(String[] args) {
        Main m = new Main();
        count = 1;
        String s = m.concat("x", count);
        try {
            throw new RuntimeException(s);
        } catch (RuntimeException e) {
            count = 2;
        }
    }
}
