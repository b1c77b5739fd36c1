package major.runtime;

import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A node of a thread's calling-context tree ({@code thisCallingContext}, major's
 * extension of the aspect language): one per distinct stack of frames a thread
 * has run, from the thread's first woven frame down. The weaver maintains the
 * tree in every woven method and at calls to methods that have no woven body of
 * their own (native methods, {@code java.lang.Object}'s), as soon as one advice
 * of the weave uses {@code thisCallingContext}: it enters the child for the
 * method's frame on entry, counting {@link #calls}, and makes the parent current
 * again however the method ends. The fields an entry and an exit touch are
 * {@link ContextHead}'s, first in the object.
 *
 * <p>The current node is kept per thread: in a field of {@code java.lang.Thread}
 * when the JDK is woven (read and written by {@code java.lang.MajorBypass}, which
 * calls {@link #newRoot}, {@link #enterIn} and {@link #currentIn}), in a
 * {@code ThreadLocal} otherwise
 * (the static methods of this class). A node is only ever changed by its own
 * thread; {@link #writeProfile} reads the other threads' trees as they are.
 *
 * <p>The fields {@link #wall}, {@link #cpu}, {@link #mark}, {@link #cpuMark} and
 * {@link #data} belong to the aspects (a timing profiler keeps its start times in
 * {@code mark} and {@code cpuMark}).
 */
public final class CallingContext extends ContextHead {
    /** The caller's node; {@code null} for a thread's root. */
    public final CallingContext parent;
    /**
     * The frame: {@code java.util.HashMap.hash(java.lang.Object)} (binary class
     * name, method name, parameter types; an interned string constant of the
     * woven class); {@code null} for a thread's root.
     */
    public final String frame;
    /** Inclusive wall time in nanoseconds, for aspects that measure it. */
    public long wall;
    /** Inclusive CPU time in nanoseconds, for aspects that measure it. */
    public long cpu;
    /** A slot for aspects (a start time). */
    public long mark;
    /** A slot for aspects (a start CPU time). */
    public long cpuMark;
    /** A slot for aspects. */
    public Object data;

    /** The node's number in its thread's tree (the root is 0). */
    public final int id;
    /**
     * In a thread's root: every node's child table, one after another. A
     * node's table is a slot holding the node itself, then {@code 2^k} pairs
     * of slots (frame, child), open addressing on the frame's hash (which
     * the weaver computes and passes with the frame), at most half full; a
     * node without children has a table of one pair. A method's entry finds
     * its child in two loads from the current key: the pair (frame and child
     * side by side, in one cache line mostly) and the child itself — not
     * through the current node, a table object of its own and the child's
     * frame, three more cache lines of a tree of several 100,000 nodes.
     * Tables that grew leave their old slots unused.
     */
    private Object[] arena;
    /**
     * In a thread's root: the rest of what only a root holds, which no entry
     * or exit reads (null in every other node: a field here instead of five
     * makes each node 16 bytes smaller, 120 instead of 136).
     */
    private RootState state;

    /** How many children the node has. */
    private int count;
    /** The frame's hash, as the weaver passes it. */
    private final int hash;
    /**
     * For the child of a call to an overridable method without a woven body:
     * receiver classes whose dispatch runs that method (positive) or an
     * override (negative), a few of each.
     */
    private Class<?>[] dispatch;
    private int dispatched;

    private CallingContext(CallingContext parent, String frame, int hash, int id, CallingContext root) {
        super(root);
        this.parent = parent;
        this.frame = frame;
        this.hash = hash;
        this.id = id;
    }

    /**
     * Every thread's root, in creation order. (The class's static state lives
     * in nested classes: with the JDK woven, woven code calls this class
     * during the VM's bootstrap too — with null nodes — and the class must
     * have no static initializer to run then.)
     */
    private static final class Roots {
        static final List<CallingContext> ALL = new ArrayList<CallingContext>();
    }

    // ------------------------------------------------------------------
    // The tree (both modes). The methods that take a node do nothing for
    // null (a bypass was on when the frame was entered).
    // ------------------------------------------------------------------

    /**
     * A new thread's root (with the JDK woven, kept in a field of its
     * {@code Thread}).
     *
     * @return the root
     */
    public static CallingContext newRoot() {
        CallingContext r = new CallingContext(null, null, 0, 0, null);
        r.arena = new Object[1024];
        r.state = new RootState();
        r.state.nodes[0] = r;
        r.state.size = 1;
        r.key = table(r, r, 1);
        r.up = r.key;
        r.current = r.key;
        synchronized (Roots.ALL) {
            Roots.ALL.add(r);
        }
        return r;
    }

    /**
     * A table of {@code pairs} pairs (a power of two) for {@code owner} at
     * the end of {@code root}'s arena, grown if need be.
     *
     * @return the table's key
     */
    private static long table(CallingContext root, CallingContext owner, int pairs) {
        int need = 1 + 2 * pairs;
        Object[] a = root.arena;
        RootState s = root.state;
        if (s.top + need > a.length) {
            int length = a.length;
            while (s.top + need > length) {
                length *= 2;
            }
            Object[] bigger = new Object[length];
            System.arraycopy(a, 0, bigger, 0, s.top);
            root.arena = bigger;
            a = bigger;
        }
        a[s.top] = owner;
        int base = s.top + 1;
        s.top += need;
        return ((long) base << 32) | (pairs - 1);
    }

    /**
     * The current node of the thread whose root is {@code root}.
     *
     * @param root the root, or null
     * @return the node, or null
     */
    public static CallingContext currentIn(CallingContext root) {
        return root == null ? null : (CallingContext) root.arena[(int) (root.current >>> 32) - 1];
    }

    /**
     * Enters {@code frame} below the current node of {@code root}'s thread:
     * the child, counted, becomes current.
     *
     * @param root the thread's root
     * @param frame the frame (an interned string)
     * @param hash the frame's hash
     * @return the node entered
     */
    public static CallingContext enterIn(CallingContext root, String frame, int hash) {
        CallingContext c = firstProbe(root.arena, root.current, frame, hash);
        if (c != null) {
            c.calls++;
            root.current = c.key;
            return c;
        }
        return enterMiss(root, frame, hash);
    }

    /**
     * The child for {@code frame} in the table {@code k} of the arena
     * {@code a} when it sits in its first slot, else null: the straight case
     * of every entry and tracked call. A loop here would cost the JIT
     * compilers more than the call of the rare miss (a table is at most half
     * full: most children sit in their first slot).
     *
     * @param a the root's arena
     * @param k the key of the table (the current node's)
     * @param frame the frame (an interned string)
     * @param hash the frame's hash
     * @return the child, or null
     */
    private static CallingContext firstProbe(Object[] a, long k, String frame, int hash) {
        int i = (int) (k >>> 32) + ((hash & (int) k) << 1);
        return a[i] == frame ? (CallingContext) a[i + 1] : null;
    }

    /**
     * {@link #enterIn} past the first probe: the rest of the probe, else the
     * child made.
     *
     * @param root the thread's root
     * @param frame the frame (an interned string)
     * @param hash the frame's hash
     * @return the node entered
     */
    public static CallingContext enterMiss(CallingContext root, String frame, int hash) {
        CallingContext cur = (CallingContext) root.arena[(int) (root.current >>> 32) - 1];
        CallingContext c = find(cur, frame, hash);
        if (c == null) {
            c = create(cur, frame, hash);
        }
        root.current = c.key;
        return c;
    }

    /**
     * Counts {@code frame} below the current node of {@code root}'s thread,
     * which stays current: the frame of a quiet body (one that runs no Java
     * code but its own and cannot throw, so that nothing is ever entered
     * below it), counted without the entry and exit that making it current
     * would take.
     *
     * @param root the thread's root
     * @param frame the frame (an interned string)
     * @param hash the frame's hash
     */
    public static void countIn(CallingContext root, String frame, int hash) {
        CallingContext c = firstProbe(root.arena, root.current, frame, hash);
        if (c != null) {
            c.calls++;
            return;
        }
        countMiss(root, frame, hash);
    }

    /**
     * {@link #countIn} past the first probe: the rest of the probe, else the
     * child made.
     *
     * @param root the thread's root
     * @param frame the frame (an interned string)
     * @param hash the frame's hash
     */
    public static void countMiss(CallingContext root, String frame, int hash) {
        CallingContext cur = (CallingContext) root.arena[(int) (root.current >>> 32) - 1];
        if (find(cur, frame, hash) == null) {
            create(cur, frame, hash);
        }
    }

    /**
     * The child of {@code cur} for {@code frame}, its {@link #calls} counted, or
     * {@code null} when {@code cur} has none yet. Runs no code but its own and
     * never throws: it runs without the bypass set.
     *
     * @param cur the current node
     * @param frame the frame (an interned string)
     * @param hash the frame's hash
     * @return the child, or null
     */
    public static CallingContext find(CallingContext cur, String frame, int hash) {
        CallingContext c = child(cur, frame, hash);
        if (c != null) {
            c.calls++;
        }
        return c;
    }

    /** The child of {@code cur} for {@code frame}, not counted, or null. */
    private static CallingContext child(CallingContext cur, String frame, int hash) {
        Object[] a = cur.root.arena;
        long k = cur.key;
        int base = (int) (k >>> 32);
        int m = (int) k;
        for (int j = hash & m; ; j = (j + 1) & m) {
            Object f = a[base + 2 * j];
            if (f == null) {
                return null;
            }
            if (f == frame) {
                return (CallingContext) a[base + 2 * j + 1];
            }
        }
    }

    /**
     * The child of {@code cur} for {@code frame}, made and counted once. (With
     * the JDK woven, it runs with the thread's bypass set: it allocates.)
     *
     * @param cur the current node
     * @param frame the frame
     * @param hash the frame's hash
     * @return the child
     */
    public static CallingContext create(CallingContext cur, String frame, int hash) {
        CallingContext c = find(cur, frame, hash);
        if (c != null) {
            return c;
        }
        CallingContext root = cur.root;
        RootState s = root.state;
        c = new CallingContext(cur, frame, hash, s.size, root);
        c.key = table(root, c, 1);
        if (s.size == s.nodes.length) {
            CallingContext[] bigger = new CallingContext[s.nodes.length * 2];
            System.arraycopy(s.nodes, 0, bigger, 0, s.size);
            s.nodes = bigger;
        }
        s.nodes[s.size] = c;
        s.size++;
        long k = cur.key;
        int pairs = (int) k + 1;
        if ((cur.count + 1) * 2 > pairs) {
            // A table twice the size (at least 4 pairs) at the arena's end;
            // the children's `up` follows the parent's new key.
            long grown = table(root, cur, pairs < 2 ? 4 : pairs * 2);
            Object[] a = root.arena;
            int base = (int) (k >>> 32);
            for (int j = 0; j < pairs; j++) {
                Object f = a[base + 2 * j];
                if (f != null) {
                    CallingContext old = (CallingContext) a[base + 2 * j + 1];
                    put(a, grown, old);
                    old.up = grown;
                }
            }
            cur.key = grown;
            if (cur.up == k) {
                // The root is its own parent.
                cur.up = grown;
            }
            if (root.current == k) {
                root.current = grown;
            }
        }
        put(root.arena, cur.key, c);
        c.up = cur.key;
        cur.count++;
        c.calls = 1;
        return c;
    }

    /** Puts {@code c} into the table {@code key} of {@code a} (which has room). */
    private static void put(Object[] a, long key, CallingContext c) {
        int base = (int) (key >>> 32);
        int m = (int) key;
        int j = c.hash & m;
        while (a[base + 2 * j] != null) {
            j = (j + 1) & m;
        }
        a[base + 2 * j + 1] = c;
        a[base + 2 * j] = c.frame;
    }

    /**
     * Leaves the frame of {@code node} as it returns: its parent becomes
     * current (a call in the woven code, which every compiler inlines: the
     * same statement written out would make small methods too big to inline).
     *
     * @param node the node entered, or null
     */
    public static void exitContext(CallingContext node) {
        if (node != null) {
            node.root.current = node.up;
        }
    }

    /**
     * Leaves the frame of {@code node} as {@code t} unwinds it (woven code
     * throws what it returns).
     *
     * @param t the exception
     * @param node the node entered, or null
     * @return {@code t}
     */
    public static Throwable exitThrown(Throwable t, CallingContext node) {
        if (node != null) {
            CallingContext root = node.root;
            RootState s = root.state;
            if (s.thrown != t) {
                s.thrown = t;
                s.thrownAt = node;
            }
            root.current = node.up;
        }
        return t;
    }

    /**
     * Makes {@code node} current again (an exception handler of its frame,
     * the return of a call entered with {@link #enterNative}).
     *
     * @param node the frame's node, or null
     */
    public static void restoreContext(CallingContext node) {
        if (node != null) {
            node.root.current = node.key;
        }
    }

    /**
     * Enters the frame of a method without a woven body, called from the frame
     * of {@code node}.
     *
     * @param node the caller's node, or null
     * @param frame the callee's frame
     * @param hash the frame's hash
     */
    public static void enterNative(CallingContext node, String frame, int hash) {
        enterNativeIn(node, frame, hash);
    }

    /**
     * {@link #enterNative} for an instance method: its frame is entered only
     * when {@code receiver} is not null. A null receiver makes the call throw
     * in the caller's frame, before the method runs, and the exception is
     * constructed there, below the caller's node.
     *
     * @param receiver the receiver of the call
     * @param node the caller's node, or null
     * @param frame the callee's frame
     * @param hash the frame's hash
     */
    public static void enterNativeOn(Object receiver, CallingContext node, String frame, int hash) {
        if (receiver != null) {
            enterNativeIn(node, frame, hash);
        }
    }

    /** The body of {@link #enterNative} (compiled into it and {@link #enterNativeOn}). */
    private static void enterNativeIn(CallingContext node, String frame, int hash) {
        if (node != null) {
            CallingContext root = node.root;
            CallingContext c = firstProbe(root.arena, node.key, frame, hash);
            if (c != null) {
                c.calls++;
                root.current = c.key;
                return;
            }
            enterNativeMiss(node, frame, hash);
        }
    }

    /**
     * {@link #enterNative} past the first probe: the rest of the probe, else
     * the child made.
     *
     * @param node the caller's node
     * @param frame the callee's frame
     * @param hash the frame's hash
     */
    public static void enterNativeMiss(CallingContext node, String frame, int hash) {
        CallingContext n = find(node, frame, hash);
        if (n == null) {
            n = create(node, frame, hash);
        }
        node.root.current = n.key;
    }

    /**
     * Enters the frame of an overridable method without a woven body when the
     * call on {@code receiver} runs it (see {@link #dispatchChild}).
     *
     * @param receiver the receiver
     * @param node the caller's node, or null
     * @param frame the frame of the method the call names
     * @param hash the frame's hash
     */
    public static void enterDispatched(Object receiver, CallingContext node, String frame, int hash) {
        // Straight for the common case: the child in its first slot, and
        // the receiver's class the first one it learned.
        if (node != null && receiver != null) {
            CallingContext c = firstProbe(node.root.arena, node.key, frame, hash);
            if (c != null) {
                Class<?>[] d = c.dispatch;
                if (d != null && d[0] == receiver.getClass()) {
                    if (d[1] != null) {
                        c.calls++;
                        c.root.current = c.key;
                    }
                    return;
                }
            }
            enterDispatchedMiss(receiver, node, frame, hash);
        }
    }

    /**
     * {@link #enterDispatched} past its straight case.
     *
     * @param receiver the receiver
     * @param node the caller's node
     * @param frame the frame of the method the call names
     * @param hash the frame's hash
     */
    public static void enterDispatchedMiss(Object receiver, CallingContext node, String frame, int hash) {
        CallingContext n = dispatchChild(node, receiver, frame, hash);
        if (n != null) {
            n.root.current = n.key;
        }
    }

    /**
     * The child of {@code cur} for the call of {@code frame} (an overridable
     * method without a woven body) on {@code receiver}, counted, when the call
     * runs that method; {@code null} when it runs an override (whose own frame
     * is entered by its woven body), or when {@code cur} is null.
     *
     * @param cur the caller's node
     * @param receiver the receiver of the call
     * @param frame the frame of the method the call names
     * @param hash the frame's hash
     * @return the child, or null
     */
    public static CallingContext dispatchChild(CallingContext cur, Object receiver, String frame, int hash) {
        if (cur == null || receiver == null) {
            return null;
        }
        CallingContext c = child(cur, frame, hash);
        if (c == null) {
            c = createDispatch(cur, frame, hash);
        }
        Class<?> type = receiver.getClass();
        Class<?>[] d = c.dispatch;
        if (d != null) {
            for (int i = 0; i < d.length; i += 2) {
                if (d[i] == type) {
                    if (d[i + 1] == null) {
                        return null;
                    }
                    c.calls++;
                    return c;
                }
            }
        }
        if (!learnDispatch(c, type)) {
            return null;
        }
        c.calls++;
        return c;
    }

    /** A child for a dispatched call, not counted yet. */
    private static CallingContext createDispatch(CallingContext cur, String frame, int hash) {
        CallingContext c = create(cur, frame, hash);
        c.calls--;
        return c;
    }

    /**
     * Whether calling {@code c}'s method on an instance of {@code type} runs
     * that method (no override below its class), remembered in {@code c}.
     */
    private static boolean learnDispatch(CallingContext c, Class<?> type) {
        String f = c.frame;
        int paren = f.indexOf('(');
        int dot = f.lastIndexOf('.', paren);
        String declaring = f.substring(0, dot);
        String name = f.substring(dot + 1, paren);
        boolean runs = true;
        for (Class<?> k = type; k != null && !k.getName().equals(declaring); k = k.getSuperclass()) {
            if (declaresInstanceMethod(k, name)) {
                runs = false;
                break;
            }
        }
        Class<?>[] d = c.dispatch;
        if (d == null) {
            d = new Class<?>[16];
            c.dispatch = d;
        }
        int slot = (c.dispatched++ % (d.length / 2)) * 2;
        d[slot] = type;
        d[slot + 1] = runs ? type : null;
        return runs;
    }

    /** Whether {@code k} declares a non-static method {@code name} without parameters. */
    private static boolean declaresInstanceMethod(Class<?> k, String name) {
        for (String n : Overriders.NAMES.get(k)) {
            if (n.equals(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The names of the non-static, non-abstract methods without parameters
     * each class declares, found once per class: every dispatch context
     * learns the receiver classes it sees, each up to the method's declaring
     * class, and {@code getDeclaredMethods} copies every method of a class on
     * each call (a woven javac run has 31,639 dispatch contexts; the copies
     * took 0.43% of its CPU samples).
     */
    private static final class Overriders {
        static final ClassValue<String[]> NAMES = new ClassValue<String[]>() {
            @Override
            protected String[] computeValue(Class<?> k) {
                List<String> names = new ArrayList<String>();
                for (Method m : k.getDeclaredMethods()) {
                    int mods = m.getModifiers();
                    if (m.getParameterCount() == 0 && !Modifier.isStatic(mods) && !Modifier.isAbstract(mods)) {
                        names.add(m.getName());
                    }
                }
                return names.toArray(new String[0]);
            }
        };
    }

    /**
     * The context {@code t} was thrown in, on this thread, if it unwound a woven
     * frame of the tree {@code within} belongs to.
     *
     * @param t the exception
     * @param within a node of the current thread's tree
     * @return the deepest frame it unwound, or null
     */
    public static CallingContext thrownIn(Throwable t, CallingContext within) {
        if (within == null) {
            return null;
        }
        CallingContext root = within.root;
        RootState s = root.state;
        return s.thrown == t ? s.thrownAt : null;
    }

    /**
     * The calling context {@code t} was thrown in, innermost frame first, one
     * line per frame with the {@link #data} the aspects recorded there (an
     * {@code Object[]} is shown as its elements): ReCrash-style, the values of
     * the last entry of each context.
     *
     * @param t the exception (that escaped {@code main}, typically)
     * @param within a node of the current thread's tree
     * @return the text, or a line saying the context is unknown
     */
    public static String describeThrow(Throwable t, CallingContext within) {
        CallingContext at = thrownIn(t, within);
        StringBuilder b = new StringBuilder();
        b.append("calling context of ").append(t).append(", innermost first:\n");
        if (at == null) {
            return b.append("  (unknown: no woven frame saw it)\n").toString();
        }
        for (CallingContext c = at; c != null && c.frame != null; c = c.parent) {
            b.append("  ").append(c.frame);
            Object d = c.data;
            if (d instanceof Object[]) {
                b.append(" args ").append(java.util.Arrays.deepToString((Object[]) d));
            } else if (d != null) {
                b.append(" [").append(d).append(']');
            }
            b.append('\n');
        }
        return b.toString();
    }

    // ------------------------------------------------------------------
    // The thread's root in a ThreadLocal (application weaving)
    // ------------------------------------------------------------------

    /** Each thread's root. */
    private static final class Local {
        static final ThreadLocal<CallingContext> ROOT = new ThreadLocal<CallingContext>() {
            @Override
            protected CallingContext initialValue() {
                return newRoot();
            }
        };
    }

    /**
     * The current thread's current node ({@code thisCallingContext}).
     *
     * @return the node
     */
    public static CallingContext currentContext() {
        return currentIn(Local.ROOT.get());
    }

    /**
     * Enters the frame of a woven method.
     *
     * @param frame the method's frame
     * @param hash the frame's hash
     * @return the node entered
     */
    public static CallingContext enterContext(String frame, int hash) {
        return enterIn(Local.ROOT.get(), frame, hash);
    }

    /**
     * Counts the frame of a quiet woven body ({@link #countIn}).
     *
     * @param frame the method's frame
     * @param hash the frame's hash
     */
    public static void countContext(String frame, int hash) {
        countIn(Local.ROOT.get(), frame, hash);
    }

    // ------------------------------------------------------------------
    // The profile
    // ------------------------------------------------------------------

    /** Every thread's root so far. */
    private static CallingContext[] roots() {
        synchronized (Roots.ALL) {
            return Roots.ALL.toArray(new CallingContext[0]);
        }
    }

    private static boolean hooked;

    /**
     * Writes the profile ({@link #writeProfile}) when the VM shuts down, once:
     * to the file the system property {@code major.cct.out} names (default
     * {@code profile.cct}), with times when {@code major.cct.times} is
     * {@code true}. A profile that cannot be written is reported on
     * {@code System.err}.
     *
     * @param main the context of the program's {@code main} (where the profiler
     *     aspect calls this)
     */
    public static void writeAtExit(CallingContext main) {
        writeAtExit(main, Boolean.getBoolean("major.cct.times"), Boolean.getBoolean("major.cct.cpu"));
    }

    /**
     * {@link #writeAtExit(CallingContext)}, with the times or without.
     *
     * @param main the context of the program's {@code main}
     * @param times whether the profile has the {@link #wall} column
     */
    public static void writeAtExit(CallingContext main, boolean times) {
        writeAtExit(main, times, Boolean.getBoolean("major.cct.cpu"));
    }

    /**
     * {@link #writeAtExit(CallingContext)}, with the chosen time columns.
     *
     * @param main the context of the program's {@code main}
     * @param times whether the profile has the {@link #wall} column
     * @param cpu whether the profile has the {@link #cpu} column
     */
    public static synchronized void writeAtExit(CallingContext main, final boolean times, final boolean cpu) {
        if (hooked) {
            return;
        }
        hooked = true;
        final String out = System.getProperty("major.cct.out", "profile.cct");
        Runtime.getRuntime().addShutdownHook(new Thread("major-cct-writer") {
            @Override
            public void run() {
                try {
                    writeProfile(out, times, cpu);
                } catch (Throwable e) {
                    System.err.println("major: the calling-context profile could not be written to "
                            + out + ": " + e);
                }
            }
        });
    }

    /**
     * Writes every thread's tree as a raw profile, format 3 (linear in the
     * number of contexts; {@code major profile} merges the threads' trees,
     * roots by frame, and sorts them when it reads it):
     * <pre>
     * major-cct 3
     * metrics calls[ wall_ns][ cpu_ns]
     * frames N
     * FRAME                         (N lines: frame 0, 1, ...)
     * threads T
     * nodes M                       (T times: a thread's tree, M lines follow)
     * UP\tFRAME\tCALLS[\tWALL][\tCPU]   (the thread's nodes 1..M in number
     *                               order; UP the parent's number, 0 for the
     *                               thread's outermost frames)
     * </pre>
     * Nothing is merged, sorted or looked up here but the frame table: this
     * runs in a shutdown hook of the profiled program, whose CPU time it adds
     * to. Threads that still run may add nodes meanwhile: a tree is written
     * up to the first node not yet visible. Written to a temporary file
     * renamed into place, so that a reader never sees half a profile.
     *
     * @param path the file to write
     * @param times whether to write the wall times too
     * @throws IOException if it cannot be written
     */
    public static void writeProfile(String path, boolean times) throws IOException {
        writeProfile(path, times, false);
    }

    /**
     * {@link #writeProfile(String, boolean)}, with the CPU times ({@link #cpu})
     * too when {@code cpu} is set.
     *
     * @param path the file to write
     * @param times whether to write the wall times
     * @param cpu whether to write the CPU times
     * @throws IOException if it cannot be written
     */
    public static void writeProfile(String path, boolean times, boolean cpu) throws IOException {
        CallingContext[] roots = roots();
        // Each tree's nodes, up to the first one not yet visible (a thread
        // still running stores a node before it counts it), read once into
        // columns: the parent's number, the frame's (the frame table is
        // written before the nodes), the counts. The nodes lie all over the
        // heap; the columns are written in order.
        Columns[] trees = new Columns[roots.length];
        FrameIds frameIds = new FrameIds();
        for (int t = 0; t < roots.length; t++) {
            RootState state = roots[t].state;
            CallingContext[] nodes = state.nodes;
            int size = Math.min(state.size, nodes.length);
            int n = 1;
            while (n < size && nodes[n] != null) {
                n++;
            }
            Columns c = new Columns(n, times, cpu);
            for (int i = 1; i < n; i++) {
                CallingContext node = nodes[i];
                c.up[i] = node.parent.id;
                c.frame[i] = frameIds.of(node);
                c.calls[i] = node.calls;
                if (times) {
                    c.wall[i] = node.wall;
                }
                if (cpu) {
                    c.cpu[i] = node.cpu;
                }
            }
            trees[t] = c;
        }
        java.io.File target = new java.io.File(path).getAbsoluteFile();
        java.io.File tmp = new java.io.File(target.getPath() + ".tmp");
        RawOut w = new RawOut(new FileOutputStream(tmp));
        try {
            w.text("major-cct 3\nmetrics calls" + (times ? " wall_ns" : "") + (cpu ? " cpu_ns" : "") + "\nframes ");
            w.number(frameIds.size);
            w.newline();
            for (int i = 0; i < frameIds.size; i++) {
                w.text(frameIds.frames[i]);
                w.newline();
            }
            w.text("threads ");
            w.number(roots.length);
            w.newline();
            for (Columns c : trees) {
                w.text("nodes ");
                w.number(c.up.length - 1);
                w.newline();
                for (int i = 1; i < c.up.length; i++) {
                    // One check of room per line: two ints, three longs, tabs.
                    w.room(2 * 11 + 3 * 21 + 5);
                    w.digits(c.up[i]);
                    w.put('\t');
                    w.digits(c.frame[i]);
                    w.put('\t');
                    w.digits(c.calls[i]);
                    if (times) {
                        w.put('\t');
                        w.digits(c.wall[i]);
                    }
                    if (cpu) {
                        w.put('\t');
                        w.digits(c.cpu[i]);
                    }
                    w.put('\n');
                }
            }
        } finally {
            w.close();
        }
        if (!tmp.renameTo(target)) {
            target.delete();
            if (!tmp.renameTo(target)) {
                throw new IOException("cannot rename " + tmp + " to " + target);
            }
        }
    }

    /** What only a thread's root holds, besides its arena and current key. */
    private static final class RootState {
        /** How many slots of the root's arena are used. */
        int top;
        /** The tree's nodes by number. */
        CallingContext[] nodes = new CallingContext[64];
        /** How many nodes the tree has. */
        int size;
        /** The exception last unwound through a woven frame. */
        Throwable thrown;
        /** The deepest frame {@link #thrown} unwound. */
        CallingContext thrownAt;
    }

    /** A thread's tree as the profile writes it: one entry per node number (0, the root, unused). */
    private static final class Columns {
        final int[] up;
        final int[] frame;
        final long[] calls;
        final long[] wall;
        final long[] cpu;

        Columns(int n, boolean times, boolean cpu) {
            up = new int[n];
            frame = new int[n];
            calls = new long[n];
            wall = times ? new long[n] : null;
            this.cpu = cpu ? new long[n] : null;
        }
    }

    /**
     * The profile's frame table: each distinct frame numbered in the order
     * first met. Open addressing on the hash the weaver gave each node's
     * frame, the frame compared by identity first (frames are interned
     * constants) and by its text only on a hash match: no boxed number, no
     * string hashed, per node (a map of {@code String} to {@code Integer} took
     * most of the profile's writing, which the profiled run waits for).
     */
    private static final class FrameIds {
        /** The frames by number. */
        String[] frames = new String[1024];
        /** How many frames there are. */
        int size;
        /** The table: a frame's number + 1 (0: empty), by hash. */
        private int[] table = new int[2048];
        /** The hash of each frame, by number. */
        private int[] hashes = new int[1024];

        /** The number of {@code c}'s frame, numbered now if it is new. */
        int of(CallingContext c) {
            String f = c.frame;
            int h = c.hash;
            int m = table.length - 1;
            for (int i = mix(h) & m; ; i = (i + 1) & m) {
                int e = table[i];
                if (e == 0) {
                    return add(f, h, i);
                }
                String g = frames[e - 1];
                if (g == f || (hashes[e - 1] == h && g.equals(f))) {
                    return e - 1;
                }
            }
        }

        private int add(String f, int h, int slot) {
            int id = size++;
            if (id == frames.length) {
                frames = Arrays.copyOf(frames, id * 2);
                hashes = Arrays.copyOf(hashes, id * 2);
            }
            frames[id] = f;
            hashes[id] = h;
            table[slot] = id + 1;
            if (size * 2 > table.length) {
                int[] bigger = new int[table.length * 2];
                int m = bigger.length - 1;
                for (int k = 0; k < size; k++) {
                    int i = mix(hashes[k]) & m;
                    while (bigger[i] != 0) {
                        i = (i + 1) & m;
                    }
                    bigger[i] = k + 1;
                }
                table = bigger;
            }
            return id;
        }

        /** Spreads the weaver's hash over the table's low bits. */
        private static int mix(int h) {
            return (h ^ (h >>> 16)) * 0x9E3779B9;
        }
    }

    /**
     * The profile's bytes, buffered by hand: numbers in decimal without a
     * string per number, two digits at a time, text in UTF-8, one write per
     * 64 KB. The node lines ask for room once per line ({@link #room}), then
     * put their bytes unchecked.
     */
    private static final class RawOut {
        /** "00", "01", ... "99": the two digits of each number below 100. */
        private static final byte[] PAIRS = new byte[200];

        static {
            for (int i = 0; i < 100; i++) {
                PAIRS[2 * i] = (byte) ('0' + i / 10);
                PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
            }
        }

        private final FileOutputStream out;
        private final byte[] buf = new byte[1 << 16];
        private int len;

        RawOut(FileOutputStream out) {
            this.out = out;
        }

        void text(String s) throws IOException {
            byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            if (len + b.length > buf.length) {
                flush();
            }
            if (b.length > buf.length) {
                out.write(b);
            } else {
                System.arraycopy(b, 0, buf, len, b.length);
                len += b.length;
            }
        }

        /** A number, with room asked for it. */
        void number(long v) throws IOException {
            room(21);
            digits(v);
        }

        void newline() throws IOException {
            room(1);
            put('\n');
        }

        /** Makes room for {@code n} bytes (at most the buffer's size). */
        void room(int n) throws IOException {
            if (len + n > buf.length) {
                flush();
            }
        }

        /** A byte, in room asked for already. */
        void put(char c) {
            buf[len++] = (byte) c;
        }

        /** A number in decimal, in room asked for already (21 bytes). */
        void digits(long v) {
            if (v < 0) {
                buf[len++] = '-';
                if (v == Long.MIN_VALUE) {
                    // Its negation does not fit: the last digit apart.
                    digits(-(v / 10));
                    buf[len++] = (byte) ('0' - (int) (v % 10));
                    return;
                }
                v = -v;
            }
            if (v <= Integer.MAX_VALUE) {
                digits((int) v);
                return;
            }
            long high = v / 1000000000L;
            digits(high);
            int low = (int) (v - high * 1000000000L);
            // The low nine digits, leading zeros included.
            int end = len + 9;
            int p = end;
            for (int k = 0; k < 4; k++) {
                int q = low / 100;
                int r = low - q * 100;
                low = q;
                buf[--p] = PAIRS[2 * r + 1];
                buf[--p] = PAIRS[2 * r];
            }
            buf[--p] = (byte) ('0' + low);
            len = end;
        }

        /** A number from 0 up, in room asked for already (10 bytes). */
        void digits(int v) {
            int n = 1;
            for (int t = 10; n < 10 && v >= t; t *= 10) {
                n++;
            }
            int end = len + n;
            int p = end;
            while (v >= 100) {
                int q = v / 100;
                int r = v - q * 100;
                v = q;
                buf[--p] = PAIRS[2 * r + 1];
                buf[--p] = PAIRS[2 * r];
            }
            if (v >= 10) {
                buf[--p] = PAIRS[2 * v + 1];
                buf[--p] = PAIRS[2 * v];
            } else {
                buf[--p] = (byte) ('0' + v);
            }
            len = end;
        }

        private void flush() throws IOException {
            out.write(buf, 0, len);
            len = 0;
        }

        void close() throws IOException {
            try {
                flush();
            } finally {
                out.close();
            }
        }
    }
}
