package org.aspectj.lang.reflect;

/** The signature of a member with code: method, constructor, initializer or advice. */
public interface CodeSignature extends MemberSignature {
    /** The parameter types, loaded on demand. */
    @SuppressWarnings("rawtypes")
    Class[] getParameterTypes();

    /** The parameter names ({@code arg0}, {@code arg1}, ... when unknown). */
    String[] getParameterNames();

    /** The types of the declared exceptions ({@code throws}), loaded on demand. */
    @SuppressWarnings("rawtypes")
    Class[] getExceptionTypes();
}
