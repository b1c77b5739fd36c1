package org.aspectj.lang;

/**
 * The signature of the member at a join point: a method, constructor, field,
 * initializer, catch clause, advice or monitor.
 */
public interface Signature {
    /** The middle-length form, for example {@code void p.Foo.bar(int)}. */
    String toString();

    /** The short form, for example {@code Foo.bar(..)}. */
    String toShortString();

    /** The long form, with modifiers and fully qualified types. */
    String toLongString();

    /** The member's name: {@code <init>} for constructors, {@code <clinit>} for static initializers. */
    String getName();

    /** The member's modifiers, as decoded by {@link java.lang.reflect.Modifier}. */
    int getModifiers();

    /** The class declaring the member (loaded on demand). */
    @SuppressWarnings("rawtypes")
    Class getDeclaringType();

    /** The binary name of the class declaring the member ({@code a.b.Outer$Inner}). */
    String getDeclaringTypeName();
}
