package profiler;

import major.runtime.CallingContext;

/**
 * CctProfiler with time: besides each calling context's entries, the wall
 * time spent in it (inclusive, nanoseconds), measured around every woven
 * execution. Native methods and other calls without woven bodies count in
 * their caller's time. Costs two advice calls and two clock reads per
 * execution on top of the tree.
 */
public aspect CctTimeProfiler {
    pointcut frames(): (execution(* *(..)) || execution(new(..)) || staticinitialization(*))
        && !within(CctTimeProfiler);

    before(): frames() {
        thisCallingContext.mark = System.nanoTime();
    }

    after(): frames() {
        CallingContext c = thisCallingContext;
        c.wall += System.nanoTime() - c.mark;
    }

    before(): execution(public static void main(String[])) {
        CallingContext.writeAtExit(thisCallingContext, true);
    }
}
