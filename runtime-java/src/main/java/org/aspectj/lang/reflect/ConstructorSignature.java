package org.aspectj.lang.reflect;

import java.lang.reflect.Constructor;

/** The signature of a constructor (constructor calls and executions, (pre)initialization). */
public interface ConstructorSignature extends CodeSignature {
    /** The constructor, or {@code null} if it cannot be found. */
    @SuppressWarnings("rawtypes")
    Constructor getConstructor();
}
