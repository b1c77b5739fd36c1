package org.aspectj.lang;

/**
 * Thrown by {@code aspectOf()} when there is no aspect instance to return, for
 * example because the aspect's initialization failed.
 */
public class NoAspectBoundException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What went wrong while creating the aspect, or {@code null}. */
    Throwable cause;

    /**
     * An exception for aspect {@code aspectName}.
     *
     * @param aspectName the aspect's name
     * @param inner why the aspect is not bound, or {@code null}
     */
    public NoAspectBoundException(String aspectName, Throwable inner) {
        super(inner == null ? aspectName : "Exception while initializing " + aspectName + ": " + inner);
        this.cause = inner;
    }

    /** An exception without a message. */
    public NoAspectBoundException() {
    }

    /** Why the aspect is not bound, or {@code null}. */
    @Override
    public Throwable getCause() {
        return cause;
    }
}
