public class Main {
    static void risky(int n) {
        System.out.println("  risky(" + n + ")");
        if (n > 1) {
            throw new UnsupportedOperationException("n=" + n);
        }
    }

    static void outer(int n) {
        risky(n);
        System.out.println("  outer done " + n);
    }

    public static void main(String[] args) {
        for (int n = 1; n <= 2; n++) {
            try {
                outer(n);
            } catch (RuntimeException e) {
                System.out.println("main caught " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
    }
}
