package major.aspects;

import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.reflect.CodeSignature;
import org.aspectj.lang.reflect.MethodSignature;

/**
 * Counts every execution a concrete sub-aspect's counted() picks out (in the
 * library, woven with full coverage), per join point; dump() writes
 * "count internal/Class.name(descriptor)" lines to the file the system
 * property counter.out names, to that name + ".attaching" those on threads
 * the JVM attaches (see attaching), and to that name + ".early" the executions
 * before the JVMTI oracle (tests/jvmti/method_counter.c, bypass=1) started
 * counting (it sets method_counter.live then). The oracle calls dump() when
 * it stops counting, so that both count the same stretch of the run;
 * tests/tests/full_coverage.rs holds the two against each other.
 */
public abstract aspect ExecutionCounts {
    /** The executions counted. */
    protected abstract pointcut counted();

    private static final Map<JoinPoint.StaticPart, long[]> counts =
        new IdentityHashMap<JoinPoint.StaticPart, long[]>();
    private static final Map<JoinPoint.StaticPart, long[]> early =
        new IdentityHashMap<JoinPoint.StaticPart, long[]>();
    /** Executions on a thread the JVM attaches (its state still NEW: the
     *  JVM runs the Thread constructor on the thread itself, DestroyJavaVM
     *  for one), for which JVMTI posts no events: counted apart. */
    private static final Map<JoinPoint.StaticPart, long[]> attaching =
        new IdentityHashMap<JoinPoint.StaticPart, long[]>();
    private static volatile boolean live;

    before(): counted() && !within(ExecutionCounts+) {
        if (!live) {
            live = "1".equals(System.getProperty("method_counter.live"));
        }
        Map<JoinPoint.StaticPart, long[]> to =
            attaching() ? attaching : live ? counts : early;
        synchronized (counts) {
            long[] n = to.get(thisJoinPointStaticPart);
            if (n == null) {
                to.put(thisJoinPointStaticPart, n = new long[1]);
            }
            n[0]++;
        }
    }

    /** Whether the current thread is one the JVM is attaching (its state
     *  NEW). On JDK 25 the state of such a thread cannot be read while its
     *  constructor runs (its holder is not set yet: getState() throws a
     *  NullPointerException, which would end the attach and the JVM's
     *  shutdown with it): that is an attaching thread too. */
    private static boolean attaching() {
        try {
            return Thread.currentThread().getState() == Thread.State.NEW;
        } catch (NullPointerException e) {
            return true;
        }
    }

    static String descriptor(Class<?> c) {
        if (c.isArray()) {
            return c.getName().replace('.', '/');
        }
        if (c.isPrimitive()) {
            if (c == void.class) return "V";
            if (c == int.class) return "I";
            if (c == long.class) return "J";
            if (c == double.class) return "D";
            if (c == float.class) return "F";
            if (c == boolean.class) return "Z";
            if (c == char.class) return "C";
            if (c == short.class) return "S";
            return "B";
        }
        return "L" + c.getName().replace('.', '/') + ";";
    }

    static String key(JoinPoint.StaticPart sp) {
        String owner = sp.getSignature().getDeclaringTypeName().replace('.', '/');
        StringBuilder d = new StringBuilder("(");
        for (Class<?> p : ((CodeSignature) sp.getSignature()).getParameterTypes()) {
            d.append(descriptor(p));
        }
        d.append(')');
        boolean method = sp.getSignature() instanceof MethodSignature;
        d.append(method ? descriptor(((MethodSignature) sp.getSignature()).getReturnType()) : "V");
        return owner + "." + (method ? sp.getSignature().getName() : "<init>") + d;
    }

    /** Writes the counts; the oracle calls it at VM death (snapshot=...). */
    public static void dump() {
        String out = System.getProperty("counter.out");
        write(counts, out);
        write(early, out + ".early");
        write(attaching, out + ".attaching");
    }

    static void write(Map<JoinPoint.StaticPart, long[]> what, String file) {
        Map<String, long[]> byKey = new TreeMap<String, long[]>();
        synchronized (counts) {
            for (Map.Entry<JoinPoint.StaticPart, long[]> e : what.entrySet()) {
                long[] n = byKey.get(key(e.getKey()));
                if (n == null) {
                    byKey.put(key(e.getKey()), n = new long[1]);
                }
                n[0] += e.getValue()[0];
            }
        }
        try (PrintWriter w = new PrintWriter(new FileWriter(file))) {
            for (Map.Entry<String, long[]> e : byKey.entrySet()) {
                w.println(e.getValue()[0] + " " + e.getKey());
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }
}
