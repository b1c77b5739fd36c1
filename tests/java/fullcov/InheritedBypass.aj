package major.aspects;

import java.lang.reflect.Field;

/**
 * Threads inherit the thread-local bypass: a thread created by the aspect's
 * static initializer (which runs with the bypass set) starts with it set, a
 * thread the program creates starts with it clear. Reads the field major adds to
 * java.lang.Thread (the aspect lives in java.base, so reflection may look at it)
 * when each thread is started (tests/tests/full_coverage.rs).
 */
public aspect InheritedBypass {
    static boolean bypass(Thread t) {
        try {
            Field f = Thread.class.getDeclaredField("major$dib");
            f.setAccessible(true);
            return f.getBoolean(t);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    static {
        Thread t = new Thread(() -> { }, "from-aspect");
        System.err.println("InheritedBypass: " + t.getName() + " " + bypass(t));
    }

    before(Thread t): execution(void java.lang.Thread.start()) && this(t) {
        System.err.println("InheritedBypass: " + t.getName() + " " + bypass(t));
    }
}
