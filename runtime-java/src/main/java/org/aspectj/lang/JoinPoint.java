package org.aspectj.lang;

import org.aspectj.lang.reflect.SourceLocation;

/**
 * A join point: a point in the execution of a program where advice runs, with its
 * dynamic context ({@code this}, target, arguments) and its static part.
 *
 * <p>Available in advice as {@code thisJoinPoint}. The string forms follow AspectJ:
 * {@link #toShortString()} gives {@code call(Foo.bar(..))}, {@link #toString()}
 * {@code call(void p.Foo.bar(int))} and {@link #toLongString()} adds modifiers and
 * fully qualified types, {@code call(public void p.Foo.bar(int))}.
 */
public interface JoinPoint {
    /** Kind of the execution of a method body. */
    String METHOD_EXECUTION = "method-execution";
    /** Kind of a method call. */
    String METHOD_CALL = "method-call";
    /** Kind of the execution of a constructor body. */
    String CONSTRUCTOR_EXECUTION = "constructor-execution";
    /** Kind of a constructor call ({@code new}). */
    String CONSTRUCTOR_CALL = "constructor-call";
    /** Kind of a field read. */
    String FIELD_GET = "field-get";
    /** Kind of a field write. */
    String FIELD_SET = "field-set";
    /** Kind of a static initializer's execution. */
    String STATICINITIALIZATION = "staticinitialization";
    /** Kind of the part of a constructor before its super or this call. */
    String PREINITIALIZATION = "preinitialization";
    /** Kind of an object's initialization, after the super constructor returned. */
    String INITIALIZATION = "initialization";
    /** Kind of the start of an exception handler. */
    String EXCEPTION_HANDLER = "exception-handler";
    /** Kind of the acquisition of a monitor ({@code monitorenter}). */
    String SYNCHRONIZATION_LOCK = "lock";
    /** Kind of the release of a monitor ({@code monitorexit}). */
    String SYNCHRONIZATION_UNLOCK = "unlock";
    /** Kind of the execution of an advice body. */
    String ADVICE_EXECUTION = "adviceexecution";

    /** The middle-length form, for example {@code call(void p.Foo.bar(int))}. */
    String toString();

    /** The short form, for example {@code call(Foo.bar(..))}. */
    String toShortString();

    /** The long form, with modifiers and fully qualified types. */
    String toLongString();

    /** The currently executing object, or {@code null} in a static context. */
    Object getThis();

    /** The target object (of a call, field access or execution), or {@code null}. */
    Object getTarget();

    /** The arguments at this join point, as a new array on every call. */
    Object[] getArgs();

    /** The signature of the join point's member. */
    Signature getSignature();

    /** Where in the source the join point's shadow is. */
    SourceLocation getSourceLocation();

    /** The kind, one of the constants of this interface. */
    String getKind();

    /** The static part of this join point (what {@code thisJoinPointStaticPart} gives). */
    StaticPart getStaticPart();

    /**
     * What is known about a join point without running it: kind, signature and
     * source location. Available in advice as {@code thisJoinPointStaticPart}.
     */
    interface StaticPart {
        /** The signature of the join point's member. */
        Signature getSignature();

        /** Where in the source the join point's shadow is. */
        SourceLocation getSourceLocation();

        /** The kind, one of the constants of {@link JoinPoint}. */
        String getKind();

        /** A number unique among the static parts created for one woven class. */
        int getId();

        /** The middle-length form, for example {@code call(void p.Foo.bar(int))}. */
        String toString();

        /** The short form, for example {@code call(Foo.bar(..))}. */
        String toShortString();

        /** The long form, with modifiers and fully qualified types. */
        String toLongString();
    }

    /**
     * The static part of the join point that encloses another one, such as the
     * execution of the method containing a call. Available in advice as
     * {@code thisEnclosingJoinPointStaticPart}.
     */
    interface EnclosingStaticPart extends StaticPart {
    }
}
