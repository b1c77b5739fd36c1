import java.util.concurrent.Callable;
import org.aspectj.runtime.internal.Conversions;

/**
 * Prints what Conversions makes of many values. The test compiles it as it is
 * against AspectJ's runtime, and with the import changed to major.runtime against
 * major's: the outputs must be equal.
 */
public class Conv {
    static void t(String what, Callable<Object> c) {
        try {
            Object r = c.call();
            System.out.println(what + " = " + r + (r == null ? "" : " (" + r.getClass().getName() + ")"));
        } catch (Throwable e) {
            System.out.println(what + " !! " + e);
        }
    }

    public static void main(String[] args) {
        Object[] values = {null, 7, -7L, 2.5, 2.5f, (byte) 3, (short) 4, 'c', true, "s", new StringBuilder("sb"),
            new java.math.BigDecimal("1e20"), new java.util.concurrent.atomic.AtomicInteger(9), Double.NaN,
            Long.MAX_VALUE, 300, -129};
        for (final Object v : values) {
            String n = v == null ? "null" : v.getClass().getSimpleName() + "(" + v + ")";
            t("int " + n, () -> Conversions.intValue(v));
            t("long " + n, () -> Conversions.longValue(v));
            t("float " + n, () -> Conversions.floatValue(v));
            t("double " + n, () -> Conversions.doubleValue(v));
            t("byte " + n, () -> Conversions.byteValue(v));
            t("short " + n, () -> Conversions.shortValue(v));
            t("char " + n, () -> Conversions.charValue(v));
            t("boolean " + n, () -> Conversions.booleanValue(v));
            t("void " + n, () -> Conversions.voidValue(v));
        }
        t("intObject", () -> Conversions.intObject(5));
        t("longObject", () -> Conversions.longObject(-5L));
        t("floatObject", () -> Conversions.floatObject(1.25f));
        t("doubleObject", () -> Conversions.doubleObject(-0.0));
        t("byteObject", () -> Conversions.byteObject((byte) -1));
        t("shortObject", () -> Conversions.shortObject((short) 300));
        t("charObject", () -> Conversions.charObject('z'));
        t("booleanObject", () -> Conversions.booleanObject(false));
        t("voidObject", () -> Conversions.voidObject());
    }
}
