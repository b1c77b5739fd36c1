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
 * counted apart, in total, and so is, by category, the work that only one
 * mode does or that the two modes do on different data (see the pointcuts
 * below: each states why).
 *
 * A shutdown hook writes "count signature" lines to the file the system
 * property totals.out names and prints the totals and the categories to
 * stderr. To find why a method counts differently, name it in the system
 * property totals.stacks (Class.name, nested classes with '$', several
 * comma-separated): the stacks of its counted executions are written, with
 * their counts, to the totals.out file + ".stacks".
 */
public aspect MethodTotals {
    private static final Map<JoinPoint.StaticPart, long[]> counts =
        new IdentityHashMap<JoinPoint.StaticPart, long[]>();
    private static long onMain;
    private static long otherThreads;
    private static long inShutdown;
    /** The categories counted apart, indexes into `apart`, named in CATEGORIES. */
    private static final int STATIC_PARTS = 0, AGENT_MODULE = 1, IMAGE = 2, CLASS_BYTES = 3,
        NATIVE_LOOKUP = 4, LOADER_TABLES = 5, INTRINSIC_BODY = 6,
        SALTED_PROBE = 7, HASH_BINS = 8, TRANSFORM_CACHE = 9;
    private static final String[] CATEGORIES = {
        "static parts", "agent module", "image", "class bytes", "native lookup",
        "loader tables", "intrinsic bodies", "salted probes",
        "hash bins", "transform cache"};
    private static final long[] apart = new long[CATEGORIES.length];
    private static volatile boolean shuttingDown;
    private static volatile Thread main;
    /** The methods (`Class.name`, the system property totals.stacks,
     *  comma-separated) whose callers' stacks are recorded, by stack; null
     *  until the system properties can be read (System.out is set). */
    private static volatile java.util.Set<String> stackNames;
    private static final Map<JoinPoint.StaticPart, Boolean> stackParts =
        new IdentityHashMap<JoinPoint.StaticPart, Boolean>();
    private static final Map<String, long[]> stacks = new TreeMap<String, long[]>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(MethodTotals::write));
        // totals.shift=true: one identity hash more, drawn here (on the main
        // thread, whose first advised join point initializes the aspect), so
        // every later identity hash code of the thread is another one. Two
        // runs of one mode, one of them shifted, tell the counts that follow
        // identity hash codes (the modes' own work draws different numbers
        // of them: an application's hash index probes, its sorts of objects
        // kept in identity-hashed tables).
        if (Boolean.getBoolean("totals.shift")) {
            System.identityHashCode(new Object());
        }
    }

    before(): execution(static void java.lang.Shutdown.shutdown())
        || execution(static void java.lang.Shutdown.exit(int)) {
        shuttingDown = true;
    }

    /** A class loader loading the class `name`. */
    pointcut loading(String name): execution(* java.lang.ClassLoader+.loadClass(String, ..))
        && args(name, ..);

    pointcut executions(): (execution(* *(..)) || execution(*.new(..))) && !within(MethodTotals);

    /** Work of one mode only, whatever the aspects: the JVM has a module
     *  read every unnamed module once an agent changed one of its classes
     *  (Modules.transformedByAgent: the agent's mode). Counted apart. */
    pointcut agentModule(): execution(* jdk.internal.module.Modules.transformedByAgent(..));

    /** The run-time image read through jdk.internal.jimage is the woven
     *  image in the two-phase mode (another string table and hash layout:
     *  other probe counts). Counted apart. */
    pointcut image(): execution(* jdk.internal.jimage..*.*(..));

    /** Reading a class file's bytes from the class path: the two-phase
     *  mode's loader reads the woven class file, larger than the original
     *  the agent's loader reads, and Resource.getBytes grows its buffer and
     *  reads in steps of 1 KiB: more reads, copies and length checks.
     *  Counted apart. */
    pointcut classBytes(): execution(* jdk.internal.loader.Resource+.getBytes())
        || execution(* jdk.internal.loader.Resource+.getByteBuffer());

    /** Finding the library of a native method the JVM links: the boot
     *  loader searches its libraries in the order of a hash table keyed by
     *  their paths, and the woven JDK is a copy at another path (libnio
     *  before or after libnet: one or two lookups). Counted apart. */
    pointcut nativeLookup(): execution(long java.lang.ClassLoader.findNative(..));

    before(): executions() && cflow(apartWork()) && cflow(agentModule()) {
        apart(AGENT_MODULE);
    }

    before(): executions() && cflow(apartWork()) && !cflow(agentModule()) && cflow(image()) {
        apart(IMAGE);
    }

    before(): executions() && cflow(apartWork()) && !cflow(agentModule()) && !cflow(image()) && cflow(classBytes()) {
        apart(CLASS_BYTES);
    }

    before(): executions() && cflow(apartWork()) && !cflow(agentModule()) && !cflow(image()) && !cflow(classBytes())
        && cflow(nativeLookup()) {
        apart(NATIVE_LOOKUP);
    }

    /** A call to an @IntrinsicCandidate method (whose execution the weave
     *  leaves alone): where the JIT compiles the call it replaces the
     *  method's body by its own code, so the executions of what the body
     *  calls (StringLatin1.compareTo(byte[], byte[]) calls the four-argument
     *  compareTo and getChar) are counted only while the caller runs
     *  interpreted, or compiled with no intrinsic: that depends on when the
     *  JIT compiles it. Counted apart. */
    pointcut intrinsicBody(): call(@jdk.internal.vm.annotation.IntrinsicCandidate * *(..));

    before(): executions() && cflow(apartWork()) && !cflow(agentModule()) && !cflow(image()) && !cflow(classBytes())
        && !cflow(nativeLookup()) && cflow(intrinsicBody()) {
        apart(INTRINSIC_BODY);
    }

    /** Looking a key up in an immutable set or map of Set.of, Map.of, or
     *  iterating over one: where the probe or the iteration starts depends
     *  on a salt the JDK takes from System.nanoTime() when class-data
     *  sharing is off (as it is in both modes here: the agent's early hook
     *  turns it off), so the equals calls of the probe, and the empty slots
     *  an iterator's nextIndex steps over, differ from run to run (lucene on
     *  JDK 25: 54 to 56 nextIndex calls in identical runs). Counted apart. */
    pointcut saltedProbe(): execution(* java.util.ImmutableCollections.SetN.probe(..))
        || execution(* java.util.ImmutableCollections.MapN.probe(..))
        || execution(* java.util.ImmutableCollections.SetN.SetNIterator.nextIndex())
        || execution(* java.util.ImmutableCollections.MapN.MapNIterator.nextIndex());

    before(): executions() && cflow(apartWork()) && !cflow(agentModule()) && !cflow(image()) && !cflow(classBytes())
        && !cflow(nativeLookup()) && !cflow(intrinsicBody()) && cflow(saltedProbe()) {
        apart(SALTED_PROBE);
    }

    /** Hash tables' placement: a concurrent hash table's bin accessors
     *  (ConcurrentHashMap.tabAt, casTabAt, setTabAt) and an identity hash
     *  table's probe past a collision (IdentityHashMap.nextKeyIndex). Which
     *  bin or slot an entry lands in, and so whether a put finds its bin
     *  empty (one casTabAt) or not (tabAt, and a walk), follows the keys'
     *  hash codes. Identity hash codes, and so
     *  Class.hashCode and MethodType.hashCode, come from the thread's own
     *  sequence in the order the thread asks for them, which any identity
     *  hash asked for by one mode's own work, or in the order of a salted
     *  immutable set, shifts. The number of puts, gets and nodes does not
     *  change. Counted apart. */
    pointcut hashBins(): execution(static * java.util.concurrent.ConcurrentHashMap.tabAt(..))
        || execution(static * java.util.concurrent.ConcurrentHashMap.casTabAt(..))
        || execution(static * java.util.concurrent.ConcurrentHashMap.setTabAt(..))
        || execution(static int java.util.IdentityHashMap.nextKeyIndex(..));

    before(): executions() && cflow(apartWork()) && !cflow(agentModule()) && !cflow(image()) && !cflow(classBytes())
        && !cflow(nativeLookup()) && !cflow(intrinsicBody()) && !cflow(saltedProbe())
        && cflow(hashBins()) {
        apart(HASH_BINS);
    }

    /** A class loader's own tables: the lock per class name
     *  (ClassLoader.getClassLoadingLock), the certificates per package
     *  (checkCerts), the protection domain per code source
     *  (SecureClassLoader.getProtectionDomain) and the list of its classes
     *  (ClassLoader.addClass, which the JVM calls). The two-phase mode loads
     *  the C$MajorStatics by name, so they take locks and certificate
     *  checks the agent's definitions do not, and its code sources are the
     *  woven class path's, whose URLs hash differently: the hash tables
     *  collide and resize, and the list grows, at other points. Counted
     *  apart. */
    pointcut loaderTables(): execution(* java.lang.ClassLoader.getClassLoadingLock(String))
        || execution(* java.lang.ClassLoader.checkCerts(..))
        || execution(* java.security.SecureClassLoader.getProtectionDomain(..))
        || execution(void java.lang.ClassLoader.addClass(Class));

    before(): executions() && cflow(apartWork()) && !cflow(agentModule()) && !cflow(image()) && !cflow(classBytes())
        && !cflow(nativeLookup()) && !cflow(intrinsicBody()) && !cflow(saltedProbe())
        && !cflow(hashBins()) && cflow(loaderTables()) {
        apart(LOADER_TABLES);
    }

    /** The comparisons of a lookup in the cache of transforms a lambda
     *  form keeps (LambdaFormEditor.getInCache, putInCache: the key against
     *  each cached transform, in the order they were put). The two modes
     *  look up and put the same transforms the same number of times, but
     *  not in the same order (antlr4 on JDK 25, the field accessors'
     *  asType conversions: 725 comparisons two-phase, 716 under the agent,
     *  in identical runs of each; the same with CDS off in both), so a
     *  lookup passes over another number of entries. Counted apart. */
    pointcut transformCache(): execution(* java.lang.invoke.LambdaFormEditor.Transform.equals(..));

    before(): executions() && cflow(apartWork()) && !cflow(agentModule()) && !cflow(image()) && !cflow(classBytes())
        && !cflow(nativeLookup()) && !cflow(intrinsicBody()) && !cflow(saltedProbe())
        && !cflow(hashBins()) && !cflow(loaderTables()) && cflow(transformCache()) {
        apart(TRANSFORM_CACHE);
    }

    /** Any of the work above, counted apart (one cflow for the common
     *  path: the executions counted test only this one). */
    pointcut apartWork(): agentModule() || image() || classBytes() || nativeLookup()
        || intrinsicBody() || saltedProbe() || hashBins() || loaderTables()
        || transformCache();

    /** The executions not counted apart for a mode's own work above. */
    pointcut sameWork(): executions() && !cflow(apartWork());

    before(): sameWork() && !cflow(loading(*)) {
        count(thisJoinPointStaticPart);
    }

    /** The two-phase mode loads a class's extra class of static parts
     *  (C$MajorStatics, for class files before Java 7) through the
     *  application class loader, whose Java code runs; the agent defines it
     *  from the class file load hook, running none: counted apart. */
    before(String name): sameWork() && cflow(loading(name)) {
        if (name.endsWith("$MajorStatics")) {
            apart(STATIC_PARTS);
        } else {
            count(thisJoinPointStaticPart);
        }
    }

    /** One execution more in the category `c`. */
    private static void apart(int c) {
        synchronized (counts) {
            apart[c]++;
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
                if (stackNames == null && System.out != null) {
                    String names = System.getProperty("totals.stacks", "");
                    java.util.Set<String> wanted = new java.util.HashSet<String>();
                    for (String name : names.split(",")) {
                        if (!name.isEmpty()) {
                            wanted.add(name);
                        }
                    }
                    stackNames = wanted;
                }
                if (stackNames != null && !stackNames.isEmpty()) {
                    Boolean wanted = stackParts.get(part);
                    if (wanted == null) {
                        wanted = stackNames.contains(part.getSignature().getDeclaringTypeName()
                            + "." + part.getSignature().getName());
                        stackParts.put(part, wanted);
                    }
                    if (wanted) {
                        StringBuilder b = new StringBuilder(part.getSignature().toLongString());
                        for (StackTraceElement e : new Throwable().getStackTrace()) {
                            b.append("\n    ").append(e);
                        }
                        long[] s = stacks.get(b.toString());
                        if (s == null) {
                            stacks.put(b.toString(), s = new long[1]);
                        }
                        s[0]++;
                    }
                }
            }
        }
    }

    private static void write() {
        Map<String, long[]> byKey = new TreeMap<String, long[]>();
        long main, other, shutdown;
        StringBuilder categories = new StringBuilder();
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
            for (int c = 0; c < CATEGORIES.length; c++) {
                categories.append(c == 0 ? "" : ", ").append(apart[c]).append(' ')
                    .append(CATEGORIES[c]);
            }
        }
        try (PrintWriter w = new PrintWriter(new FileWriter(System.getProperty("totals.out")))) {
            for (Map.Entry<String, long[]> e : byKey.entrySet()) {
                w.println(e.getValue()[0] + " " + e.getKey());
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
        if (stackNames != null && !stackNames.isEmpty()) {
            synchronized (counts) {
                try (PrintWriter w = new PrintWriter(
                        new FileWriter(System.getProperty("totals.out") + ".stacks"))) {
                    for (Map.Entry<String, long[]> e : stacks.entrySet()) {
                        w.println(e.getValue()[0] + " " + e.getKey());
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }
        }
        System.err.println("MethodTotals: " + main + " executions on main, " + other
            + " on other threads, " + shutdown + " in the shutdown; apart: " + categories);
    }
}
