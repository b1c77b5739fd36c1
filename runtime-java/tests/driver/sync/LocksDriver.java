package sync;

import dump.Dump;
import major.runtime.Factory;
import org.aspectj.lang.JoinPoint;

/** The lock and unlock join points of Locks.java, built through major.runtime.Factory. */
public final class LocksDriver {
    private LocksDriver() {
    }

    public static void main(String[] args) {
        Factory f = new Factory("Locks.java", Locks.class);
        JoinPoint.StaticPart main = f.makeESJP(JoinPoint.METHOD_EXECUTION,
                f.makeMethodSig(9, "main", "sync.Locks", "([Ljava/lang/String;)V", "args", ""), 6);
        JoinPoint.StaticPart lock = f.makeSJP(JoinPoint.SYNCHRONIZATION_LOCK, f.makeLockSig(), 7);
        JoinPoint.StaticPart unlock = f.makeSJP(JoinPoint.SYNCHRONIZATION_UNLOCK, f.makeUnlockSig(), 7);
        Object[] monitor = {Locks.LOCK};
        Dump.jp(Factory.makeJP(lock, null, null, monitor), lock, main);
        Dump.jp(Factory.makeJP(unlock, null, null, monitor), unlock, main);
    }
}
