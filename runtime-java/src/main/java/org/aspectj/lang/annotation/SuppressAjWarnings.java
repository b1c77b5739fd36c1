package org.aspectj.lang.annotation;

import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

/** Suppresses the weaver's lint warnings (such as {@code adviceDidNotMatch}) on the annotated element. */
@Retention(RetentionPolicy.RUNTIME)
public @interface SuppressAjWarnings {
    /** The names of the warnings ({@code ""}: all of them). */
    String[] value() default {""};
}
