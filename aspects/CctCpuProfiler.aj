package profiler;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import major.runtime.CallingContext;

/**
 * CctProfiler with wall and CPU time: besides each calling context's entries,
 * the wall time and the thread's CPU time spent in it (inclusive,
 * nanoseconds), measured around every woven execution. CPU time is read with
 * ThreadMXBean.getCurrentThreadCpuTime() (a system call per read, several
 * times a clock read: ARCHITECTURE.md, "Calling context"), from the start of
 * main on (not at all where the module java.management is missing); before
 * it (the JDK's startup) only wall time is measured. Native
 * methods and other calls without woven bodies count in their caller's times.
 */
public aspect CctCpuProfiler {
    private static ThreadMXBean cpuClock;

    pointcut frames(): (execution(* *(..)) || execution(new(..)) || staticinitialization(*))
        && !within(CctCpuProfiler);

    // Declared first: it runs before the timing advice at main's entry, so
    // main's own CPU time is measured. With the JDK woven the aspect lives
    // in java.base, which does not read java.management: the read edge is
    // added first (an unnamed module reads every module already).
    before(): execution(public static void main(String[])) {
        java.util.Optional<Module> management = ModuleLayer.boot().findModule("java.management");
        if (management.isPresent()) {
            CctCpuProfiler.class.getModule().addReads(management.get());
            ThreadMXBean b = ManagementFactory.getThreadMXBean();
            if (b.isCurrentThreadCpuTimeSupported()) {
                cpuClock = b;
            }
        }
        CallingContext.writeAtExit(thisCallingContext, true, true);
    }

    before(): frames() {
        CallingContext c = thisCallingContext;
        c.mark = System.nanoTime();
        ThreadMXBean b = cpuClock;
        if (b != null) {
            c.cpuMark = b.getCurrentThreadCpuTime();
        }
    }

    after(): frames() {
        CallingContext c = thisCallingContext;
        c.wall += System.nanoTime() - c.mark;
        ThreadMXBean b = cpuClock;
        if (b != null && c.cpuMark != 0) {
            c.cpu += b.getCurrentThreadCpuTime() - c.cpuMark;
        }
    }
}
