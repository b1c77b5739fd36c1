package major.runtime;

/**
 * The rest of a join point, as around advice sees it: the next around advice, or
 * the original code.
 *
 * <p>A closure given to {@link Factory#makePJP} is run by the join point's
 * {@code proceed} with the join point's state in one layout for every kind of join
 * point: {@code {this, target, arg0, ..., argN-1}} (this and target are
 * {@code null} where there are none, primitives are boxed). It returns the join
 * point's result boxed, {@code null} for {@code void}. (Code-style around advice
 * calls its closure itself, with the layout the weaver and the aspect compiler
 * agree on: the advice's formals.)
 *
 * <p>The flags say what the advice's pointcut binds, which decides how
 * {@link org.aspectj.lang.ProceedingJoinPoint#proceed(Object[])} reads its array.
 */
public abstract class AroundClosure {
    /** The advice's pointcut binds {@code this(..)}: the array passed to proceed starts with it. */
    public static final int BIND_THIS = 1;
    /** The advice's pointcut binds {@code target(..)}: the array has it after {@code this}. */
    public static final int BIND_TARGET = 2;

    private final int flags;

    /** A closure whose advice binds neither {@code this} nor target. */
    protected AroundClosure() {
        this(0);
    }

    /**
     * A closure with flags.
     *
     * @param flags {@link #BIND_THIS} and/or {@link #BIND_TARGET}
     */
    protected AroundClosure(int flags) {
        this.flags = flags;
    }

    /** The flags: {@link #BIND_THIS} and/or {@link #BIND_TARGET}. */
    public final int getFlags() {
        return flags;
    }

    /**
     * Runs the rest of the join point.
     *
     * @param state the state, {@code {this, target, arg0, ..., argN-1}} when called by a
     *     {@link org.aspectj.lang.ProceedingJoinPoint}
     * @return the result, boxed; {@code null} for {@code void}
     * @throws Throwable whatever the join point throws
     */
    public abstract Object run(Object[] state) throws Throwable;
}
