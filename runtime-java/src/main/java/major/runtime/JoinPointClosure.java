package major.runtime;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;

/**
 * The closure of the {@link org.aspectj.lang.ProceedingJoinPoint} an around advice
 * gets: it runs the rest of the join point from AspectJ's state layout
 * {@code {this, target, arg0, ..., argN-1}} by calling the proceed method the weaver
 * added to the woven class, a static method of type
 * {@code (Object[] state, Object[] formals)Object} whose state holds the shadow's
 * own values: {@code this} (if the shadow has one), the target (if it has one that
 * is not {@code this}), then the arguments. No formals are passed ({@code null}).
 */
public final class JoinPointClosure extends AroundClosure {
    /** The shadow's state starts with {@code this}. */
    public static final int HAS_THIS = 1;
    /** The shadow's state holds a target (after {@code this}, if any). */
    public static final int HAS_TARGET = 2;
    /** The shadow's state ends with the shadow's join point (see {@link #link}). */
    public static final int HAS_JOIN_POINT = 4;

    private static final MethodType TYPE = MethodType.methodType(Object.class, Object[].class, Object[].class);

    private final MethodHandle proceed;
    private final int layout;
    /** The shadow's join point, handed on to the proceed method. */
    private Object joinPoint;

    /**
     * A closure over a proceed method.
     *
     * @param proceed a method handle of type {@code (Object[], Object[])Object}
     * @param flags {@link #BIND_THIS} and/or {@link #BIND_TARGET}: what the advice's pointcut binds
     * @param layout {@link #HAS_THIS} and/or {@link #HAS_TARGET}: what the shadow's state holds
     * @throws IllegalArgumentException if the handle has another type
     */
    public JoinPointClosure(MethodHandle proceed, int flags, int layout) {
        super(flags);
        if (!proceed.type().equals(TYPE)) {
            throw new IllegalArgumentException("a join point closure needs a method handle of type " + TYPE
                    + ", not " + proceed.type());
        }
        this.proceed = proceed;
        this.layout = layout;
    }

    /** Sets the shadow's join point, which the proceed method's state ends with. */
    void link(Object shadowJoinPoint) {
        this.joinPoint = shadowJoinPoint;
    }

    @Override
    public Object run(Object[] state) throws Throwable {
        boolean hasThis = (layout & HAS_THIS) != 0;
        boolean hasTarget = (layout & HAS_TARGET) != 0;
        boolean hasJoinPoint = (layout & HAS_JOIN_POINT) != 0;
        int n = Math.max(0, state.length - 2);
        Object[] s = new Object[(hasThis ? 1 : 0) + (hasTarget ? 1 : 0) + n + (hasJoinPoint ? 1 : 0)];
        if (hasJoinPoint) {
            s[s.length - 1] = joinPoint;
        }
        int i = 0;
        if (hasThis) {
            s[i++] = state[0];
        }
        if (hasTarget) {
            s[i++] = state[1];
        }
        System.arraycopy(state, 2, s, i, n);
        return (Object) proceed.invokeExact(s, (Object[]) null);
    }
}
