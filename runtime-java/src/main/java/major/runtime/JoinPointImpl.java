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
 *
 * <p>AspectJ makes one join point object per join point, shared by all the advice
 * there: advice that runs inside an around advice's {@code proceed} sees the
 * arguments the join point started with, whatever the around advice proceeded
 * with. While a join point proceeds, it is the current one of its thread
 * ({@link #current}); a join point asked for inside (same static part, and the
 * values it proceeded with) is that join point again.
 */
final class JoinPointImpl implements ProceedingJoinPoint {
    private static final Object[] NO_ARGS = new Object[0];

    /** The join point proceeding on this thread, with the state it proceeded with. */
    private static final ThreadLocal<Proceeding> PROCEEDING = new ThreadLocal<Proceeding>();

    private static final class Proceeding {
        final JoinPointImpl joinPoint;
        final Object[] state;

        Proceeding(JoinPointImpl joinPoint, Object[] state) {
            this.joinPoint = joinPoint;
            this.state = state;
        }
    }

    private final JoinPoint.StaticPart staticPart;
    private final Object thisObject;
    private final Object target;
    private final Object[] args;
    private final AroundClosure closure;
    /** The state to proceed with first: this, target, arguments. */
    private final Object[] initial;
    /** What proceed(Object[]) last set: later proceed() calls reuse it, as in AspectJ. */
    private Object[] state;

    JoinPointImpl(JoinPoint.StaticPart staticPart, Object thisObject, Object target, Object[] args,
            AroundClosure closure) {
        this(staticPart, thisObject, target, args, closure, null);
    }

    /**
     * A join point that shows {@code shown}'s this, target and arguments (the join
     * point it belongs to) and proceeds from its own values.
     */
    private JoinPointImpl(JoinPoint.StaticPart staticPart, Object thisObject, Object target, Object[] args,
            AroundClosure closure, JoinPointImpl shown) {
        Object[] a = args == null ? NO_ARGS : args;
        this.staticPart = staticPart;
        this.closure = closure;
        this.initial = new Object[2 + a.length];
        initial[0] = thisObject;
        initial[1] = target;
        System.arraycopy(a, 0, initial, 2, a.length);
        if (shown == null) {
            this.thisObject = thisObject;
            this.target = target;
            this.args = a;
        } else {
            this.thisObject = shown.thisObject;
            this.target = shown.target;
            this.args = shown.args;
        }
    }

    /**
     * The join point for these values: the one proceeding on this thread if it is
     * the same join point (same static part, proceeding with these very values),
     * else a new one.
     */
    static JoinPointImpl make(JoinPoint.StaticPart staticPart, Object thisObject, Object target, Object[] args,
            AroundClosure closure) {
        JoinPointImpl current = current(staticPart, thisObject, target, args);
        if (current == null) {
            return new JoinPointImpl(staticPart, thisObject, target, args, closure, null);
        }
        if (closure == null) {
            return current;
        }
        return new JoinPointImpl(staticPart, thisObject, target, args, closure, current);
    }

    /**
     * A join point that shows {@code shown}'s this, target and arguments when it is
     * one of ours (else its own) and proceeds from these values.
     */
    static JoinPointImpl showing(JoinPoint.StaticPart staticPart, Object thisObject, Object target,
            Object[] args, AroundClosure closure, JoinPoint shown) {
        JoinPointImpl s = shown instanceof JoinPointImpl ? (JoinPointImpl) shown : null;
        return new JoinPointImpl(staticPart, thisObject, target, args, closure, s);
    }

    /** The join point proceeding on this thread with exactly these values, or null. */
    static JoinPointImpl current(JoinPoint.StaticPart staticPart, Object thisObject, Object target,
            Object[] args) {
        Proceeding p = PROCEEDING.get();
        if (p == null || p.joinPoint.staticPart != staticPart) {
            return null;
        }
        Object[] s = p.state;
        Object[] a = args == null ? NO_ARGS : args;
        if (s.length != 2 + a.length || s[0] != thisObject || s[1] != target) {
            return null;
        }
        for (int i = 0; i < a.length; i++) {
            if (!sameValue(s[2 + i], a[i])) {
                return null;
            }
        }
        return p.joinPoint;
    }

    /** The same object, or boxes of the same primitive value. */
    private static boolean sameValue(Object a, Object b) {
        if (a == b) {
            return true;
        }
        if (a == null || b == null || a.getClass() != b.getClass()) {
            return false;
        }
        Class<?> c = a.getClass();
        boolean box = c == Integer.class || c == Long.class || c == Short.class || c == Byte.class
                || c == Character.class || c == Boolean.class || c == Float.class || c == Double.class;
        return box && a.equals(b);
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
        return s != null ? s.clone() : initial.clone();
    }

    /** Runs the closure with {@code s}, this join point being the current one meanwhile. */
    private Object run(Object[] s) throws Throwable {
        Proceeding saved = PROCEEDING.get();
        PROCEEDING.set(new Proceeding(this, s));
        try {
            return closure.run(s.clone());
        } finally {
            if (saved == null) {
                PROCEEDING.remove();
            } else {
                PROCEEDING.set(saved);
            }
        }
    }

    @Override
    public Object proceed() throws Throwable {
        if (closure == null) {
            return null;
        }
        return run(copyState());
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
        return run(next.clone());
    }
}
