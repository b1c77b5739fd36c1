package failure;

import major.runtime.CallingContext;

/**
 * When an exception escapes `main`, prints the calling context it was thrown
 * in — every woven frame, JDK frames included with `major weave --jdk`, with
 * the arguments of the last call of each application method (ReCrash-style
 * shadow-stack reconstruction). `thisCallingContext` makes the weaver keep the
 * calling-context tree; the arguments are recorded in each context's `data`.
 * Narrow `recorded()` to the packages whose arguments matter: recording costs
 * an array per call.
 */
public aspect FailureContext {
    pointcut recorded(): execution(* *(..)) && !within(java..*) && !within(javax..*)
        && !within(jdk..*) && !within(sun..*) && !within(com.sun..*) && !within(FailureContext);

    before(): recorded() {
        thisCallingContext.data = thisJoinPoint.getArgs();
    }

    after() throwing(Throwable t): execution(public static void main(String[])) {
        System.err.print(CallingContext.describeThrow(t, thisCallingContext));
    }
}
