package major.aspects;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Counts calls per called method signature and prints the top 20 at exit. */
public aspect CallCounter {
    private static final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> counts.entrySet().stream()
            .sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum()))
            .limit(20)
            .forEach(e -> System.err.printf("%12d %s%n", e.getValue().sum(), e.getKey()))));
    }

    pointcut calls(): call(* *(..)) && !within(CallCounter);
    pointcut constructorCalls(): call(*.new(..)) && !within(CallCounter);

    before(): calls() || constructorCalls() {
        counts.computeIfAbsent(thisJoinPointStaticPart.getSignature().toLongString(),
            k -> new LongAdder()).increment();
    }

    declare warning: call(* java.util.Vector.*(..)) && within(major.aspects..*):
        "Vector is synchronized on every call; " + "prefer ArrayList";
}
