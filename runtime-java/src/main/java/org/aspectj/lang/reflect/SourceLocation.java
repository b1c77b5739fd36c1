package org.aspectj.lang.reflect;

/** Where a join point's shadow is in the source: {@code File.java:12}. */
public interface SourceLocation {
    /** The class whose code contains the shadow. */
    @SuppressWarnings("rawtypes")
    Class getWithinType();

    /** The source file's name, without directories ({@code Foo.java}). */
    String getFileName();

    /** The line number, or 0 if unknown (a static initializer without one). */
    int getLine();

    /**
     * Always -1: columns are not known.
     *
     * @deprecated columns are not recorded; kept for compatibility with AspectJ
     */
    @Deprecated
    int getColumn();
}
