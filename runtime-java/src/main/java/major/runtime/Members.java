package major.runtime;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/** Reflective look-ups behind getMethod, getConstructor, getField. Never throw. */
final class Members {
    private Members() {
    }

    /** A method declared by {@code type}, a superclass, or else a superinterface; null if none. */
    static Method findMethod(Class<?> type, String name, Class<?>[] parameters) {
        if (type == null) {
            return null;
        }
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            Method m = declaredMethod(c, name, parameters);
            if (m != null) {
                return m;
            }
        }
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            Method m = interfaceMethod(c, name, parameters);
            if (m != null) {
                return m;
            }
        }
        return null;
    }

    private static Method interfaceMethod(Class<?> type, String name, Class<?>[] parameters) {
        Class<?>[] interfaces;
        try {
            interfaces = type.getInterfaces();
        } catch (RuntimeException e) {
            return null;
        }
        for (Class<?> i : interfaces) {
            Method m = declaredMethod(i, name, parameters);
            if (m == null) {
                m = interfaceMethod(i, name, parameters);
            }
            if (m != null) {
                return m;
            }
        }
        return null;
    }

    private static Method declaredMethod(Class<?> type, String name, Class<?>[] parameters) {
        try {
            return type.getDeclaredMethod(name, parameters);
        } catch (NoSuchMethodException e) {
            return null;
        } catch (RuntimeException e) {
            return null;
        } catch (LinkageError e) {
            return null;
        }
    }

    /** A constructor declared by {@code type}; null if none. */
    static Constructor<?> findConstructor(Class<?> type, Class<?>[] parameters) {
        if (type == null) {
            return null;
        }
        try {
            return type.getDeclaredConstructor(parameters);
        } catch (NoSuchMethodException e) {
            return null;
        } catch (RuntimeException e) {
            return null;
        } catch (LinkageError e) {
            return null;
        }
    }

    /** A field declared by {@code type}, a superclass or a superinterface; null if none. */
    static Field findField(Class<?> type, String name) {
        if (type == null) {
            return null;
        }
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                return c.getDeclaredField(name);
            } catch (NoSuchFieldException e) {
                // Try the superclass.
            } catch (RuntimeException e) {
                return null;
            } catch (LinkageError e) {
                return null;
            }
        }
        try {
            return type.getField(name);
        } catch (NoSuchFieldException e) {
            return null;
        } catch (RuntimeException e) {
            return null;
        } catch (LinkageError e) {
            return null;
        }
    }
}
