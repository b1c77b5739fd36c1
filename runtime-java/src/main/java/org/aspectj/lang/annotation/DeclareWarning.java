package org.aspectj.lang.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** On a {@code static final String} field holding the message: declares a compile-time warning where the pointcut matches. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface DeclareWarning {
    /** The pointcut expression (statically determinable). */
    String value();
}
