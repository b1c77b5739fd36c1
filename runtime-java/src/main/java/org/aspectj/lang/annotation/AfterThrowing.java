package org.aspectj.lang.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Declares after throwing advice. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface AfterThrowing {
    /** The pointcut expression (use this or {@link #pointcut()}). */
    String value() default "";

    /** The pointcut expression; takes precedence over {@link #value()}. */
    String pointcut() default "";

    /** The name of the parameter bound to the thrown exception ({@code ""} for none). */
    String throwing() default "";

    /**
     * The names of the advice method's parameters, comma-separated, for class files
     * compiled without parameter names ({@code ""}: take them from the class file).
     */
    String argNames() default "";
}
