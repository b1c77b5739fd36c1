package sync;

import dump.Dump;

/** Dumps the lock and unlock join points of Locks (ajc -Xjoinpoints:synchronization only). */
public aspect Trace {
    before(): (lock() || unlock()) && within(Locks) {
        Dump.jp(thisJoinPoint, thisJoinPointStaticPart, thisEnclosingJoinPointStaticPart);
    }
}
