import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;

/**
 * Runs a workload's driver N times in one JVM and prints, per iteration, its
 * wall time and the main thread's CPU time in milliseconds (on stderr:
 * {@code iter I wall W cpu C}): the steady state, once the JIT compilers are
 * done. Usage: {@code Repeat N MAIN-CLASS ARGS...}.
 */
public class Repeat {
    public static void main(String[] a) throws Throwable {
        int n = Integer.parseInt(a[0]);
        Method m = Class.forName(a[1]).getMethod("main", String[].class);
        String[] rest = java.util.Arrays.copyOfRange(a, 2, a.length);
        ThreadMXBean b = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < n; i++) {
            long w = System.nanoTime();
            long c = b.getCurrentThreadCpuTime();
            m.invoke(null, (Object) rest.clone());
            long w2 = System.nanoTime();
            long c2 = b.getCurrentThreadCpuTime();
            System.err.printf("iter %d wall %d cpu %d%n", i, (w2 - w) / 1000000, (c2 - c) / 1000000);
        }
    }
}
