package p3;

import java.util.Arrays;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;

/**
 * Around advice calling proceed() and proceed(Object[]) with good and bad arrays,
 * in rounds chosen by an argument or a counter. An annotation-style aspect:
 * compiles against either runtime.
 *
 * <p>After an array longer than expected, or one that fails before all of it is
 * read, AspectJ 1.9.5 leaves its closure state half-written (later proceeds see
 * garbage); major does not. Rounds end without proceeding again after those.
 */
@Aspect
public class Asp {
    static final Target OTHER = new Target("OTHER");
    static final Target O2 = new Target("O2");
    static int noargsRound;
    static int bothRound;

    interface Body {
        Object run() throws Throwable;
    }

    static void attempt(String what, Body body) {
        try {
            System.out.println("  " + what + " -> " + body.run());
        } catch (Throwable e) {
            System.out.println("  " + what + " !! " + e);
        }
    }

    static void show(String name, ProceedingJoinPoint pjp) {
        System.out.println("  " + name + " at " + pjp.toShortString() + " this=" + tag(pjp.getThis()) + " target="
                + tag(pjp.getTarget()) + " args=" + Arrays.toString(pjp.getArgs()));
    }

    static String tag(Object o) {
        return o instanceof Target ? ((Target) o).tag : String.valueOf(o);
    }

    @Around("execution(* p3.Target.inst(..))")
    public Object a1(final ProceedingJoinPoint pjp) throws Throwable {
        show("a1", pjp);
        switch ((Integer) pjp.getArgs()[0]) {
            case 1:
                attempt("args", () -> pjp.proceed(new Object[] {7, "q"}));
                attempt("again", () -> pjp.proceed());
                show("a1 after", pjp);
                return pjp.proceed();
            case 2:
                attempt("too long", () -> pjp.proceed(new Object[] {OTHER, 8, "r"}));
                return "a1 done";
            default:
                attempt("long for int", () -> pjp.proceed(new Object[] {9L, "s"}));
                attempt("too short", () -> pjp.proceed(new Object[] {10}));
                return pjp.proceed();
        }
    }

    @Around("execution(* p3.Target.stat(..))")
    public Object a2(final ProceedingJoinPoint pjp) throws Throwable {
        show("a2", pjp);
        switch ((Integer) pjp.getArgs()[0]) {
            case 1:
                attempt("args", () -> pjp.proceed(new Object[] {7, "q"}));
                return pjp.proceed();
            case 2:
                attempt("too long", () -> pjp.proceed(new Object[] {null, 8, "r"}));
                return "a2 done";
            default:
                attempt("too short", () -> pjp.proceed(new Object[] {1}));
                return pjp.proceed();
        }
    }

    @Around("execution(* p3.Target.noargs(..)) && this(t)")
    public Object a3(final ProceedingJoinPoint pjp, Target t) throws Throwable {
        show("a3 " + t.tag, pjp);
        switch (++noargsRound) {
            case 1:
                attempt("new this", () -> pjp.proceed(new Object[] {OTHER}));
                return pjp.proceed();
            case 2:
                attempt("empty", () -> pjp.proceed(new Object[] {}));
                return pjp.proceed();
            default:
                attempt("not a Target", () -> pjp.proceed(new Object[] {"str"}));
                return "a3 done";
        }
    }

    @Around("execution(* p3.Target.bound(..)) && args(a)")
    public Object a4(final ProceedingJoinPoint pjp, final int a) throws Throwable {
        show("a4 " + a, pjp);
        switch (a) {
            case 1:
                attempt("a+10", () -> pjp.proceed(new Object[] {a + 10}));
                return pjp.proceed();
            case 2:
                attempt("too long", () -> pjp.proceed(new Object[] {OTHER, a + 20}));
                return "a4 done";
            case 3:
                attempt("string", () -> pjp.proceed(new Object[] {"bad"}));
                return "a4 done";
            case 4:
                attempt("long", () -> pjp.proceed(new Object[] {30L}));
                attempt("null", () -> pjp.proceed(new Object[] {null}));
                attempt("char", () -> pjp.proceed(new Object[] {'c'}));
                return "a4 done";
            default:
                return pjp.proceed();
        }
    }

    @Around("execution(* p3.Target.both(..)) && this(t) && target(u)")
    public Object b1(final ProceedingJoinPoint pjp, Target t, Target u) throws Throwable {
        show("b1", pjp);
        if (++bothRound == 1) {
            attempt("this and target", () -> pjp.proceed(new Object[] {OTHER, O2}));
            return pjp.proceed();
        }
        attempt("one", () -> pjp.proceed(new Object[] {OTHER}));
        return "b1 done";
    }

    @Around("execution(* p3.Target.thisbound(..)) && target(t)")
    public Object a9(final ProceedingJoinPoint pjp, Target t) throws Throwable {
        show("a9", pjp);
        if ((Integer) pjp.getArgs()[0] == 1) {
            attempt("target and arg", () -> pjp.proceed(new Object[] {OTHER, 41}));
            return pjp.proceed();
        }
        attempt("arg only", () -> pjp.proceed(new Object[] {42}));
        return "a9 done";
    }

    @Around("call(* p3.Target.helper(..)) && this(s) && target(t)")
    public Object a5(final ProceedingJoinPoint pjp, Target s, Target t) throws Throwable {
        show("a5", pjp);
        if ((Integer) pjp.getArgs()[0] == 1) {
            attempt("this, target, arg", () -> pjp.proceed(new Object[] {O2, OTHER, 9}));
            return pjp.proceed();
        }
        attempt("two", () -> pjp.proceed(new Object[] {OTHER, 9}));
        return "a5 done";
    }

    @Around("call(* p3.Target.helper2(..)) && this(s)")
    public Object b3(final ProceedingJoinPoint pjp, Target s) throws Throwable {
        show("b3", pjp);
        if ((Integer) pjp.getArgs()[0] == 1) {
            attempt("this and arg", () -> pjp.proceed(new Object[] {OTHER, 10}));
        }
        return pjp.proceed();
    }

    @Around("call(* p3.Target.helper3(..)) && target(s)")
    public Object b4(final ProceedingJoinPoint pjp, Target s) throws Throwable {
        show("b4", pjp);
        if ((Integer) pjp.getArgs()[0] == 1) {
            attempt("target and arg", () -> pjp.proceed(new Object[] {O2, 11}));
        }
        return pjp.proceed();
    }

    @Around("execution(long p3.Target.wide(..))")
    public Object w(final ProceedingJoinPoint pjp) throws Throwable {
        show("w", pjp);
        switch (((Long) pjp.getArgs()[0]).intValue()) {
            case 1:
                attempt("widened", () -> pjp.proceed(new Object[] {3, 2.5f, 'x', true}));
                return pjp.proceed();
            case 2:
                attempt("char from int", () -> pjp.proceed(new Object[] {3, 2.5f, 120, true}));
                return "w done";
            case 3:
                attempt("boolean from string", () -> pjp.proceed(new Object[] {3, 2.5f, 'x', "true"}));
                return "w done";
            default:
                attempt("nulls", () -> pjp.proceed(new Object[] {null, null, null, null}));
                return pjp.proceed();
        }
    }

    @Around("execution(void p3.Target.nothing(int))")
    public Object v(final ProceedingJoinPoint pjp) throws Throwable {
        show("v", pjp);
        attempt("again", () -> pjp.proceed(new Object[] {60}));
        return pjp.proceed();
    }

    @Around("call(p3.Target.new(..)) && within(p3.Caller)")
    public Object a8(final ProceedingJoinPoint pjp) throws Throwable {
        show("a8", pjp);
        attempt("new tag", () -> ((Target) pjp.proceed(new Object[] {"NEW"})).tag);
        return pjp.proceed();
    }

    @Around("call(* p3.Target.callee(..)) && within(p3.Caller) && target(u)")
    public Object b2(final ProceedingJoinPoint pjp, Target u) throws Throwable {
        show("b2", pjp);
        attempt("new target", () -> pjp.proceed(new Object[] {OTHER, 1, "a"}));
        return "b2:" + pjp.proceed();
    }
}
