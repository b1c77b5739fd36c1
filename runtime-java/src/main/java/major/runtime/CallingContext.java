package major.runtime;

import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/**
 * A node of a thread's calling-context tree ({@code thisCallingContext}, major's
 * extension of the aspect language): one per distinct stack of frames a thread
 * has run, from the thread's first woven frame down. The weaver maintains the
 * tree in every woven method and at calls to methods that have no woven body of
 * their own (native methods, {@code java.lang.Object}'s), as soon as one advice
 * of the weave uses {@code thisCallingContext}: it enters the child for the
 * method's frame on entry, counting its calls, and makes the parent current
 * again however the method ends.
 *
 * <p>What an entry and an exit touch is not in the nodes but in one
 * {@code long[]} of the thread's root, the <em>arena</em>: every node's child
 * table, one after another. A node's table is a slot holding the node's number,
 * then {@code 2^k} records of three slots — the child's frame hash (64 bits,
 * computed by the weaver and passed with the frame; 0 marks an empty record),
 * the child's <em>key</em> and the child's calls — open addressing on the hash,
 * at most half full (a node without children has one record). A key says where
 * a node's table is: its first record's slot in the high 32 bits, {@code 2^k - 1}
 * in the low ones. The root holds the current node's key ({@link #current}); an
 * entry reads one record of the current table — one cache line mostly — counts
 * the call there and makes the child's key current, and keeps the key it
 * replaced ({@link #entered}), which woven code keeps in a local and makes
 * current again on exit.
 * Tables that grow move to the arena's end (their old slots stay unused), and
 * the record in the parent's table follows. No references are stored on an
 * entry or an exit, so G1's card marking has nothing to do there.
 *
 * <p>A thread's root is found on a frame's entry: through a field of
 * {@code java.lang.Thread} when the JDK is woven ({@code java.lang.MajorBypass}'s
 * {@code enterContext}, {@code countContext} and {@code currentContext}, which
 * call {@link #enterIn}, {@link #countIn} and {@link #currentIn}), through a
 * {@code ThreadLocal} otherwise ({@link #enterContext}, {@link #countContext},
 * {@link #currentContext}). Woven code keeps the root in a local beside the
 * key, and passes both to the rest ({@link #exitContext},
 * {@link #restoreContext}, {@link #exitThrown}, {@link #enterNative},
 * {@link #enterDispatched}), which do nothing for a null root or a key of 0: a
 * bypass was on at the entry. A tree is only ever changed by its own thread;
 * {@link #writeProfile} reads the other threads' trees as they are.
 *
 * <p>The fields {@link #wall}, {@link #cpu}, {@link #mark}, {@link #cpuMark} and
 * {@link #data} belong to the aspects (a timing profiler keeps its start times in
 * {@code mark} and {@code cpuMark}); {@link #calls()} reads the count.
 */
public final class CallingContext {
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
    /** The thread's root (itself for a root). */
    final CallingContext root;
    /** The frame's hash, as the weaver passes it (0 for a root). */
    private final long hash;
    /** Where the node's child table is in the arena; changes when it grows. */
    private long key;
    /** How many children the node has. */
    private int count;

    /** In a thread's root: the key of the thread's current node. */
    private long current;
    /** In a thread's root: the key the last entry replaced ({@link #entered}). */
    private long entered;
    /** In a thread's root: every node's child table (see the class doc). */
    private long[] arena;
    /** In a thread's root: how many slots of {@link #arena} are used. */
    private int top;
    /** In a thread's root: its nodes by number. */
    private CallingContext[] nodes;
    /** In a thread's root: how many nodes it has. */
    private int size;
    /** In a thread's root: the exception last unwound through a woven frame. */
    private Throwable thrown;
    /** In a thread's root: the deepest frame {@link #thrown} unwound. */
    private CallingContext thrownAt;

    /**
     * For the child of a call to an overridable method without a woven body:
     * receiver classes whose dispatch runs that method (positive) or an
     * override (negative), a few of each.
     */
    private Class<?>[] dispatch;
    private int dispatched;

    private CallingContext(CallingContext parent, String frame, long hash, int id, CallingContext root) {
        this.parent = parent;
        this.frame = frame;
        this.hash = hash;
        this.id = id;
        this.root = root == null ? this : root;
    }

    /**
     * Every thread's root, in creation order. (The class's static state lives
     * in nested classes: with the JDK woven, woven code calls this class
     * during the VM's bootstrap too — with no entry made — and the class must
     * have no static initializer to run then.)
     */
    private static final class Roots {
        static final List<CallingContext> ALL = new ArrayList<CallingContext>();
    }

    /** Every frame by hash, to tell two frames with one hash (never merged silently). */
    private static final class Frames {
        static final java.util.HashMap<Long, String> BY_HASH = new java.util.HashMap<Long, String>();
        static boolean told;
    }

    /**
     * How often the context was entered (for a thread's root, 0). Read from
     * its record in the parent's table; safe to call on another thread's
     * tree, which may change meanwhile (then it may miss the latest calls).
     *
     * @return the count
     */
    public long calls() {
        CallingContext p = parent;
        if (p == null) {
            return 0;
        }
        long[] a = root.arena;
        long k = p.key;
        int base = (int) (k >>> 32);
        int m = (int) k;
        if (base < 1 || m < 0 || base + 3L * (m + 1L) > a.length) {
            return 0;
        }
        for (int j = (int) hash & m, n = 0; n <= m; j = (j + 1) & m, n++) {
            long h = a[base + 3 * j];
            if (h == hash) {
                return a[base + 3 * j + 2];
            }
            if (h == 0) {
                return 0;
            }
        }
        return 0;
    }

    // ------------------------------------------------------------------
    // The tree (both modes). What takes the key a frame replaced on entry
    // does nothing for 0 (a bypass was on when the frame was entered).
    // ------------------------------------------------------------------

    /**
     * A new thread's root (with the JDK woven, kept in a field of its
     * {@code Thread}).
     *
     * @return the root
     */
    public static CallingContext newRoot() {
        CallingContext r = new CallingContext(null, null, 0L, 0, null);
        r.arena = new long[1024];
        r.key = table(r, 0, 1);
        r.current = r.key;
        r.nodes = new CallingContext[64];
        r.nodes[0] = r;
        r.size = 1;
        synchronized (Roots.ALL) {
            Roots.ALL.add(r);
        }
        return r;
    }

    /**
     * A table of {@code records} records (a power of two) for node number
     * {@code owner} at the end of {@code root}'s arena, grown if need be.
     *
     * @return the table's key
     */
    private static long table(CallingContext root, int owner, int records) {
        int need = 1 + 3 * records;
        long[] a = root.arena;
        if (root.top + need > a.length) {
            int length = a.length;
            while (root.top + need > length) {
                length *= 2;
            }
            long[] bigger = new long[length];
            System.arraycopy(a, 0, bigger, 0, root.top);
            root.arena = bigger;
            a = bigger;
        }
        a[root.top] = owner;
        int base = root.top + 1;
        root.top += need;
        return ((long) base << 32) | (records - 1);
    }

    /** The node whose table is {@code key} in {@code root}'s tree. */
    private static CallingContext nodeAt(CallingContext root, long key) {
        return root.nodes[(int) root.arena[(int) (key >>> 32) - 1]];
    }

    /**
     * The current node of the thread whose root is {@code root}.
     *
     * @param root the root, or null
     * @return the node, or null
     */
    public static CallingContext currentIn(CallingContext root) {
        return root == null ? null : nodeAt(root, root.current);
    }

    /**
     * The slot of the record for {@code hash} in the table {@code k} of the
     * arena {@code a} when it is the first one probed, else -1: the straight
     * case of every entry and tracked call. A loop here would cost the JIT
     * compilers more than the call of the rare miss (a table is at most half
     * full: most children sit in their first record).
     *
     * @param a the root's arena
     * @param k the key of the table
     * @param hash the frame's hash
     * @return the slot, or -1
     */
    private static int firstProbe(long[] a, long k, long hash) {
        int i = (int) (k >>> 32) + 3 * ((int) hash & (int) k);
        return a[i] == hash ? i : -1;
    }

    /** The slot of the record for {@code hash} in the table {@code k} of {@code a}, or -1. */
    private static int find(long[] a, long k, long hash) {
        int base = (int) (k >>> 32);
        int m = (int) k;
        for (int j = (int) hash & m; ; j = (j + 1) & m) {
            long h = a[base + 3 * j];
            if (h == hash) {
                return base + 3 * j;
            }
            if (h == 0) {
                return -1;
            }
        }
    }

    /**
     * Enters {@code frame} below the current node of {@code root}'s thread:
     * the child, counted, becomes current, and the key it replaced (the
     * caller's) is kept for {@link #entered}.
     *
     * @param root the thread's root
     * @param frame the frame (an interned string)
     * @param hash the frame's hash
     * @return {@code root}
     */
    public static CallingContext enterIn(CallingContext root, String frame, long hash) {
        long k = root.current;
        long[] a = root.arena;
        int i = firstProbe(a, k, hash);
        if (i >= 0) {
            a[i + 2]++;
            root.current = a[i + 1];
            root.entered = k;
            return root;
        }
        return enterMiss(root, frame, hash);
    }

    /**
     * {@link #enterIn} past the first probe: the rest of the probe, else the
     * child made.
     *
     * @param root the thread's root
     * @param frame the frame (an interned string)
     * @param hash the frame's hash
     * @return {@code root}
     */
    public static CallingContext enterMiss(CallingContext root, String frame, long hash) {
        CallingContext cur = nodeAt(root, root.current);
        int i = record(cur, frame, hash);
        long[] a = root.arena;
        a[i + 2]++;
        root.current = a[i + 1];
        root.entered = cur.key;
        return root;
    }

    /**
     * The key the last entry of {@code root}'s thread replaced: what woven code
     * keeps, right after its entry, to make current again on its exits.
     *
     * @param root the thread's root, or null (a bypass was on at the entry)
     * @return the key, or 0 for null
     */
    public static long entered(CallingContext root) {
        return root == null ? 0 : root.entered;
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
    public static void countIn(CallingContext root, String frame, long hash) {
        long[] a = root.arena;
        int i = firstProbe(a, root.current, hash);
        if (i >= 0) {
            a[i + 2]++;
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
    public static void countMiss(CallingContext root, String frame, long hash) {
        int i = record(nodeAt(root, root.current), frame, hash);
        root.arena[i + 2]++;
    }

    /**
     * The slot of the record of {@code cur}'s child for {@code frame}, the
     * child made if need be (not counted). Runs no code but its own and never
     * throws unless it makes the child: it runs without the bypass set.
     */
    private static int record(CallingContext cur, String frame, long hash) {
        int i = find(cur.root.arena, cur.key, hash);
        return i >= 0 ? i : create(cur, frame, hash);
    }

    /**
     * Makes the child of {@code cur} for {@code frame} (which it has not), not
     * counted yet, and returns the slot of its record. (With the JDK woven, it
     * runs with the thread's bypass set: it allocates.)
     *
     * @param cur the node
     * @param frame the frame
     * @param hash the frame's hash
     * @return the slot of the child's record
     */
    private static int create(CallingContext cur, String frame, long hash) {
        register(frame, hash);
        CallingContext root = cur.root;
        CallingContext c = new CallingContext(cur, frame, hash, root.size, root);
        c.key = table(root, c.id, 1);
        if (root.size == root.nodes.length) {
            CallingContext[] bigger = new CallingContext[root.nodes.length * 2];
            System.arraycopy(root.nodes, 0, bigger, 0, root.size);
            root.nodes = bigger;
        }
        root.nodes[root.size] = c;
        root.size++;
        int records = (int) cur.key + 1;
        if ((cur.count + 1) * 2 > records) {
            grow(cur, records < 2 ? 4 : records * 2);
        }
        cur.count++;
        return put(root.arena, cur.key, hash, c.key, 0);
    }

    /**
     * Moves {@code cur}'s table to a new one of {@code records} records at the
     * arena's end: its key changes, and so do the record of it in its
     * parent's table and the thread's current key if it was the old one.
     * (No frame on the stack keeps {@code cur}'s key: a frame keeps its
     * parent's, and {@code cur}'s table grows only while {@code cur} is
     * current, that is while no child frame of it runs.)
     */
    private static void grow(CallingContext cur, int records) {
        CallingContext root = cur.root;
        long old = cur.key;
        long grown = table(root, cur.id, records);
        long[] a = root.arena;
        int base = (int) (old >>> 32);
        int n = (int) old + 1;
        for (int j = 0; j < n; j++) {
            int i = base + 3 * j;
            if (a[i] != 0) {
                put(a, grown, a[i], a[i + 1], a[i + 2]);
            }
        }
        cur.key = grown;
        if (cur.parent != null) {
            a[find(a, cur.parent.key, cur.hash) + 1] = grown;
        }
        if (root.current == old) {
            root.current = grown;
        }
    }

    /** Puts a record into the table {@code key} of {@code a} (which has room); returns its slot. */
    private static int put(long[] a, long key, long hash, long child, long calls) {
        int base = (int) (key >>> 32);
        int m = (int) key;
        int j = (int) hash & m;
        while (a[base + 3 * j] != 0) {
            j = (j + 1) & m;
        }
        int i = base + 3 * j;
        a[i] = hash;
        a[i + 1] = child;
        a[i + 2] = calls;
        return i;
    }

    /**
     * Remembers that {@code hash} is {@code frame}'s: two frames with one hash
     * would share their contexts under one parent, so the first such pair is
     * reported on {@code System.err} (a 64-bit hash makes it a matter of
     * chance: about one in 10^9 for a program of 100,000 methods).
     */
    private static void register(String frame, long hash) {
        String known;
        synchronized (Frames.BY_HASH) {
            known = Frames.BY_HASH.get(hash);
            if (known == null) {
                Frames.BY_HASH.put(hash, frame);
                return;
            }
            if (known.equals(frame) || Frames.told) {
                return;
            }
            Frames.told = true;
        }
        java.io.PrintStream err = System.err;
        if (err != null) {
            err.println("major: the frames " + known + " and " + frame + " have one hash ("
                    + hash + "): the calling-context tree may count one's contexts as the other's");
        }
    }

    /**
     * Makes the key {@code k} current: the exit of a frame that replaced it on
     * entry, or the return of a call entered with {@link #enterNative}.
     *
     * @param root the thread's root (null only with {@code k} 0)
     * @param k the key, or 0 (nothing was entered)
     */
    public static void exitContext(CallingContext root, long k) {
        if (k != 0) {
            root.current = k;
        }
    }

    /**
     * Makes the node of the frame {@code hash} below the key {@code up} current
     * again (an exception handler of that frame: whatever frames the exception
     * unwound).
     *
     * @param root the thread's root (null only with {@code up} 0)
     * @param up the key the frame replaced on entry, or 0
     * @param hash the frame's hash
     */
    public static void restoreContext(CallingContext root, long up, long hash) {
        if (up != 0) {
            long[] a = root.arena;
            int i = find(a, up, hash);
            if (i >= 0) {
                root.current = a[i + 1];
            }
        }
    }

    /**
     * Leaves the frame {@code hash} entered below the key {@code up} as
     * {@code t} unwinds it (woven code throws what it returns).
     *
     * @param t the exception
     * @param root the thread's root (null only with {@code up} 0)
     * @param up the key the frame replaced on entry, or 0
     * @param hash the frame's hash
     * @return {@code t}
     */
    public static Throwable exitThrown(Throwable t, CallingContext root, long up, long hash) {
        if (up != 0) {
            if (root.thrown != t) {
                long[] a = root.arena;
                int i = find(a, up, hash);
                if (i >= 0) {
                    root.thrown = t;
                    root.thrownAt = nodeAt(root, a[i + 1]);
                }
            }
            root.current = up;
        }
        return t;
    }

    /**
     * Enters the frame of a method without a woven body, called from the
     * current node.
     *
     * @param root the thread's root, or null (a bypass was on when the calling
     *     frame was entered: nothing is entered)
     * @param frame the callee's frame
     * @param hash the frame's hash
     * @return the key the call replaced (for {@link #exitContext} after it), or 0
     */
    public static long enterNative(CallingContext root, String frame, long hash) {
        if (root == null) {
            return 0;
        }
        long k = root.current;
        long[] a = root.arena;
        int i = firstProbe(a, k, hash);
        if (i >= 0) {
            a[i + 2]++;
            root.current = a[i + 1];
            return k;
        }
        return enterMiss(root, frame, hash).entered;
    }

    /**
     * Enters the frame of an overridable method without a woven body when the
     * call on {@code receiver} runs it (see {@link #dispatchChild}).
     *
     * @param receiver the receiver
     * @param root the thread's root, or null (then nothing is entered)
     * @param frame the frame of the method the call names
     * @param hash the frame's hash
     * @return the key the call replaced (for {@link #exitContext} after it), or
     *     0 when it entered nothing
     */
    public static long enterDispatched(Object receiver, CallingContext root, String frame, long hash) {
        // Straight for the common case: the child in its first record, and
        // the receiver's class the first one it learned.
        if (root == null || receiver == null) {
            return 0;
        }
        long k = root.current;
        long[] a = root.arena;
        int i = firstProbe(a, k, hash);
        if (i >= 0) {
            Class<?>[] d = nodeAt(root, a[i + 1]).dispatch;
            if (d != null && d[0] == receiver.getClass()) {
                if (d[1] == null) {
                    return 0;
                }
                a[i + 2]++;
                root.current = a[i + 1];
                return k;
            }
        }
        return enterDispatchedMiss(root, receiver, frame, hash);
    }

    /**
     * {@link #enterDispatched} past its straight case.
     *
     * @param root the thread's root
     * @param receiver the receiver
     * @param frame the frame of the method the call names
     * @param hash the frame's hash
     * @return the key the call replaced, or 0 when it entered nothing
     */
    public static long enterDispatchedMiss(CallingContext root, Object receiver, String frame, long hash) {
        CallingContext cur = nodeAt(root, root.current);
        CallingContext c = dispatchChild(cur, receiver, frame, hash);
        if (c == null) {
            return 0;
        }
        root.current = c.key;
        return cur.key;
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
    public static CallingContext dispatchChild(CallingContext cur, Object receiver, String frame, long hash) {
        if (cur == null || receiver == null) {
            return null;
        }
        CallingContext root = cur.root;
        int i = record(cur, frame, hash);
        CallingContext c = nodeAt(root, root.arena[i + 1]);
        Class<?> type = receiver.getClass();
        Class<?>[] d = c.dispatch;
        boolean runs;
        found: {
            if (d != null) {
                for (int j = 0; j < d.length; j += 2) {
                    if (d[j] == type) {
                        runs = d[j + 1] != null;
                        break found;
                    }
                }
            }
            runs = learnDispatch(c, type);
        }
        if (!runs) {
            return null;
        }
        root.arena[find(root.arena, cur.key, hash) + 2]++;
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
        for (Method m : k.getDeclaredMethods()) {
            if (m.getName().equals(name)
                    && m.getParameterTypes().length == 0
                    && !Modifier.isStatic(m.getModifiers())
                    && !Modifier.isAbstract(m.getModifiers())) {
                return true;
            }
        }
        return false;
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
        return root.thrown == t ? root.thrownAt : null;
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
     * Enters the frame of a woven method ({@link #enterIn}).
     *
     * @param frame the method's frame
     * @param hash the frame's hash
     * @return the thread's root
     */
    public static CallingContext enterContext(String frame, long hash) {
        return enterIn(Local.ROOT.get(), frame, hash);
    }

    /**
     * Counts the frame of a quiet woven body ({@link #countIn}).
     *
     * @param frame the method's frame
     * @param hash the frame's hash
     */
    public static void countContext(String frame, long hash) {
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
        // still running stores a node before it counts it).
        CallingContext[][] trees = new CallingContext[roots.length][];
        int[] sizes = new int[roots.length];
        // Each node's frame number, found once per node: the frame table is
        // written before the nodes.
        int[][] frameOf = new int[roots.length][];
        java.util.HashMap<String, Integer> frameIds = new java.util.HashMap<String, Integer>();
        ArrayList<String> frames = new ArrayList<String>();
        for (int t = 0; t < roots.length; t++) {
            int size = roots[t].size;
            CallingContext[] nodes = roots[t].nodes;
            int[] ids = new int[Math.min(size, nodes.length)];
            int n = 1;
            while (n < ids.length && nodes[n] != null) {
                String f = nodes[n].frame;
                Integer id = frameIds.get(f);
                if (id == null) {
                    id = frames.size();
                    frameIds.put(f, id);
                    frames.add(f);
                }
                ids[n] = id;
                n++;
            }
            trees[t] = nodes;
            sizes[t] = n;
            frameOf[t] = ids;
        }
        java.io.File target = new java.io.File(path).getAbsoluteFile();
        java.io.File tmp = new java.io.File(target.getPath() + ".tmp");
        RawOut w = new RawOut(new FileOutputStream(tmp));
        try {
            w.text("major-cct 3\nmetrics calls" + (times ? " wall_ns" : "") + (cpu ? " cpu_ns" : "") + "\nframes ");
            w.number(frames.size());
            w.newline();
            for (String f : frames) {
                w.text(f);
                w.newline();
            }
            w.text("threads ");
            w.number(roots.length);
            w.newline();
            for (int t = 0; t < roots.length; t++) {
                CallingContext[] nodes = trees[t];
                int[] ids = frameOf[t];
                w.text("nodes ");
                w.number(sizes[t] - 1);
                w.newline();
                for (int i = 1; i < sizes[t]; i++) {
                    CallingContext c = nodes[i];
                    w.number(c.parent.id);
                    w.tab();
                    w.number(ids[i]);
                    w.tab();
                    w.number(c.calls());
                    if (times) {
                        w.tab();
                        w.number(c.wall);
                    }
                    if (cpu) {
                        w.tab();
                        w.number(c.cpu);
                    }
                    w.newline();
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

    /**
     * The profile's bytes, buffered by hand: numbers in decimal without a
     * string per number, text in UTF-8, one write per 64 KB.
     */
    private static final class RawOut {
        private final FileOutputStream out;
        private final byte[] buf = new byte[1 << 16];
        private final byte[] digits = new byte[20];
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

        void number(long v) throws IOException {
            if (len + 21 > buf.length) {
                flush();
            }
            if (v < 0) {
                buf[len++] = '-';
                v = -v;
            }
            int d = 0;
            do {
                digits[d++] = (byte) ('0' + (int) (v % 10));
                v /= 10;
            } while (v != 0);
            while (d > 0) {
                buf[len++] = digits[--d];
            }
        }

        void tab() throws IOException {
            if (len == buf.length) {
                flush();
            }
            buf[len++] = '\t';
        }

        void newline() throws IOException {
            if (len == buf.length) {
                flush();
            }
            buf[len++] = '\n';
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
