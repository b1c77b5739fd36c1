package major.runtime;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;

/**
 * An {@link AroundClosure} that calls a method handle of type
 * {@code (Object[])Object}, typically a constant ({@code ldc}) for a static
 * "proceed" method the weaver added to the woven class.
 */
public final class MethodHandleClosure extends AroundClosure {
    private static final MethodType TYPE = MethodType.methodType(Object.class, Object[].class);

    private final MethodHandle handle;

    /**
     * A closure over {@code handle}, for advice binding neither {@code this} nor target.
     *
     * @param handle a method handle of type {@code (Object[])Object}
     */
    public MethodHandleClosure(MethodHandle handle) {
        this(handle, 0);
    }

    /**
     * A closure over {@code handle}.
     *
     * @param handle a method handle of type {@code (Object[])Object}
     * @param flags {@link #BIND_THIS} and/or {@link #BIND_TARGET}
     * @throws IllegalArgumentException if the handle has another type
     */
    public MethodHandleClosure(MethodHandle handle, int flags) {
        super(flags);
        if (!handle.type().equals(TYPE)) {
            throw new IllegalArgumentException("an around closure needs a method handle of type " + TYPE
                    + ", not " + handle.type());
        }
        this.handle = handle;
    }

    @Override
    public Object run(Object[] state) throws Throwable {
        return (Object) handle.invokeExact(state);
    }
}
