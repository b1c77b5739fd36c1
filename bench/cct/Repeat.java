import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;
import javax.management.ObjectName;

/**
 * Runs a workload's driver N times in one JVM and prints, per iteration, its
 * wall time and the main thread's CPU time in milliseconds (on stderr:
 * {@code iter I wall W cpu C}): the steady state, once the JIT compilers are
 * done. Usage: {@code Repeat N MAIN-CLASS ARGS...}.
 *
 * <p>System properties:
 * <ul>
 * <li>{@code repeat.clean=true}: every iteration after the first starts in an
 * emptied working directory (the drivers write their outputs there, and
 * antlr4's refuses to overwrite its own): everything below the current
 * directory is deleted first, so run it in a directory of its own;
 * <li>{@code repeat.memory=true}: after iterations 1, 2, 5, every tenth and
 * the last, the live calling-context nodes and their own bytes (a class
 * histogram, the JVM's {@code GC.class_histogram}, which collects first: the
 * row of {@code major.runtime.CallingContext}) and the heap in use after that
 * collection, on stderr: {@code memory I nodes N bytes B heap H}. The tree's
 * other objects (its child tables, arrays of {@code Object}) have no class of
 * their own in a histogram: the heap's difference to a plain run measures
 * them all.
 * </ul>
 */
public class Repeat {
    public static void main(String[] a) throws Throwable {
        int n = Integer.parseInt(a[0]);
        Method m = Class.forName(a[1]).getMethod("main", String[].class);
        String[] rest = java.util.Arrays.copyOfRange(a, 2, a.length);
        boolean clean = Boolean.getBoolean("repeat.clean");
        boolean memory = Boolean.getBoolean("repeat.memory");
        ThreadMXBean b = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < n; i++) {
            if (clean && i > 0) {
                emptyWorkingDirectory();
            }
            long w = System.nanoTime();
            long c = b.getCurrentThreadCpuTime();
            m.invoke(null, (Object) rest.clone());
            long w2 = System.nanoTime();
            long c2 = b.getCurrentThreadCpuTime();
            System.err.printf("iter %d wall %d cpu %d%n", i, (w2 - w) / 1000000, (c2 - c) / 1000000);
            int done = i + 1;
            if (memory && (done <= 2 || done == 5 || done % 10 == 0 || done == n)) {
                printMemory(done);
            }
        }
    }

    /** Prints the live calling-context nodes and the heap in use after a collection. */
    private static void printMemory(int iteration) throws Exception {
        String histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        long nodes = 0;
        long bytes = 0;
        for (String line : histogram.split("\n")) {
            // "   1:   123   4567  major.runtime.CallingContext (module)"
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[0].endsWith(":") && f[3].equals("major.runtime.CallingContext")) {
                nodes = Long.parseLong(f[1]);
                bytes = Long.parseLong(f[2]);
            }
        }
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        System.err.printf("memory %d nodes %d bytes %d heap %d%n", iteration, nodes, bytes, heap);
    }

    /** Deletes everything below the current directory (not the directory). */
    private static void emptyWorkingDirectory() throws IOException {
        Path here = Paths.get("").toAbsolutePath();
        try (Stream<Path> all = Files.walk(here)) {
            Path[] paths = all.sorted(Comparator.reverseOrder()).toArray(Path[]::new);
            for (Path p : paths) {
                if (!p.equals(here)) {
                    Files.delete(p);
                }
            }
        }
    }
}
