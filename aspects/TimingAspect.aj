package major.aspects;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Times methods of the application with around advice; slow calls are reported. */
public privileged aspect TimingAspect {
    private static final Map<String, LongAdder> nanos = new ConcurrentHashMap<>();
    private static final long SLOW = 50_000_000L; // 50 ms

    pointcut timed(): execution(!static * com.acme..*.*(..)) && !within(TimingAspect);

    Object around(): timed() {
        long start = System.nanoTime();
        try {
            return proceed();
        } finally {
            long t = System.nanoTime() - start;
            String key = thisJoinPointStaticPart.getSignature().toShortString();
            nanos.computeIfAbsent(key, k -> new LongAdder()).add(t);
            if (t > SLOW) {
                System.err.println('[' + "slow" + "] " + key + " took " + t / 1_000_000 + " ms {");
            }
        }
    }

    int around(int n): execution(int com.acme..*.fib(int)) && args(n) && if(n > 30) {
        long start = System.nanoTime();
        int r = proceed(n);
        System.err.printf("fib(%d) = %d in %d us%n", n, r, (System.nanoTime() - start) / 1000);
        return r;
    }
}
