package org.aspectj.lang;

import java.lang.reflect.Method;

/**
 * Reflective access to aspect instances through the {@code aspectOf} and
 * {@code hasAspect} methods every aspect class has.
 */
public class Aspects {
    private static final Class<?>[] NONE = new Class<?>[0];
    private static final Class<?>[] PER_OBJECT = new Class<?>[] {Object.class};
    private static final Class<?>[] PER_TYPE = new Class<?>[] {Class.class};

    /** Not used: everything here is static. */
    public Aspects() {
    }

    /**
     * The instance of a singleton aspect.
     *
     * @param <T> the aspect's type
     * @param aspectClass the aspect
     * @return its instance
     * @throws NoAspectBoundException if the aspect has no instance or is not an aspect
     */
    public static <T> T aspectOf(Class<T> aspectClass) throws NoAspectBoundException {
        return aspectClass.cast(invoke(aspectClass, "aspectOf", NONE, new Object[0]));
    }

    /**
     * The instance of a per-object aspect for {@code perObject}.
     *
     * @param <T> the aspect's type
     * @param aspectClass the aspect
     * @param perObject the object the instance is associated with
     * @return the instance
     * @throws NoAspectBoundException if there is no such instance
     */
    public static <T> T aspectOf(Class<T> aspectClass, Object perObject) throws NoAspectBoundException {
        return aspectClass.cast(invoke(aspectClass, "aspectOf", PER_OBJECT, new Object[] {perObject}));
    }

    /**
     * The instance of a per-type-within aspect for {@code perTypeWithin}.
     *
     * @param <T> the aspect's type
     * @param aspectClass the aspect
     * @param perTypeWithin the type the instance is associated with
     * @return the instance
     * @throws NoAspectBoundException if there is no such instance
     */
    public static <T> T aspectOf(Class<T> aspectClass, Class<?> perTypeWithin) throws NoAspectBoundException {
        return aspectClass.cast(invoke(aspectClass, "aspectOf", PER_TYPE, new Object[] {perTypeWithin}));
    }

    /**
     * Whether a singleton aspect has its instance; {@code false} for a class that is
     * not an aspect.
     *
     * @param aspectClass the aspect
     * @return whether {@code aspectOf} would succeed
     * @throws NoAspectBoundException never in practice; declared as in AspectJ
     */
    public static boolean hasAspect(Class<?> aspectClass) throws NoAspectBoundException {
        return test(aspectClass, NONE, new Object[0]);
    }

    /**
     * Whether a per-object aspect has an instance for {@code perObject}.
     *
     * @param aspectClass the aspect
     * @param perObject the object
     * @return whether {@code aspectOf} would succeed
     * @throws NoAspectBoundException never in practice; declared as in AspectJ
     */
    public static boolean hasAspect(Class<?> aspectClass, Object perObject) throws NoAspectBoundException {
        return test(aspectClass, PER_OBJECT, new Object[] {perObject});
    }

    /**
     * Whether a per-type-within aspect has an instance for {@code perTypeWithin}.
     *
     * @param aspectClass the aspect
     * @param perTypeWithin the type
     * @return whether {@code aspectOf} would succeed
     * @throws NoAspectBoundException never in practice; declared as in AspectJ
     */
    public static boolean hasAspect(Class<?> aspectClass, Class<?> perTypeWithin) throws NoAspectBoundException {
        return test(aspectClass, PER_TYPE, new Object[] {perTypeWithin});
    }

    private static Method find(Class<?> aspectClass, String name, Class<?>[] params) throws NoSuchMethodException {
        Method m = aspectClass.getDeclaredMethod(name, params);
        try {
            m.setAccessible(true);
        } catch (RuntimeException e) {
            // Not accessible from here (a module boundary): invoke tells.
        }
        return m;
    }

    private static Object invoke(Class<?> aspectClass, String name, Class<?>[] params, Object[] args) {
        try {
            return find(aspectClass, name, params).invoke(null, args);
        } catch (Exception e) {
            throw new NoAspectBoundException(aspectClass.getName(), e);
        }
    }

    private static boolean test(Class<?> aspectClass, Class<?>[] params, Object[] args) {
        try {
            return ((Boolean) find(aspectClass, "hasAspect", params).invoke(null, args)).booleanValue();
        } catch (Exception e) {
            return false;
        }
    }
}
