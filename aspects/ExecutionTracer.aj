package major.aspects;

import java.io.PrintStream;

/** Prints every method and constructor execution with its nesting depth. */
public aspect ExecutionTracer {
    private static final PrintStream out = System.err;
    // An anonymous class, not a lambda (aspects/README.md, "Start-up").
    private static final ThreadLocal<int[]> depth = new ThreadLocal<int[]>() {
        protected int[] initialValue() {
            return new int[1];
        }
    };

    pointcut traced(): (execution(* *(..)) || execution(*.new(..)))
        && !within(ExecutionTracer) && !within(java.io.PrintStream+);

    before(): traced() {
        int[] d = depth.get();
        out.println(" ".repeat(d[0]++) + "> " + thisJoinPointStaticPart.getSignature());
    }

    after() returning: traced() {
        depth.get()[0]--;
    }

    after() throwing(Throwable t): traced() {
        int[] d = depth.get();
        out.println(" ".repeat(--d[0]) + "! " + thisJoinPointStaticPart.getSignature()
            + " threw " + t.getClass().getName());
    }
}
