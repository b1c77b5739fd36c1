public class Main {
    private int count;

    void increment() {
        count++;
    }

    void fail() {
        throw new IllegalStateException("boom");
    }

    public static void main(String[] args) {
        Main m = new Main();
        m.increment();
        m.increment();
        try {
            m.fail();
        } catch (IllegalStateException e) {
            System.out.println("caught " + e.getMessage());
        }
        System.out.println("count " + m.count);
    }
}
