package org.aspectj.lang.reflect;

import org.aspectj.lang.Signature;

/** The signature of a catch clause (exception handler join points). */
public interface CatchClauseSignature extends Signature {
    /** The type of exception caught, loaded on demand. */
    @SuppressWarnings("rawtypes")
    Class getParameterType();

    /** The name of the catch clause's parameter. */
    String getParameterName();
}
