package major.aspects;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The dynamic parts of the language on the woven JDK and the woven workloads:
 * cflow (map lookups made while a workload driver's main runs), around advice
 * with proceed (String.substring executions, List.size calls) and
 * thisJoinPoint (the arguments and signature of ArrayList.add executions).
 * Prints its counts to stderr at shutdown, never to the results.
 */
public aspect WorkloadProfiler {
    private static final AtomicLong lookups = new AtomicLong();
    private static final AtomicLong proceeds = new AtomicLong();
    private static final AtomicLong arguments = new AtomicLong();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
            System.err.println("WorkloadProfiler: " + lookups.get() + " lookups in main, "
                + proceeds.get() + " proceeds, " + arguments.get() + " add arguments")));
    }

    pointcut driver(): execution(public static void workloads..Main.main(String[]));

    before(): call(* java.util.Map+.get(Object)) && cflow(driver()) && !within(WorkloadProfiler) {
        lookups.incrementAndGet();
    }

    Object around(): execution(* java.lang.String.substring(..)) || call(int java.util.List+.size()) {
        proceeds.incrementAndGet();
        return proceed();
    }

    before(): execution(* java.util.ArrayList.add*(..)) {
        arguments.addAndGet(thisJoinPoint.getArgs().length
            + (thisJoinPoint.getSignature().getName().length() > 3 ? 1 : 0));
    }
}
