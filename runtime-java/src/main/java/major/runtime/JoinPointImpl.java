package major.runtime;

import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.Signature;
import org.aspectj.lang.reflect.SourceLocation;

/**
 * A join point: its static part plus {@code this}, target and arguments. As in
 * AspectJ, every join point is a {@link ProceedingJoinPoint}; one made without an
 * {@link AroundClosure} (for before or after advice) proceeds to nothing and
 * returns {@code null}.
 *
 * <p>{@link #proceed(Object[])} behaves as AspectJ's: the array holds the new
 * {@code this} (if the advice binds it), the new target (if bound), then the
 * arguments; a shorter array keeps the current values of the arguments it does not
 * reach, extra elements are ignored; the new values stay for later calls of
 * {@link #proceed()} (but {@link #getArgs()} does not change). For the execution of
 * a body, {@code this} and the target are one object: the target wins when both are
 * bound.
 */
final class JoinPointImpl implements ProceedingJoinPoint {
    private static final Object[] NO_ARGS = new Object[0];

    private final JoinPoint.StaticPart staticPart;
    private final Object thisObject;
    private final Object target;
    private final Object[] args;
    private final AroundClosure closure;
    /** What proceed(Object[]) last set: later proceed() calls reuse it, as in AspectJ. */
    private Object[] state;

    JoinPointImpl(JoinPoint.StaticPart staticPart, Object thisObject, Object target, Object[] args,
            AroundClosure closure) {
        this.staticPart = staticPart;
        this.thisObject = thisObject;
        this.target = target;
        this.args = args == null ? NO_ARGS : args;
        this.closure = closure;
    }

    @Override
    public String toString() {
        return staticPart.toString();
    }

    @Override
    public String toShortString() {
        return staticPart.toShortString();
    }

    @Override
    public String toLongString() {
        return staticPart.toLongString();
    }

    @Override
    public Object getThis() {
        return thisObject;
    }

    @Override
    public Object getTarget() {
        return target;
    }

    /** A copy of the arguments, new on every call (even when empty) as in AspectJ. */
    @Override
    public Object[] getArgs() {
        return args.clone();
    }

    @Override
    public Signature getSignature() {
        return staticPart.getSignature();
    }

    @Override
    public SourceLocation getSourceLocation() {
        return staticPart.getSourceLocation();
    }

    @Override
    public String getKind() {
        return staticPart.getKind();
    }

    @Override
    public JoinPoint.StaticPart getStaticPart() {
        return staticPart;
    }

    /**
     * A new copy of the state to proceed with: the last one given to
     * proceed(Object[]), else the join point's own.
     */
    private Object[] copyState() {
        Object[] s = state;
        if (s != null) {
            return s.clone();
        }
        int n = args.length;
        s = new Object[2 + n];
        s[0] = thisObject;
        s[1] = target;
        System.arraycopy(args, 0, s, 2, n);
        return s;
    }

    @Override
    public Object proceed() throws Throwable {
        if (closure == null) {
            return null;
        }
        return closure.run(copyState());
    }

    @Override
    public Object proceed(Object[] values) throws Throwable {
        if (closure == null) {
            return null;
        }
        int flags = closure.getFlags();
        boolean bindThis = (flags & AroundClosure.BIND_THIS) != 0;
        boolean bindTarget = (flags & AroundClosure.BIND_TARGET) != 0;
        Object[] next = copyState();
        int i = 0;
        if (bindThis) {
            next[0] = values[i++];
        }
        if (bindTarget) {
            next[1] = values[i++];
        }
        if (staticPart instanceof StaticPartImpl && ((StaticPartImpl) staticPart).isExecution()) {
            // One object is both: the target wins when both are bound, as in AspectJ.
            if (bindTarget) {
                next[0] = next[1];
            } else if (bindThis) {
                next[1] = next[0];
            }
        }
        int n = Math.min(values.length - i, next.length - 2);
        System.arraycopy(values, i, next, 2, n);
        state = next;
        return closure.run(next.clone());
    }
}
