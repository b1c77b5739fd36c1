package org.aspectj.lang;

/**
 * An unchecked wrapper around a checked exception (what {@code declare soft} throws).
 */
public class SoftException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The wrapped exception. */
    Throwable inner;

    /**
     * Wraps {@code inner}.
     *
     * @param inner the wrapped exception
     */
    public SoftException(Throwable inner) {
        super();
        this.inner = inner;
    }

    /** The wrapped exception. */
    public Throwable getWrappedThrowable() {
        return inner;
    }

    /** The wrapped exception. */
    @Override
    public Throwable getCause() {
        return inner;
    }
}
