package major.aspects;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Around advice inside the class library: every execution of HashMap's get
 * methods and every call of String.length() in java.base proceeds through a
 * closure (a method handle of a proceed method), which must be made with the
 * thread-local bypass set and run the join point with it clear
 * (tests/tests/full_coverage.rs).
 */
public aspect AroundCount {
    private static final AtomicLong proceeds = new AtomicLong();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
            System.err.println("AroundCount: " + proceeds.get() + " proceeds")));
    }

    Object around(): execution(* java.util.HashMap.get*(..)) || call(* java.lang.String.length()) {
        proceeds.incrementAndGet();
        return proceed();
    }
}
