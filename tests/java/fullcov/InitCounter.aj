package major.aspects;

import java.util.concurrent.atomic.LongAdder;

/**
 * Before and after every object initialization in the JDK: the
 * initialization join point of a constructor that delegates with this(..)
 * covers the delegated constructor, inlined (as in ajc), which must keep
 * the bypasses of the constructor it is inlined into.
 */
public aspect InitCounter {
    private static final LongAdder inits = new LongAdder();
    private static final LongAdder done = new LongAdder();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
            System.err.println("InitCounter: " + inits.sum() + " initializations, "
                + done.sum() + " completed")));
    }

    before(): initialization(*.new(..)) && !within(InitCounter) {
        inits.increment();
    }

    after() returning: initialization(*.new(..)) && !within(InitCounter) {
        done.increment();
    }
}
