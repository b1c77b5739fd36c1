import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import major.runtime.AroundClosure;
import major.runtime.CFlowCounter;
import major.runtime.CFlowStack;
import major.runtime.Factory;
import major.runtime.MethodHandleClosure;
import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.reflect.CatchClauseSignature;
import org.aspectj.lang.reflect.ConstructorSignature;
import org.aspectj.lang.reflect.FieldSignature;
import org.aspectj.lang.reflect.InitializerSignature;
import org.aspectj.lang.reflect.MethodSignature;

/**
 * Checks of major's runtime that need no AspectJ: cflow state per thread, factory
 * edge cases, closures, and that every class of the runtime jar loads. Prints
 * "OK <checks>" or throws. Argument: the runtime jar.
 */
public class SelfTest {
    static int checks;

    static void check(boolean ok, String what) {
        checks++;
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    static void eq(Object expected, Object actual, String what) {
        checks++;
        if (expected == null ? actual != null : !expected.equals(actual)) {
            throw new AssertionError(what + ": expected <" + expected + "> but was <" + actual + ">");
        }
    }

    interface Body {
        void run() throws Throwable;
    }

    static void throwsA(Class<? extends Throwable> type, Body body, String what) {
        checks++;
        try {
            body.run();
        } catch (Throwable t) {
            if (type.isInstance(t)) {
                return;
            }
            throw new AssertionError(what + ": threw " + t, t);
        }
        throw new AssertionError(what + ": threw nothing");
    }

    static class Base {
        int inherited;

        void baseMethod(long x) {
        }
    }

    interface Marker {
        int CONSTANT = 1;

        default void marked() {
        }
    }

    static class Derived extends Base implements Marker {
        Derived(String s) {
        }
    }

    static Object echo(Object[] state) {
        return java.util.Arrays.asList(state).toString();
    }

    static Object wrongType(Object[] state, int x) {
        return null;
    }

    public static void main(String[] args) throws Throwable {
        loadAll(args[0]);
        cflowCounter();
        cflowStack();
        factory();
        closures();
        System.out.println("OK " + checks);
    }

    /** Every class in the runtime jar loads and links. */
    static void loadAll(String jar) throws Exception {
        int classes = 0;
        try (ZipFile zip = new ZipFile(jar)) {
            for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements();) {
                String name = e.nextElement().getName();
                if (name.endsWith(".class")) {
                    String binary = name.substring(0, name.length() - 6).replace('/', '.');
                    Class.forName(binary, true, SelfTest.class.getClassLoader());
                    classes++;
                }
            }
        }
        check(classes > 40, "the runtime jar has its classes: " + classes);
    }

    static void cflowCounter() throws Exception {
        final CFlowCounter c = new CFlowCounter();
        check(!c.isValid(), "a new counter is not valid");
        c.inc();
        c.inc();
        check(c.isValid(), "valid after inc");
        final boolean[] other = new boolean[1];
        Thread t = new Thread(new Runnable() {
            public void run() {
                other[0] = c.isValid();
                c.inc();
            }
        });
        t.start();
        t.join();
        check(!other[0], "another thread has its own count");
        c.dec();
        check(c.isValid(), "still valid after one dec of two");
        c.dec();
        check(!c.isValid(), "not valid after as many decs as incs");
    }

    static void cflowStack() throws Exception {
        final CFlowStack s = new CFlowStack();
        check(!s.isValid(), "a new stack is not valid");
        throwsA(IllegalStateException.class, new Body() {
            public void run() {
                s.peek();
            }
        }, "peek on an empty stack");
        throwsA(IllegalStateException.class, new Body() {
            public void run() {
                s.pop();
            }
        }, "pop on an empty stack");
        for (int i = 0; i < 20; i++) {
            s.push(new Object[] {"v" + i, i});
        }
        eq("v19", s.get(0), "get reads the innermost state");
        eq(19, s.get(1), "get by index");
        final Object[] seen = new Object[1];
        Thread t = new Thread(new Runnable() {
            public void run() {
                seen[0] = s.isValid();
                s.push(new Object[] {"other"});
            }
        });
        t.start();
        t.join();
        eq(false, seen[0], "another thread has its own stack");
        for (int i = 19; i >= 0; i--) {
            eq("v" + i, s.peek()[0], "pop order");
            s.pop();
        }
        check(!s.isValid(), "empty again");
    }

    static void factory() throws Throwable {
        Factory f = new Factory("SelfTest.java", SelfTest.class);
        JoinPoint.StaticPart a = f.makeSJP("method-call", f.makeMethodSig(1, "m", "a.b.C", "()V", "", ""), 3);
        JoinPoint.StaticPart b = f.makeESJP(new String("method-execution"),
                f.makeMethodSig(1, "m", "a.b.C", "()V", "", ""), 4);
        eq(0, a.getId(), "ids start at 0");
        eq(1, b.getId(), "ids count static parts and enclosing ones");
        eq(0, new Factory("X.java", SelfTest.class).makeSJP("method-call", a.getSignature(), 1).getId(),
                "ids are per factory");
        check(b.getKind() == JoinPoint.METHOD_EXECUTION, "kinds are the interned constants");
        check(b instanceof JoinPoint.EnclosingStaticPart, "makeESJP makes an enclosing static part");

        // Strings of classes that do not exist: built from names, nothing loaded.
        MethodSignature ghost = f.makeMethodSig(0x1009, "lambda$run$0", "no/such/Outer$Inner",
                "([[Lno/such/Missing;JLno/such/Outer$Inner$Deep;)[Lno/such/Missing;", "a,b,c", "no/such/Oops");
        eq("Missing[] no.such.Outer.Inner.lambda$run$0(Missing[][], long, Outer.Inner.Deep)", ghost.toString(),
                "middle string of unloadable types");
        eq("Outer.Inner.lambda$run$0(..)", ghost.toShortString(), "short string");
        eq("public static no.such.Missing[] no.such.Outer.Inner.lambda$run$0(no.such.Missing[][], long, "
                + "no.such.Outer.Inner.Deep)", ghost.toLongString(), "long string; synthetic not shown");
        eq("no.such.Outer$Inner", ghost.getDeclaringTypeName(), "internal names become binary names");
        eq(ClassNotFoundException.class, ghost.getDeclaringType(), "an unloadable class, as in AspectJ");
        eq(ClassNotFoundException.class, ghost.getParameterTypes()[0], "an unloadable parameter type");
        eq(long.class, ghost.getParameterTypes()[1], "a primitive parameter type");
        eq(ClassNotFoundException.class, ghost.getExceptionTypes()[0], "an unloadable exception type");
        eq(null, ghost.getMethod(), "no method to find");
        eq("a", ghost.getParameterNames()[0], "parameter names");
        check(ghost.getParameterTypes() != ghost.getParameterTypes(), "arrays are copies");

        MethodSignature unnamed = f.makeMethodSig(0, "f", "java.lang.String", "(I[I)V", "", "");
        eq("[arg0, arg1]", java.util.Arrays.toString(unnamed.getParameterNames()), "default parameter names");
        eq(int[].class, unnamed.getParameterTypes()[1], "array parameter types load");
        eq(void.class, unnamed.getReturnType(), "void return type");

        // Look-ups through supertypes.
        MethodSignature inherited = f.makeMethodSig(0, "baseMethod", "SelfTest$Derived", "(J)V", "x", "");
        eq("baseMethod", inherited.getMethod().getName(), "methods are found in superclasses");
        eq(Base.class, inherited.getMethod().getDeclaringClass(), "the superclass's method");
        MethodSignature fromInterface = f.makeMethodSig(1, "marked", "SelfTest$Derived", "()V", "", "");
        eq(Marker.class, fromInterface.getMethod().getDeclaringClass(), "methods are found in interfaces");
        FieldSignature field = f.makeFieldSig(0, "inherited", "SelfTest$Derived", "I");
        eq(Base.class, field.getField().getDeclaringClass(), "fields are found in superclasses");
        eq(int.class, field.getFieldType(), "field type");
        FieldSignature constant = f.makeFieldSig(25, "CONSTANT", "SelfTest$Derived", "I");
        eq(Marker.class, constant.getField().getDeclaringClass(), "fields are found in interfaces");
        ConstructorSignature ctor = f.makeConstructorSig(0, "SelfTest$Derived", "(Ljava/lang/String;)V", "s", "");
        eq(Derived.class, ctor.getConstructor().getDeclaringClass(), "constructors");
        eq("SelfTest.Derived(..)", ctor.toShortString(), "constructor short string");
        InitializerSignature init = f.makeInitializerSig(0, "SelfTest$Derived");
        eq("<init>", init.getName(), "a non-static initializer is <init>");
        eq(null, init.getInitializer(), "no constructor without parameters");
        CatchClauseSignature handler = f.makeCatchClauseSig("SelfTest", "java/io/IOException", "e");
        eq(java.io.IOException.class, handler.getParameterType(), "catch parameter type");
        eq("catch(java.io.IOException)", handler.toLongString(), "catch long string");
        eq("lock(Object)", f.makeLockSig().toString(), "lock signature");
        eq("unlock(java.lang.Object)", f.makeUnlockSig().toLongString(), "unlock signature");
        eq("Object int[][].clone()", f.makeMethodSig(1, "clone", "[[I", "()Ljava/lang/Object;", "", "").toString(),
                "arrays as declaring types");

        // Join points.
        JoinPoint jp = Factory.makeJP(a, "me", null, null);
        eq(0, jp.getArgs().length, "null arguments are none");
        check(jp instanceof ProceedingJoinPoint, "every join point is a ProceedingJoinPoint, as in AspectJ");
        eq(null, ((ProceedingJoinPoint) jp).proceed(), "proceeding without a closure does nothing");
        eq("call(void a.b.C.m())", jp.toString(), "join point string");
        check(jp.getSourceLocation().getWithinType() == SelfTest.class, "within type");
        eq("SelfTest.java:3", jp.getSourceLocation().toString(), "source location");

        // Lazy caches filled by many threads at once agree.
        final MethodSignature shared = f.makeMethodSig(1, "x", "java.lang.String", "(Ljava/util/List;)I", "l", "");
        final List<String> results = new ArrayList<String>();
        final CountDownLatch start = new CountDownLatch(1);
        final AtomicInteger failures = new AtomicInteger();
        Thread[] threads = new Thread[8];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new Thread(new Runnable() {
                public void run() {
                    try {
                        start.await();
                        String s = shared.toLongString() + "|" + shared.getParameterTypes()[0].getName();
                        synchronized (results) {
                            results.add(s);
                        }
                    } catch (Throwable t) {
                        failures.incrementAndGet();
                    }
                }
            });
            threads[i].start();
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        eq(0, failures.get(), "no thread failed");
        for (String r : results) {
            eq("public int java.lang.String.x(java.util.List)|java.util.List", r, "same result in every thread");
        }
    }

    static void closures() throws Throwable {
        MethodHandle echo = MethodHandles.lookup().findStatic(SelfTest.class, "echo",
                MethodType.methodType(Object.class, Object[].class));
        Factory f = new Factory("SelfTest.java", SelfTest.class);
        JoinPoint.StaticPart call = f.makeSJP(JoinPoint.METHOD_CALL,
                f.makeMethodSig(1, "m", "a.b.C", "(ILjava/lang/String;)V", "i,s", ""), 9);
        JoinPoint.StaticPart exec = f.makeSJP(JoinPoint.METHOD_EXECUTION,
                f.makeMethodSig(1, "m", "a.b.C", "(ILjava/lang/String;)V", "i,s", ""), 9);
        ProceedingJoinPoint p = Factory.makePJP(call, "this", "target", new Object[] {1, "s"},
                new MethodHandleClosure(echo));
        eq("[this, target, 1, s]", p.proceed(), "state layout {this, target, args...}");
        eq("[this, target, 2, t]", p.proceed(new Object[] {2, "t"}), "args only");
        eq("[this, target, 2, t]", p.proceed(), "proceed() keeps what proceed(Object[]) set");
        eq("[1, s]", java.util.Arrays.toString(p.getArgs()), "getArgs does not change");
        eq("[this, target, 3, t]", p.proceed(new Object[] {3}), "a short array keeps the other arguments");
        eq("[this, target, 4, u]", p.proceed(new Object[] {4, "u", "extra"}), "extra elements are ignored");
        ProceedingJoinPoint both = Factory.makePJP(call, "this", "target", new Object[] {1, "s"},
                new MethodHandleClosure(echo, AroundClosure.BIND_THIS | AroundClosure.BIND_TARGET));
        eq("[T, U, 5, v]", both.proceed(new Object[] {"T", "U", 5, "v"}), "this and target first at a call");
        ProceedingJoinPoint thisOnly = Factory.makePJP(exec, "me", "me", new Object[] {1, "s"},
                new MethodHandleClosure(echo, AroundClosure.BIND_THIS));
        eq("[you, you, 6, s]", thisOnly.proceed(new Object[] {"you", 6}), "an execution's this is its target");
        ProceedingJoinPoint execBoth = Factory.makePJP(exec, "me", "me", new Object[] {1, "s"},
                new MethodHandleClosure(echo, AroundClosure.BIND_THIS | AroundClosure.BIND_TARGET));
        eq("[B, B, 1, s]", execBoth.proceed(new Object[] {"A", "B"}), "the target wins at an execution");
        final ProceedingJoinPoint target = Factory.makePJP(call, null, "t", new Object[] {},
                new MethodHandleClosure(echo, AroundClosure.BIND_TARGET));
        throwsA(ArrayIndexOutOfBoundsException.class, new Body() {
            public void run() throws Throwable {
                target.proceed(new Object[] {});
            }
        }, "a missing target");
        final MethodHandle wrong = MethodHandles.lookup().findStatic(SelfTest.class, "wrongType",
                MethodType.methodType(Object.class, Object[].class, int.class));
        throwsA(IllegalArgumentException.class, new Body() {
            public void run() {
                new MethodHandleClosure(wrong);
            }
        }, "a handle of another type");
        AroundClosure custom = new AroundClosure(AroundClosure.BIND_TARGET) {
            @Override
            public Object run(Object[] state) {
                return state.length;
            }
        };
        eq(AroundClosure.BIND_TARGET, custom.getFlags(), "flags");
        eq(4, Factory.makePJP(call, null, null, new Object[] {1, 2}, custom).proceed(), "custom closures");
    }
}
