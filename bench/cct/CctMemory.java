import java.lang.management.ManagementFactory;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Runs a workload's {@code main} N times in one JVM and, after chosen
 * iterations, measures the calling-context tree that the CCT profiler keeps:
 * the number of live nodes and their own bytes (a class histogram of live
 * objects, the JVM's {@code GC.class_histogram}, which collects first: the
 * row of {@code major.runtime.CallingContext}), and the heap in use after that
 * collection. The tree's other objects (its child tables, in arrays of
 * {@code Object}) have no class of their own in a histogram: the difference
 * of the heap in use to the plain run's measures them all.
 *
 * <pre>java -Dcctmemory.clean=true CctMemory MAIN_CLASS N ARGS...</pre>
 *
 * <p>With {@code cctmemory.clean=true}, every iteration after the first starts
 * in an emptied working directory (the workloads write their outputs there,
 * and some refuse to overwrite them): everything below the current directory
 * is deleted first, so run it in a directory of its own.
 *
 * Prints one line per measured iteration:
 * {@code iteration I: W ms, nodes N, node bytes B, heap used H}.
 */
public final class CctMemory {
    private CctMemory() {}

    public static void main(String[] args) throws Exception {
        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        int n = Integer.parseInt(args[1]);
        String[] rest = Arrays.copyOfRange(args, 2, args.length);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName commands = new ObjectName("com.sun.management:type=DiagnosticCommand");
        boolean clean = Boolean.getBoolean("cctmemory.clean");
        for (int i = 1; i <= n; i++) {
            if (clean && i > 1) {
                emptyWorkingDirectory();
            }
            long start = System.nanoTime();
            main.invoke(null, (Object) rest.clone());
            long ms = (System.nanoTime() - start) / 1_000_000;
            if (i != 1 && i != 2 && i != 5 && i % 10 != 0 && i != n) {
                System.out.println("iteration " + i + ": " + ms + " ms");
                continue;
            }
            String histogram = (String) server.invoke(commands, "gcClassHistogram",
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
            System.out.println("iteration " + i + ": " + ms + " ms, nodes " + nodes
                    + ", node bytes " + bytes + ", heap used " + heap);
        }
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
