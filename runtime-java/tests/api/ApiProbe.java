import java.io.PrintWriter;
import java.io.StringWriter;
import org.aspectj.lang.Aspects;
import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.NoAspectBoundException;
import org.aspectj.lang.SoftException;

/**
 * Exercises the plain classes of org.aspectj.lang. Compiled unchanged against
 * AspectJ's runtime and against major's: the outputs must be equal.
 */
public class ApiProbe {
    public static class Single {
        static final Single INSTANCE = new Single();

        public static Single aspectOf() {
            return INSTANCE;
        }

        public static boolean hasAspect() {
            return true;
        }
    }

    public static class Broken {
        public static Broken aspectOf() {
            throw new NoAspectBoundException("ApiProbe$Broken", new IllegalStateException("init failed"));
        }

        public static boolean hasAspect() {
            return false;
        }
    }

    public static class PerObject {
        public static PerObject aspectOf(Object o) {
            return new PerObject();
        }

        public static boolean hasAspect(Object o) {
            return o != null;
        }
    }

    interface Body {
        Object run() throws Throwable;
    }

    static void t(String what, Body b) {
        try {
            Object r = b.run();
            System.out.println(what + " = " + (r instanceof Boolean || r instanceof String || r == null ? r
                    : r.getClass().getName()));
        } catch (Throwable e) {
            System.out.println(what + " !! " + e + " / cause " + e.getCause());
        }
    }

    public static void main(String[] args) {
        System.out.println(JoinPoint.METHOD_EXECUTION + " " + JoinPoint.METHOD_CALL + " "
                + JoinPoint.CONSTRUCTOR_EXECUTION + " " + JoinPoint.CONSTRUCTOR_CALL + " " + JoinPoint.FIELD_GET + " "
                + JoinPoint.FIELD_SET + " " + JoinPoint.STATICINITIALIZATION + " " + JoinPoint.PREINITIALIZATION + " "
                + JoinPoint.INITIALIZATION + " " + JoinPoint.EXCEPTION_HANDLER + " " + JoinPoint.SYNCHRONIZATION_LOCK
                + " " + JoinPoint.SYNCHRONIZATION_UNLOCK + " " + JoinPoint.ADVICE_EXECUTION);
        t("aspectOf Single", () -> Aspects.aspectOf(Single.class));
        t("hasAspect Single", () -> Aspects.hasAspect(Single.class));
        t("aspectOf Broken", () -> Aspects.aspectOf(Broken.class));
        t("hasAspect Broken", () -> Aspects.hasAspect(Broken.class));
        t("aspectOf String", () -> Aspects.aspectOf(String.class));
        t("hasAspect String", () -> Aspects.hasAspect(String.class));
        t("aspectOf PerObject", () -> Aspects.aspectOf(PerObject.class, "x"));
        t("hasAspect PerObject", () -> Aspects.hasAspect(PerObject.class, "x"));
        t("hasAspect PerObject null", () -> Aspects.hasAspect(PerObject.class, (Object) null));
        t("aspectOf Single per object", () -> Aspects.aspectOf(Single.class, "x"));
        t("aspectOf Single per type", () -> Aspects.aspectOf(Single.class, String.class));
        t("hasAspect Single per type", () -> Aspects.hasAspect(Single.class, String.class));
        t("NoAspectBound(A, null)", () -> { throw new NoAspectBoundException("A", null); });
        t("NoAspectBound(A, e)", () -> { throw new NoAspectBoundException("A", new RuntimeException("x")); });
        t("NoAspectBound()", () -> { throw new NoAspectBoundException(); });
        SoftException soft = new SoftException(new java.io.IOException("io"));
        t("soft", () -> { throw soft; });
        t("soft wrapped", () -> soft.getWrappedThrowable().toString());
        t("soft message", () -> soft.getMessage());
        t("soft null", () -> { throw new SoftException(null); });
        StringWriter w = new StringWriter();
        soft.printStackTrace(new PrintWriter(w, true));
        StringBuilder trace = new StringBuilder();
        for (String line : w.toString().split("\n")) {
            if (!line.startsWith("\tat ")) {
                trace.append(line).append(" | ");
            }
        }
        System.out.println("soft trace: " + trace);
    }
}
