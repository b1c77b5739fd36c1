package major.aspects;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the I/O calls made during request handling, and separately the ones made
 * by nested requests: cflow and cflowbelow on a public API entry point.
 */
public aspect CflowProfiler {
    private static final AtomicLong inRequest = new AtomicLong();
    private static final AtomicLong nested = new AtomicLong();

    pointcut request(Object handler): execution(public * *..*Handler.handle*(..)) && this(handler);
    pointcut io(): call(* java.io.InputStream+.read*(..)) || call(* java.io.OutputStream+.write*(..));

    before(Object h): io() && cflow(request(h)) && !within(CflowProfiler) {
        inRequest.incrementAndGet();
    }

    before(): request(*) && cflowbelow(request(*)) {
        nested.incrementAndGet();
    }

    after() returning: execution(public static void main(String[])) {
        System.err.println("I/O calls in requests: " + inRequest + ", nested requests: " + nested);
    }
}
