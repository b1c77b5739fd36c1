package major.aspects;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts every method and constructor execution (everything that has a body);
 * a shutdown hook prints the total to stderr. The execution-side counterpart of
 * ObjectTracker, used by bench/weave_vs_ajc.sh and tests/tests/library_weaving.rs.
 */
public aspect ExecutionCounter {
    private static final LongAdder executions = new LongAdder();

    // An anonymous class, not a lambda: a lambda would load and spin the
    // java.lang.invoke machinery in every program's start-up (aspects/README.md).
    static {
        Runtime.getRuntime().addShutdownHook(new Thread() {
            public void run() {
                System.err.println("ExecutionCounter: " + executions.sum() + " executions");
            }
        });
    }

    pointcut executions(): (execution(* *(..)) || execution(*.new(..))) && !within(ExecutionCounter);

    before(): executions() {
        executions.increment();
    }
}
