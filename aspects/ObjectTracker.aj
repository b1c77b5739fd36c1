package major.aspects;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;

/**
 * Records every object allocation, in the application and in the Java class
 * library, as a weak reference; a shutdown hook prints how many allocated objects
 * are still alive. After the ObjectTracker aspect of the MAJOR paper.
 */
public aspect ObjectTracker {
    private static final Set<WeakReference<Object>> refs =
        Collections.synchronizedSet(new HashSet<WeakReference<Object>>());
    private static final ReferenceQueue<Object> queue = new ReferenceQueue<Object>();
    private static long allocations;

    // An anonymous class, not a lambda (aspects/README.md, "Start-up").
    static {
        Runtime.getRuntime().addShutdownHook(new Thread() {
            public void run() {
                expunge();
                System.err.println("ObjectTracker: " + allocations + " allocations, "
                    + refs.size() + " still reachable");
            }
        });
    }

    /** Drops references whose objects were collected. */
    private static void expunge() {
        for (Object r; (r = queue.poll()) != null; ) {
            refs.remove(r);
        }
    }

    pointcut allAllocs(): call(*.new(..)) && !within(ObjectTracker);

    after() returning(Object o): allAllocs() {
        allocations++;
        refs.add(new WeakReference<Object>(o, queue));
        if ((allocations & 0xFFFF) == 0) { // every 65536 allocations
            expunge();
        }
    }
}
