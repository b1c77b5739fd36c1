public class Main {
    static final Object LOCK = new Object();
    static boolean fail = true;

    // around + after throwing (after throwing declared later: it is outside the around)
    static int arCatch() {
        try {
            throw new IllegalStateException("ar-catch");
        } catch (IllegalStateException e) {
            System.out.println("  own catch " + e.getMessage());
            return 1;
        }
    }

    static int arFinally() {
        try {
            if (fail) {
                throw new IllegalArgumentException("ar-finally");
            }
            return 2;
        } finally {
            System.out.println("  own finally, holds LOCK: " + Thread.holdsLock(LOCK));
        }
    }

    void arSync() {
        synchronized (LOCK) {
            System.out.println("  in lock: " + Thread.holdsLock(LOCK));
            if (fail) {
                throw new IllegalStateException("ar-sync");
            }
        }
    }

    // around declared after after throwing: the around is outside
    static int tarCatch() {
        try {
            throw new IllegalStateException("tar-catch");
        } catch (RuntimeException e) {
            System.out.println("  own catch " + e.getMessage());
            return 3;
        }
    }

    void tarSync() {
        synchronized (LOCK) {
            try {
                throw new UnsupportedOperationException("tar-sync-inner");
            } catch (UnsupportedOperationException e) {
                System.out.println("  own catch in lock " + e.getMessage());
            }
            if (fail) {
                throw new IllegalStateException("tar-sync");
            }
        }
    }

    static String tarNested(int n) {
        try {
            try {
                try {
                    if (n > 0) {
                        throw new ArithmeticException("tar-nested " + n);
                    }
                    return "none";
                } finally {
                    System.out.println("  inner finally " + n);
                }
            } catch (ArithmeticException e) {
                if (n > 1) {
                    throw new IllegalStateException("rethrown " + e.getMessage());
                }
                return "caught " + e.getMessage();
            }
        } finally {
            System.out.println("  outer finally " + n);
        }
    }

    // after + after throwing
    static int afCatch() {
        try {
            return Integer.parseInt("x");
        } catch (NumberFormatException e) {
            System.out.println("  own catch NumberFormatException");
            return 4;
        }
    }

    synchronized void afSync() {
        synchronized (LOCK) {
            try {
                throw new IllegalStateException("af-sync-inner");
            } finally {
                System.out.println("  own finally in lock: " + Thread.holdsLock(LOCK) + " " + Thread.holdsLock(this));
            }
        }
    }

    static void call(String what, Runnable r) {
        System.out.println(what);
        try {
            r.run();
            System.out.println("  returned");
        } catch (RuntimeException e) {
            System.out.println("  escaped " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        System.out.println("  holds LOCK after: " + Thread.holdsLock(LOCK));
    }

    public static void main(String[] args) {
        Main m = new Main();
        call("arCatch", () -> System.out.println("  = " + arCatch()));
        call("arFinally", () -> System.out.println("  = " + arFinally()));
        call("arSync", m::arSync);
        call("tarCatch", () -> System.out.println("  = " + tarCatch()));
        call("tarSync", m::tarSync);
        call("tarNested 0", () -> System.out.println("  = " + tarNested(0)));
        call("tarNested 1", () -> System.out.println("  = " + tarNested(1)));
        call("tarNested 2", () -> System.out.println("  = " + tarNested(2)));
        call("afCatch", () -> System.out.println("  = " + afCatch()));
        call("afSync", m::afSync);
        System.out.println("holds Main: " + Thread.holdsLock(m));
    }
}
