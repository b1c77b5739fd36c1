package org.aspectj.lang.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Declares around advice; the method takes a {@link org.aspectj.lang.ProceedingJoinPoint}. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Around {
    /** The pointcut expression. */
    String value();

    /**
     * The names of the advice method's parameters, comma-separated, for class files
     * compiled without parameter names ({@code ""}: take them from the class file).
     */
    String argNames() default "";
}
