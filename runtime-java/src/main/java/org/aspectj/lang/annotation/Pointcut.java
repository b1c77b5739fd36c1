package org.aspectj.lang.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Declares a named pointcut: the method's name and parameters are the pointcut's. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Pointcut {
    /** The pointcut expression ({@code ""} for an abstract pointcut). */
    String value() default "";

    /**
     * The names of the advice method's parameters, comma-separated, for class files
     * compiled without parameter names ({@code ""}: take them from the class file).
     */
    String argNames() default "";
}
