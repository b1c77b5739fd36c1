package major.runtime;

import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.Signature;
import org.aspectj.lang.reflect.SourceLocation;

/** The static part of a join point: kind, signature, source location, id. */
class StaticPartImpl implements JoinPoint.StaticPart {
    private final int id;
    private final String kind;
    private final Signature signature;
    private final SourceLocation location;

    private volatile String shortString;
    private volatile String middleString;
    private volatile String longString;
    private volatile Enclosing enclosing;

    StaticPartImpl(int id, String kind, Signature signature, SourceLocation location) {
        this.id = id;
        this.kind = kind;
        this.signature = signature;
        this.location = location;
    }

    /** The constant of {@link JoinPoint} equal to {@code kind}, so that {@code ==} works on kinds. */
    static String canonicalKind(String kind) {
        switch (kind) {
            case JoinPoint.METHOD_EXECUTION: return JoinPoint.METHOD_EXECUTION;
            case JoinPoint.METHOD_CALL: return JoinPoint.METHOD_CALL;
            case JoinPoint.CONSTRUCTOR_EXECUTION: return JoinPoint.CONSTRUCTOR_EXECUTION;
            case JoinPoint.CONSTRUCTOR_CALL: return JoinPoint.CONSTRUCTOR_CALL;
            case JoinPoint.FIELD_GET: return JoinPoint.FIELD_GET;
            case JoinPoint.FIELD_SET: return JoinPoint.FIELD_SET;
            case JoinPoint.STATICINITIALIZATION: return JoinPoint.STATICINITIALIZATION;
            case JoinPoint.PREINITIALIZATION: return JoinPoint.PREINITIALIZATION;
            case JoinPoint.INITIALIZATION: return JoinPoint.INITIALIZATION;
            case JoinPoint.EXCEPTION_HANDLER: return JoinPoint.EXCEPTION_HANDLER;
            case JoinPoint.SYNCHRONIZATION_LOCK: return JoinPoint.SYNCHRONIZATION_LOCK;
            case JoinPoint.SYNCHRONIZATION_UNLOCK: return JoinPoint.SYNCHRONIZATION_UNLOCK;
            case JoinPoint.ADVICE_EXECUTION: return JoinPoint.ADVICE_EXECUTION;
            default: return kind;
        }
    }

    /** The word that starts the string forms: {@code call}, {@code execution}, {@code get}, ... */
    private String word() {
        switch (kind) {
            case JoinPoint.METHOD_EXECUTION:
            case JoinPoint.CONSTRUCTOR_EXECUTION:
                return "execution";
            case JoinPoint.METHOD_CALL:
            case JoinPoint.CONSTRUCTOR_CALL:
                return "call";
            case JoinPoint.FIELD_GET:
                return "get";
            case JoinPoint.FIELD_SET:
                return "set";
            case JoinPoint.EXCEPTION_HANDLER:
                return "handler";
            default:
                return kind;
        }
    }

    /** Whether this is the execution of a body, where {@code this} is the target. */
    final boolean isExecution() {
        return kind == JoinPoint.METHOD_EXECUTION || kind == JoinPoint.CONSTRUCTOR_EXECUTION
                || kind == JoinPoint.ADVICE_EXECUTION;
    }

    @Override
    public final Signature getSignature() {
        return signature;
    }

    @Override
    public final SourceLocation getSourceLocation() {
        return location;
    }

    @Override
    public final String getKind() {
        return kind;
    }

    @Override
    public final int getId() {
        return id;
    }

    @Override
    public final String toString() {
        String s = middleString;
        if (s == null) {
            s = word() + "(" + signature.toString() + ")";
            middleString = s;
        }
        return s;
    }

    @Override
    public final String toShortString() {
        String s = shortString;
        if (s == null) {
            s = word() + "(" + signature.toShortString() + ")";
            shortString = s;
        }
        return s;
    }

    @Override
    public final String toLongString() {
        String s = longString;
        if (s == null) {
            s = word() + "(" + signature.toLongString() + ")";
            longString = s;
        }
        return s;
    }

    /** This static part as an enclosing static part (itself, or the same view every time). */
    final JoinPoint.EnclosingStaticPart asEnclosing() {
        if (this instanceof Enclosing) {
            return (Enclosing) this;
        }
        Enclosing e = enclosing;
        if (e == null) {
            synchronized (this) {
                e = enclosing;
                if (e == null) {
                    e = new Enclosing(id, kind, signature, location);
                    enclosing = e;
                }
            }
        }
        return e;
    }

    /** An enclosing static part. */
    static final class Enclosing extends StaticPartImpl implements JoinPoint.EnclosingStaticPart {
        Enclosing(int id, String kind, Signature signature, SourceLocation location) {
            super(id, kind, signature, location);
        }
    }
}
