package org.aspectj.lang;

/**
 * The join point given to around advice, which can run the rest of the join point
 * (the next advice, or the original code) with {@link #proceed()}.
 */
public interface ProceedingJoinPoint extends JoinPoint {
    /**
     * Runs the rest of the join point with its current {@code this}, target and
     * arguments.
     *
     * @return what the join point returned, boxed; {@code null} for {@code void}
     * @throws Throwable whatever the join point throws
     */
    Object proceed() throws Throwable;

    /**
     * Runs the rest of the join point with new values. As in AspectJ, the array holds
     * first the new {@code this} if the advice's pointcut binds {@code this(..)}, then
     * the new target if it binds {@code target(..)}, then all the arguments of the
     * join point. Primitive arguments may be given as any {@link Number} (or
     * {@code null} for zero).
     *
     * @param args the new values, in the order described above
     * @return what the join point returned, boxed; {@code null} for {@code void}
     * @throws Throwable whatever the join point throws
     */
    Object proceed(Object[] args) throws Throwable;
}
