package major.aspects;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Counts calls per called method signature and prints the top 20 at exit. */
public aspect CallCounter {
    private static final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

    // Anonymous classes, not lambdas (aspects/README.md, "Start-up").
    static {
        Runtime.getRuntime().addShutdownHook(new Thread() {
            public void run() {
                List<Map.Entry<String, LongAdder>> top =
                    new ArrayList<Map.Entry<String, LongAdder>>(counts.entrySet());
                Collections.sort(top, new Comparator<Map.Entry<String, LongAdder>>() {
                    public int compare(Map.Entry<String, LongAdder> a, Map.Entry<String, LongAdder> b) {
                        return Long.compare(b.getValue().sum(), a.getValue().sum());
                    }
                });
                for (Map.Entry<String, LongAdder> e : top.subList(0, Math.min(20, top.size()))) {
                    System.err.printf("%12d %s%n", e.getValue().sum(), e.getKey());
                }
            }
        });
    }

    pointcut calls(): call(* *(..)) && !within(CallCounter);
    pointcut constructorCalls(): call(*.new(..)) && !within(CallCounter);

    before(): calls() || constructorCalls() {
        String key = thisJoinPointStaticPart.getSignature().toLongString();
        LongAdder n = counts.get(key);
        if (n == null) {
            LongAdder fresh = new LongAdder();
            n = counts.putIfAbsent(key, fresh);
            if (n == null) {
                n = fresh;
            }
        }
        n.increment();
    }

    declare warning: call(* java.util.Vector.*(..)) && within(major.aspects..*):
        "Vector is synchronized on every call; " + "prefer ArrayList";
}
