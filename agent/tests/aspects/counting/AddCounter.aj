package counting;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts ArrayList.add executions (all, and those under the program's
 * methods) and the program's method executions; prints the counts at exit.
 */
public aspect AddCounter {
    static final AtomicLong adds = new AtomicLong();
    static final AtomicLong appAdds = new AtomicLong();
    static final AtomicLong app = new AtomicLong();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
            System.err.println("AddCounter: " + adds.get() + " ArrayList.add, " + appAdds.get()
                + " from app code, " + app.get() + " app methods")));
    }

    before(): execution(boolean java.util.ArrayList.add(Object)) {
        adds.incrementAndGet();
    }

    before(): execution(boolean java.util.ArrayList.add(Object)) && cflow(execution(* app..*(..))) {
        appAdds.incrementAndGet();
    }

    before(): execution(* app..*(..)) {
        app.incrementAndGet();
    }
}
