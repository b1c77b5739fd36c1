package org.aspectj.lang.reflect;

import java.lang.reflect.Method;

/** The signature of a method. */
public interface MethodSignature extends CodeSignature {
    /** The return type, loaded on demand. */
    @SuppressWarnings("rawtypes")
    Class getReturnType();

    /**
     * The method, looked up in the declaring type, its superclasses and then its
     * interfaces; {@code null} if it cannot be found.
     */
    Method getMethod();
}
