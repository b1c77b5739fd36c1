package counting;

import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.aspectj.lang.JoinPoint;

/**
 * Per-method execution counts, to hold the two weaving modes against each
 * other: every method and constructor execution on the main thread, by join
 * point, until the JVM's shutdown starts (java.lang.Shutdown.shutdown or
 * exit). From then on the thread that shuts down (DestroyJavaVM) starts the
 * shutdown hooks and joins them, concurrently with the hook that reports:
 * how much of that a report sees depends on thread scheduling. That is why
 * ExecutionCounter's total of a hello world varies by a few executions from
 * one run to the next (ApplicationShutdownHooks.runHooks joining the hooks,
 * IdentityHashMap iterators). Those executions and the ones on other
 * threads (the JDK's daemon threads, whose work depends on timing) are
 * counted apart, in total, and so are the executions that load and record
 * the extra classes of static parts (C$MajorStatics), which the two modes
 * make differently (see the advice below).
 *
 * A shutdown hook writes "count signature" lines to the file the system
 * property totals.out names and prints the totals to stderr.
 */
public aspect MethodTotals {
    private static final Map<JoinPoint.StaticPart, long[]> counts =
        new IdentityHashMap<JoinPoint.StaticPart, long[]>();
    private static long onMain;
    private static long otherThreads;
    private static long inShutdown;
    private static long staticParts;
    private static long oneMode;
    private static volatile boolean shuttingDown;
    private static volatile Thread main;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(MethodTotals::write));
    }

    before(): execution(static void java.lang.Shutdown.shutdown())
        || execution(static void java.lang.Shutdown.exit(int)) {
        shuttingDown = true;
    }

    /** A class loader loading the class `name`. */
    pointcut loading(String name): execution(* java.lang.ClassLoader+.loadClass(String, ..))
        && args(name, ..);

    pointcut executions(): (execution(* *(..)) || execution(*.new(..))) && !within(MethodTotals);

    /** A class loader recording a class defined in it (the JVM calls this). */
    pointcut recording(Class<?> c): execution(void java.lang.ClassLoader.addClass(Class))
        && args(c);

    /** Work of one mode only, whatever the aspects: the JVM has a module
     *  read every unnamed module once an agent changed one of its classes
     *  (Modules.transformedByAgent: the agent's mode), and the run-time
     *  image read through jdk.internal.jimage is the woven image in the
     *  two-phase mode (other string table and hash layout: other probe
     *  counts). Counted apart. */
    pointcut oneMode(): execution(* jdk.internal.module.Modules.transformedByAgent(..))
        || execution(* jdk.internal.jimage..*.*(..));

    before(): executions() && cflow(oneMode()) {
        synchronized (counts) {
            oneMode++;
        }
    }

    before(): executions() && !cflow(oneMode()) && !cflow(loading(*)) && !cflow(recording(*)) {
        count(thisJoinPointStaticPart);
    }

    /** The two-phase mode loads a class's extra class of static parts
     *  (C$MajorStatics, for class files before Java 7) through the
     *  application class loader, whose Java code runs; the agent defines it
     *  from the class file load hook, running none: counted apart. */
    before(String name): executions() && !cflow(oneMode()) && cflow(loading(name))
        && !cflow(recording(*)) {
        if (name.endsWith("$MajorStatics")) {
            synchronized (counts) {
                staticParts++;
            }
        } else {
            count(thisJoinPointStaticPart);
        }
    }

    /** Either mode's loader records a C$MajorStatics it defines: counted
     *  apart too (in the two-phase mode it is part of the loading above). */
    before(Class<?> c): executions() && !cflow(oneMode()) && cflow(recording(c)) {
        if (c.getName().endsWith("$MajorStatics")) {
            synchronized (counts) {
                staticParts++;
            }
        } else {
            count(thisJoinPointStaticPart);
        }
    }

    private static void count(JoinPoint.StaticPart part) {
        Thread t = Thread.currentThread();
        if (main == null && "main".equals(t.getName())) {
            main = t;
        }
        synchronized (counts) {
            if (shuttingDown) {
                inShutdown++;
            } else if (t != main) {
                otherThreads++;
            } else {
                onMain++;
                long[] n = counts.get(part);
                if (n == null) {
                    counts.put(part, n = new long[1]);
                }
                n[0]++;
            }
        }
    }

    private static void write() {
        Map<String, long[]> byKey = new TreeMap<String, long[]>();
        long main, other, shutdown, statics, only;
        synchronized (counts) {
            for (Map.Entry<JoinPoint.StaticPart, long[]> e : counts.entrySet()) {
                String key = e.getKey().getSignature().toLongString();
                long[] n = byKey.get(key);
                if (n == null) {
                    byKey.put(key, n = new long[1]);
                }
                n[0] += e.getValue()[0];
            }
            main = onMain;
            other = otherThreads;
            shutdown = inShutdown;
            statics = staticParts;
            only = oneMode;
        }
        try (PrintWriter w = new PrintWriter(new FileWriter(System.getProperty("totals.out")))) {
            for (Map.Entry<String, long[]> e : byKey.entrySet()) {
                w.println(e.getValue()[0] + " " + e.getKey());
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
        System.err.println("MethodTotals: " + main + " executions on main, " + other
            + " on other threads, " + shutdown + " in the shutdown, " + statics
            + " for the extra classes of static parts, " + only + " of one mode only");
    }
}
