package probe;

import dump.Dump;

/** Dumps every join point of the probe program (ajc only). */
public aspect Trace {
    pointcut program(): within(probe..*) && !within(Trace) && !within(Watch);
    pointcut advice(): within(Watch) && (adviceexecution() || call(* *(..)));

    before(): program() || advice() {
        Dump.jp(thisJoinPoint, thisJoinPointStaticPart, thisEnclosingJoinPointStaticPart);
    }
}
