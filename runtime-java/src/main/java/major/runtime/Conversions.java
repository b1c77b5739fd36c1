package major.runtime;

/**
 * Boxing and unboxing for woven code and compiled aspects, with AspectJ's rules:
 * {@code null} unboxes to zero ({@code false}, {@code '\0'}); a numeric type
 * unboxes from any {@link Number}; {@code char} only from {@link Character} and
 * {@code boolean} only from {@link Boolean}; anything else throws a
 * {@link ClassCastException} saying {@code "T can not be converted to int"}.
 * Boxing uses the shared boxes of {@code valueOf}.
 */
public final class Conversions {
    private Conversions() {
    }

    /**
     * Boxes an {@code int}.
     * @param v the value
     * @return the box
     */
    public static Object intObject(int v) {
        return Integer.valueOf(v);
    }

    /**
     * Boxes a {@code short}.
     * @param v the value
     * @return the box
     */
    public static Object shortObject(short v) {
        return Short.valueOf(v);
    }

    /**
     * Boxes a {@code byte}.
     * @param v the value
     * @return the box
     */
    public static Object byteObject(byte v) {
        return Byte.valueOf(v);
    }

    /**
     * Boxes a {@code char}.
     * @param v the value
     * @return the box
     */
    public static Object charObject(char v) {
        return Character.valueOf(v);
    }

    /**
     * Boxes a {@code long}.
     * @param v the value
     * @return the box
     */
    public static Object longObject(long v) {
        return Long.valueOf(v);
    }

    /**
     * Boxes a {@code float}.
     * @param v the value
     * @return the box
     */
    public static Object floatObject(float v) {
        return Float.valueOf(v);
    }

    /**
     * Boxes a {@code double}.
     * @param v the value
     * @return the box
     */
    public static Object doubleObject(double v) {
        return Double.valueOf(v);
    }

    /**
     * Boxes a {@code boolean}.
     * @param v the value
     * @return the box
     */
    public static Object booleanObject(boolean v) {
        return Boolean.valueOf(v);
    }

    /**
     * The box of "no value": {@code null}.
     * @return {@code null}
     */
    public static Object voidObject() {
        return null;
    }

    private static ClassCastException cannot(Object o, String type) {
        return new ClassCastException(o.getClass().getName() + " can not be converted to " + type);
    }

    /**
     * Unboxes an {@code int} from any number.
     * @param o the box
     * @return the value
     */
    public static int intValue(Object o) {
        if (o == null) {
            return 0;
        }
        if (o instanceof Number) {
            return ((Number) o).intValue();
        }
        throw cannot(o, "int");
    }

    /**
     * Unboxes a {@code long} from any number.
     * @param o the box
     * @return the value
     */
    public static long longValue(Object o) {
        if (o == null) {
            return 0L;
        }
        if (o instanceof Number) {
            return ((Number) o).longValue();
        }
        throw cannot(o, "long");
    }

    /**
     * Unboxes a {@code float} from any number.
     * @param o the box
     * @return the value
     */
    public static float floatValue(Object o) {
        if (o == null) {
            return 0f;
        }
        if (o instanceof Number) {
            return ((Number) o).floatValue();
        }
        throw cannot(o, "float");
    }

    /**
     * Unboxes a {@code double} from any number.
     * @param o the box
     * @return the value
     */
    public static double doubleValue(Object o) {
        if (o == null) {
            return 0d;
        }
        if (o instanceof Number) {
            return ((Number) o).doubleValue();
        }
        throw cannot(o, "double");
    }

    /**
     * Unboxes a {@code byte} from any number.
     * @param o the box
     * @return the value
     */
    public static byte byteValue(Object o) {
        if (o == null) {
            return 0;
        }
        if (o instanceof Number) {
            return ((Number) o).byteValue();
        }
        throw cannot(o, "byte");
    }

    /**
     * Unboxes a {@code short} from any number.
     * @param o the box
     * @return the value
     */
    public static short shortValue(Object o) {
        if (o == null) {
            return 0;
        }
        if (o instanceof Number) {
            return ((Number) o).shortValue();
        }
        throw cannot(o, "short");
    }

    /**
     * Unboxes a {@code char} from a {@link Character}.
     * @param o the box
     * @return the value
     */
    public static char charValue(Object o) {
        if (o == null) {
            return '\0';
        }
        if (o instanceof Character) {
            return ((Character) o).charValue();
        }
        throw cannot(o, "char");
    }

    /**
     * Unboxes a {@code boolean} from a {@link Boolean}.
     * @param o the box
     * @return the value
     */
    public static boolean booleanValue(Object o) {
        if (o == null) {
            return false;
        }
        if (o instanceof Boolean) {
            return ((Boolean) o).booleanValue();
        }
        throw cannot(o, "boolean");
    }

    /**
     * "Unboxes" a {@code void} result: returns {@code o} itself, as AspectJ does.
     * @param o the box
     * @return {@code o}
     */
    public static Object voidValue(Object o) {
        return o;
    }

    /**
     * Throws {@code t} as it is, checked or not, without the caller having to
     * declare it: a compiled aspect's {@code proceed(..)} passes on whatever the
     * join point throws, also where it is called from a lambda or an anonymous
     * class that may not throw checked exceptions.
     *
     * @param t the throwable
     * @return never returns; typed so that callers can write {@code throw rethrow(t)}
     */
    public static RuntimeException rethrow(Throwable t) {
        throw Conversions.<RuntimeException>uncheckedThrow(t);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T uncheckedThrow(Throwable t) throws T {
        throw (T) t;
    }
}
