package org.aspectj.lang.reflect;

import java.lang.reflect.Constructor;

/** The signature of a static initializer (staticinitialization join points). */
public interface InitializerSignature extends CodeSignature {
    /**
     * As in AspectJ, the declaring type's constructor without parameters, or
     * {@code null} if it has none.
     */
    @SuppressWarnings("rawtypes")
    Constructor getInitializer();
}
