package major.aspects;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Diagnostic twin of ObjectTracker + ExecutionCounter: counts the same join
 * points (constructor calls that return, method and constructor executions),
 * per join point (thisJoinPointStaticPart.toLongString()), and prints one line
 * "SIG <count> <join point>" per join point to stderr at shutdown, sorted.
 * tests/tests/library_weaving.rs weaves it with major and with ajc and lists
 * the join points whose counts differ.
 */
public aspect SignatureCounter {
    private static final Map<String, LongAdder> counts = new ConcurrentHashMap<String, LongAdder>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            StringBuilder sb = new StringBuilder();
            for (Map.Entry<String, LongAdder> e : new TreeMap<String, LongAdder>(counts).entrySet()) {
                sb.append("SIG ").append(e.getValue().sum()).append(' ').append(e.getKey()).append('\n');
            }
            System.err.print(sb);
            System.err.flush();
        }));
    }

    private static void count(String joinPoint) {
        counts.computeIfAbsent(joinPoint, k -> new LongAdder()).increment();
    }

    after() returning: call(*.new(..)) && !within(SignatureCounter) {
        count(thisJoinPointStaticPart.toLongString());
    }

    before(): (execution(* *(..)) || execution(*.new(..))) && !within(SignatureCounter) {
        count(thisJoinPointStaticPart.toLongString());
    }
}
