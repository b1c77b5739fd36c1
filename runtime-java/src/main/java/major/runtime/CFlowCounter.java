package major.runtime;

/**
 * A per-thread counter for {@code cflow(..)} without bound state: incremented on
 * entry to the flow's join point, decremented on exit (in a {@code finally}); the
 * current thread is in the flow while it is positive.
 */
public final class CFlowCounter {
    /** One thread's count. */
    private static final class Count {
        int value;
    }

    private final ThreadLocal<Count> counts = new ThreadLocal<Count>() {
        @Override
        protected Count initialValue() {
            return new Count();
        }
    };

    /** A counter at zero on every thread. */
    public CFlowCounter() {
    }

    /** Enters the flow on the current thread. */
    public void inc() {
        counts.get().value++;
    }

    /** Leaves the flow on the current thread. */
    public void dec() {
        counts.get().value--;
    }

    /**
     * Whether the current thread is in the flow.
     * @return whether the count is positive
     */
    public boolean isValid() {
        return counts.get().value > 0;
    }
}
