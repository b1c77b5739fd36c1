package major.runtime;

import org.aspectj.lang.reflect.LockSignature;
import org.aspectj.lang.reflect.UnlockSignature;

/**
 * The signature of a monitor acquisition or release: {@code lock(Object)}. As in
 * AspectJ, the name and declaring type are {@code java.lang.Object}; the modifiers
 * are 0 (AspectJ 1.9.5 throws a NumberFormatException from {@code getModifiers()}).
 */
abstract class MonitorSignatureImpl extends SignatureImpl {
    private final String word;

    MonitorSignatureImpl(String word) {
        super(0, "java.lang.Object", "java.lang.Object", null);
        this.word = word;
    }

    @Override
    void render(StringBuilder b, int form) {
        b.append(word).append(form == LONG ? "(java.lang.Object)" : "(Object)");
    }

    /** A lock signature. */
    static final class Lock extends MonitorSignatureImpl implements LockSignature {
        Lock() {
            super("lock");
        }
    }

    /** An unlock signature. */
    static final class Unlock extends MonitorSignatureImpl implements UnlockSignature {
        Unlock() {
            super("unlock");
        }
    }
}
