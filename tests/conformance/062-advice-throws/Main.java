public class Main {
    static void guarded(int level) {
        System.out.println("  guarded body " + level);
    }

    static int compute(int x) {
        return 100 / x;
    }

    public static void main(String[] args) {
        for (int level = 0; level < 3; level++) {
            try {
                guarded(level);
            } catch (SecurityException e) {
                System.out.println("denied: " + e.getMessage());
            }
        }
        try {
            compute(0);
        } catch (IllegalArgumentException e) {
            System.out.println("converted: " + e.getMessage() + " cause " + e.getCause().getClass().getSimpleName());
        }
    }
}
