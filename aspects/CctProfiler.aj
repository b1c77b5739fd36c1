package profiler;

import major.runtime.CallingContext;

/**
 * Complete calling-context profiling (CCCP): the number of times each calling
 * context is entered, over every woven method — the whole JDK with
 * `major weave --jdk` — with native methods, java.lang.Object's methods and
 * intrinsic candidates as the leaves their calls enter.
 *
 * The weaver keeps the calling-context tree itself in every woven body as soon
 * as an advice uses `thisCallingContext` (major's extension), counting each
 * entry; this aspect only asks for the profile to be written at exit, when the
 * program's main starts. System properties: `major.cct.out` (default
 * `profile.cct`), `major.cct.times`.
 */
public aspect CctProfiler {
    before(): execution(public static void main(String[])) {
        CallingContext.writeAtExit(thisCallingContext);
    }
}
