package major.aspects;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the arguments of every method execution in java.util and of
 * java.lang.Integer, through thisJoinPoint.getArgs(): boxing the arguments of
 * Integer.valueOf(int) calls Integer.valueOf itself, so the join point must be
 * made with the thread-local bypass set (tests/tests/full_coverage.rs).
 */
public aspect JoinPointArgs {
    private static final AtomicLong args = new AtomicLong();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
            System.err.println("JoinPointArgs: " + args.get() + " arguments")));
    }

    before(): execution(* java.util..*(..)) || execution(* java.lang.Integer.*(..)) {
        args.addAndGet(thisJoinPoint.getArgs().length);
    }
}
