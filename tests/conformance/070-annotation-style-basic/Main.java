public class Main {
    static int square(int x) {
        return x * x;
    }

    void fail(String why) {
        throw new IllegalStateException(why);
    }

    public static void main(String[] args) {
        System.out.println(square(6));
        try {
            new Main().fail("annotation style");
        } catch (IllegalStateException e) {
            System.out.println("caught " + e.getMessage());
        }
    }
}
