package p3;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import major.runtime.AroundClosure;
import major.runtime.Conversions;
import major.runtime.Factory;
import major.runtime.MethodHandleClosure;
import org.aspectj.lang.JoinPoint;

/**
 * Target.main as the weaver would run it with Asp woven in, written out by hand:
 * each advised shadow builds a ProceedingJoinPoint through major.runtime.Factory
 * with a MethodHandleClosure over a static "proceed" method (what woven code gets
 * from an ldc constant), calls the advice, and converts the result. The output must
 * be that of the ajc-woven Target.
 */
public final class ProceedDriver {
    private ProceedDriver() {
    }

    static final Asp ASP = new Asp();
    static final int THIS = AroundClosure.BIND_THIS;
    static final int TARGET = AroundClosure.BIND_TARGET;

    static final Factory F = new Factory("Target.java", Target.class);
    static final Factory FC = new Factory("Target.java", Caller.class);
    static final JoinPoint.StaticPart INST = F.makeSJP(JoinPoint.METHOD_EXECUTION,
            F.makeMethodSig(1, "inst", "p3.Target", "(ILjava/lang/String;)Ljava/lang/String;", "a,b", ""), 13);
    static final JoinPoint.StaticPart STAT = F.makeSJP(JoinPoint.METHOD_EXECUTION,
            F.makeMethodSig(9, "stat", "p3.Target", "(ILjava/lang/String;)Ljava/lang/String;", "a,b", ""), 17);
    static final JoinPoint.StaticPart NOARGS = F.makeSJP(JoinPoint.METHOD_EXECUTION,
            F.makeMethodSig(1, "noargs", "p3.Target", "()Ljava/lang/String;", "", ""), 21);
    static final JoinPoint.StaticPart BOUND = F.makeSJP(JoinPoint.METHOD_EXECUTION,
            F.makeMethodSig(1, "bound", "p3.Target", "(I)Ljava/lang/String;", "a", ""), 25);
    static final JoinPoint.StaticPart BOTH = F.makeSJP(JoinPoint.METHOD_EXECUTION,
            F.makeMethodSig(1, "both", "p3.Target", "()Ljava/lang/String;", "", ""), 29);
    static final JoinPoint.StaticPart THISBOUND = F.makeSJP(JoinPoint.METHOD_EXECUTION,
            F.makeMethodSig(1, "thisbound", "p3.Target", "(I)Ljava/lang/String;", "a", ""), 33);
    static final JoinPoint.StaticPart HELPER = F.makeSJP(JoinPoint.METHOD_CALL,
            F.makeMethodSig(0, "helper", "p3.Target", "(I)Ljava/lang/String;", "a", ""), 38);
    static final JoinPoint.StaticPart HELPER2 = F.makeSJP(JoinPoint.METHOD_CALL,
            F.makeMethodSig(0, "helper2", "p3.Target", "(I)Ljava/lang/String;", "a", ""), 38);
    static final JoinPoint.StaticPart HELPER3 = F.makeSJP(JoinPoint.METHOD_CALL,
            F.makeMethodSig(0, "helper3", "p3.Target", "(I)Ljava/lang/String;", "a", ""), 38);
    static final JoinPoint.StaticPart WIDE = F.makeSJP(JoinPoint.METHOD_EXECUTION,
            F.makeMethodSig(1, "wide", "p3.Target", "(JDCZ)J", "x,y,c,z", ""), 53);
    static final JoinPoint.StaticPart NOTHING = F.makeSJP(JoinPoint.METHOD_EXECUTION,
            F.makeMethodSig(1, "nothing", "p3.Target", "(I)V", "a", ""), 57);
    static final JoinPoint.StaticPart NEW_TARGET = FC.makeSJP(JoinPoint.CONSTRUCTOR_CALL,
            FC.makeConstructorSig(0, "p3.Target", "(Ljava/lang/String;)V", "tag", ""), 106);
    static final JoinPoint.StaticPart CALLEE = FC.makeSJP(JoinPoint.METHOD_CALL,
            FC.makeMethodSig(1, "callee", "p3.Target", "(ILjava/lang/String;)Ljava/lang/String;", "a,b", ""), 110);

    /** What an ldc of a method handle constant gives the woven code. */
    static AroundClosure closure(String proceedMethod, int flags) {
        try {
            MethodHandle h = MethodHandles.lookup().findStatic(ProceedDriver.class, proceedMethod,
                    MethodType.methodType(Object.class, Object[].class));
            return new MethodHandleClosure(h, flags);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** Rethrows what advice throws, as bytecode does without declaring it. */
    @SuppressWarnings("unchecked")
    static <T extends Throwable> RuntimeException rethrow(Throwable t) throws T {
        throw (T) t;
    }

    // The proceed methods: the original shadows, reading {this, target, args...}.

    static Object inst$proceed(Object[] s) {
        return ((Target) s[1]).inst(Conversions.intValue(s[2]), (String) s[3]);
    }

    static Object stat$proceed(Object[] s) {
        return Target.stat(Conversions.intValue(s[2]), (String) s[3]);
    }

    static Object noargs$proceed(Object[] s) {
        return ((Target) s[1]).noargs();
    }

    static Object bound$proceed(Object[] s) {
        return ((Target) s[1]).bound(Conversions.intValue(s[2]));
    }

    static Object both$proceed(Object[] s) {
        return ((Target) s[1]).both();
    }

    static Object thisbound$proceed(Object[] s) {
        return ((Target) s[1]).thisbound(Conversions.intValue(s[2]));
    }

    static Object helper$proceed(Object[] s) {
        return ((Target) s[1]).helper(Conversions.intValue(s[2]));
    }

    static Object helper2$proceed(Object[] s) {
        return ((Target) s[1]).helper2(Conversions.intValue(s[2]));
    }

    static Object helper3$proceed(Object[] s) {
        return ((Target) s[1]).helper3(Conversions.intValue(s[2]));
    }

    static Object wide$proceed(Object[] s) {
        return Conversions.longObject(((Target) s[1]).wide(Conversions.longValue(s[2]), Conversions.doubleValue(s[3]),
                Conversions.charValue(s[4]), Conversions.booleanValue(s[5])));
    }

    static Object nothing$proceed(Object[] s) {
        ((Target) s[1]).nothing(Conversions.intValue(s[2]));
        return Conversions.voidObject();
    }

    static Object newTarget$proceed(Object[] s) {
        return new Target((String) s[2]);
    }

    static Object callee$proceed(Object[] s) {
        return ((Target) s[1]).callee(Conversions.intValue(s[2]), (String) s[3]);
    }

    // The woven shadows.

    static String inst(Target t, int a, String b) {
        try {
            return (String) ASP.a1(Factory.makePJP(INST, t, t, new Object[] {a, b}, closure("inst$proceed", 0)));
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    static String stat(int a, String b) {
        try {
            return (String) ASP.a2(Factory.makePJP(STAT, null, null, new Object[] {a, b}, closure("stat$proceed", 0)));
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    static String noargs(Target t) {
        try {
            return (String) ASP.a3(Factory.makePJP(NOARGS, t, t, new Object[] {}, closure("noargs$proceed", THIS)), t);
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    static String bound(Target t, int a) {
        try {
            return (String) ASP.a4(Factory.makePJP(BOUND, t, t, new Object[] {a}, closure("bound$proceed", 0)), a);
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    static String both(Target t) {
        try {
            return (String) ASP.b1(Factory.makePJP(BOTH, t, t, new Object[] {}, closure("both$proceed", THIS | TARGET)),
                    t, t);
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    static String thisbound(Target t, int a) {
        try {
            return (String) ASP.a9(
                    Factory.makePJP(THISBOUND, t, t, new Object[] {a}, closure("thisbound$proceed", TARGET)), t);
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    /** Target.caller with its three advised calls. */
    static String caller(Target t, int a) {
        try {
            String h1 = (String) ASP.a5(
                    Factory.makePJP(HELPER, t, t, new Object[] {a}, closure("helper$proceed", THIS | TARGET)), t, t);
            String h2 = (String) ASP.b3(
                    Factory.makePJP(HELPER2, t, t, new Object[] {a}, closure("helper2$proceed", THIS)), t);
            String h3 = (String) ASP.b4(
                    Factory.makePJP(HELPER3, t, t, new Object[] {a}, closure("helper3$proceed", TARGET)), t);
            return t.tag + ":caller/" + h1 + "/" + h2 + "/" + h3;
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    static long wide(Target t, long x, double y, char c, boolean z) {
        try {
            return Conversions.longValue(
                    ASP.w(Factory.makePJP(WIDE, t, t, new Object[] {x, y, c, z}, closure("wide$proceed", 0))));
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    static void nothing(Target t, int a) {
        try {
            ASP.v(Factory.makePJP(NOTHING, t, t, new Object[] {a}, closure("nothing$proceed", 0)));
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    /** Caller.make with its advised constructor call. */
    static Target make(String tag) {
        try {
            return (Target) ASP.a8(
                    Factory.makePJP(NEW_TARGET, null, null, new Object[] {tag}, closure("newTarget$proceed", 0)));
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    /** Caller.callee with its advised call. */
    static String callee(Target t) {
        try {
            return (String) ASP.b2(
                    Factory.makePJP(CALLEE, null, t, new Object[] {7, "z"}, closure("callee$proceed", TARGET)), t);
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    public static void main(String[] args) {
        Target t = new Target("T1");
        for (int i = 1; i <= 3; i++) {
            final int n = i;
            Target.run("exec inst " + n, () -> inst(t, n, "x"));
            Target.run("exec stat " + n, () -> stat(n, "y"));
            Target.run("exec noargs " + n, () -> noargs(t));
        }
        for (int i = 1; i <= 5; i++) {
            final int n = i;
            Target.run("exec bound " + n, () -> bound(t, n));
        }
        for (int i = 1; i <= 2; i++) {
            final int n = i;
            Target.run("exec both " + n, () -> both(t));
            Target.run("exec thisbound " + n, () -> thisbound(t, n));
            Target.run("exec caller " + n, () -> caller(t, n));
        }
        for (long i = 1; i <= 4; i++) {
            final long n = i;
            Target.run("exec wide " + n, () -> wide(t, n, 2.0, 'a', false));
        }
        Target.run("exec nothing", () -> {
            nothing(t, 6);
            return "void";
        });
        Target.run("call new", () -> make("T3").tag);
        Target.run("call callee", () -> callee(t));
    }
}
