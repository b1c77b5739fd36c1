package jdk.internal.vm.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A compile-time stand-in for the JDK's own {@code ForceInline} (JDK 9 and
 * later, not exported), so that the runtime, compiled with {@code --release 8},
 * can carry it: HotSpot reads the annotation by name, and honours it in
 * classes the boot loader defines — the runtime's, with the JDK woven. Never
 * compiled into the runtime ({@code weaver/build.rs} passes this directory as
 * the source path, with {@code -implicit:none}).
 */
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR})
@Retention(RetentionPolicy.RUNTIME)
public @interface ForceInline {
}
