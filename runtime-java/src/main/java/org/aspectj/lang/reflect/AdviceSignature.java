package org.aspectj.lang.reflect;

import java.lang.reflect.Method;

/** The signature of an advice (adviceexecution join points). */
public interface AdviceSignature extends CodeSignature {
    /** The advice method's return type, loaded on demand. */
    @SuppressWarnings("rawtypes")
    Class getReturnType();

    /** The advice method, or {@code null} if it cannot be found. */
    Method getAdvice();
}
