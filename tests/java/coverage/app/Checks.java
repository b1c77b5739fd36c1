package app;

final class Checks {
    private Checks() {
    }

    static void positive(int x) {
        if (x <= 0) {
            throw new IllegalArgumentException("not positive: " + x);
        }
    }
}
