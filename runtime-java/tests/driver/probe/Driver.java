package probe;

import dump.Dump;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Map;
import major.runtime.Factory;
import major.runtime.MethodHandleClosure;
import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.Signature;

/**
 * Builds, through major.runtime.Factory, the join points that ajc's weaving of
 * Shapes.java and Watch.java (traced by Trace.aj) creates, from the member data a
 * weaver reads in class files (access flags, names, descriptors, line numbers),
 * and dumps each with dump.Dump. The Rust test runtime_strings compares the output
 * with that of the ajc-woven program.
 *
 * <p>Line numbers are those of Shapes.java and Watch.java: edit them together.
 */
public final class Driver {
    private Driver() {
    }

    static final String EXECUTION = JoinPoint.METHOD_EXECUTION;
    static final String CALL = JoinPoint.METHOD_CALL;
    static final String NEW = JoinPoint.CONSTRUCTOR_CALL;
    static final String CONSTRUCTOR = JoinPoint.CONSTRUCTOR_EXECUTION;
    static final String GET = JoinPoint.FIELD_GET;
    static final String SET = JoinPoint.FIELD_SET;
    static final String CLINIT = JoinPoint.STATICINITIALIZATION;
    static final String PREINIT = JoinPoint.PREINITIALIZATION;
    static final String INIT = JoinPoint.INITIALIZATION;
    static final String HANDLER = JoinPoint.EXCEPTION_HANDLER;
    static final String ADVICE = JoinPoint.ADVICE_EXECUTION;

    static final Object[] NONE = {};

    static Object[] a(Object... values) {
        return values;
    }

    /** Dumps a join point as woven code would make it. */
    static void d(JoinPoint.StaticPart sp, JoinPoint.StaticPart esp, Object self, Object target, Object[] args) {
        Dump.jp(Factory.makeJP(sp, self, target, args), sp, esp);
    }

    /** The execution-like join points are their own enclosing static part. */
    static void e(JoinPoint.StaticPart sp, Object self, Object[] args) {
        d(sp, sp, self, self, args);
    }

    static Object proceedTwice(Object[] state) {
        return Integer.valueOf(((Shapes) state[1]).twice(((Integer) state[2]).intValue()));
    }

    public static void main(String[] args) throws Throwable {
        // One factory per woven class, as the weaver makes them.
        Factory f = new Factory("Shapes.java", Shapes.class);
        Factory fInner = new Factory("Shapes.java", Shapes.Inner.class);
        Factory fNested = new Factory("Shapes.java", Shapes.Nested.class);
        Factory fApi = new Factory("Shapes.java", Shapes.Api.class);
        Factory fImpl = new Factory("Shapes.java", Shapes.ApiImpl.class);
        Class<?> anonClass = Class.forName("probe.Shapes$1");
        Factory fAnon = new Factory("Shapes.java", anonClass);
        Factory fOops = new Factory("Shapes.java", Shapes.Oops.class);
        Factory fWatch = new Factory("Watch.java", Watch.class);

        // Signatures.
        Signature clinitSig = f.makeInitializerSig(8, "probe.Shapes");
        Signature counterSig = f.makeFieldSig(8, "counter", "probe.Shapes", "I");
        Signature gridSig = f.makeFieldSig(24, "GRID", "probe/Shapes", "[[J");
        Signature numsSig = f.makeFieldSig(4, "nums", "probe.Shapes", "[I");
        Signature listSig = f.makeFieldSig(2, "list", "probe.Shapes", "Ljava/util/List;");
        Signature nameSig = f.makeFieldSig(1, "name", "probe.Shapes", "Ljava/lang/String;");
        Signature mainSig = f.makeMethodSig(9, "main", "probe.Shapes", "([Ljava/lang/String;)V", "args",
                "java.lang.Exception");
        Signature newShapes = f.makeConstructorSig(1, "probe.Shapes", "()V", "", "");
        Signature newShapesString = f.makeConstructorSig(4, "probe.Shapes", "(Ljava/lang/String;)V", "name", "");
        Signature newShapesVarargs = f.makeConstructorSig(128, "probe.Shapes", "(I[Ljava/lang/String;)V", "a,rest",
                "probe.Shapes$Oops");
        Signature newArrayList = f.makeConstructorSig(1, "java.util.ArrayList", "()V", "", "");
        Signature runSig = f.makeMethodSig(49, "run", "probe.Shapes", "(ILjava/lang/String;[I)I", "n,t,arr", "");
        Signature genericSig = f.makeMethodSig(0, "generic", "probe.Shapes",
                "(Ljava/util/List;Ljava/lang/Object;)Ljava/lang/Number;", "l,o", "");
        Signature varargsSig = f.makeMethodSig(129, "varargs", "probe.Shapes",
                "(Ljava/lang/String;[I)Ljava/lang/String;", "f,rest", "");
        Signature arraysSig = f.makeMethodSig(10, "arrays", "probe.Shapes",
                "([[Ljava/lang/String;[C)Ljava/lang/Object;", "a,c", "");
        Signature getClassSig = f.makeMethodSig(273, "getClass", "java.lang.Object", "()Ljava/lang/Class;", "", "");
        Signature newInner = f.makeConstructorSig(0, "probe.Shapes$Inner", "(Lprobe/Shapes;I)V", "arg0,v", "");
        Signature innerClinit = fInner.makeInitializerSig(8, "probe.Shapes$Inner");
        Signature vSig = fInner.makeFieldSig(0, "v", "probe.Shapes$Inner", "I");
        Signature goSig = f.makeMethodSig(1, "go", "probe.Shapes$Inner", "()V", "", "");
        Signature newNested = f.makeConstructorSig(1, "probe.Shapes$Nested", "()V", "", "");
        Signature nestedClinit = fNested.makeInitializerSig(8, "probe.Shapes$Nested");
        Signature mSig = f.makeMethodSig(0, "m", "probe.Shapes$Nested", "([Ljava/util/Map$Entry;)V", "e", "");
        Signature newImpl = f.makeConstructorSig(0, "probe.Shapes$ApiImpl", "()V", "", "");
        Signature apiClinit = fApi.makeInitializerSig(520, "probe.Shapes$Api");
        Signature implClinit = fImpl.makeInitializerSig(8, "probe.Shapes$ApiImpl");
        Signature apiInit = fImpl.makeConstructorSig(1, "probe.Shapes$Api", "()V", "", "");
        Signature apiCall = f.makeMethodSig(1025, "call", "probe.Shapes$Api", "(J)V", "arg0", "");
        Signature implCall = fImpl.makeMethodSig(1, "call", "probe.Shapes$ApiImpl", "(J)V", "l", "");
        Signature defSig = f.makeMethodSig(1, "def", "probe.Shapes$Api", "()V", "", "");
        Signature utilSig = f.makeMethodSig(9, "util", "probe.Shapes$Api", "()V", "", "");
        Signature newAnon = f.makeConstructorSig(0, "probe.Shapes$1", "()V", "", "");
        Signature anonClinit = fAnon.makeInitializerSig(8, "probe.Shapes$1");
        Signature anonCall = fAnon.makeMethodSig(1, "call", "probe.Shapes$1", "(J)V", "l", "");
        Signature statSig = f.makeMethodSig(2057, "stat", "probe.Shapes", "(FDBSCZ)D", "f,d,b,s,c,z", "");
        Signature failSig = f.makeMethodSig(0, "fail", "probe.Shapes", "()V", "", "java.lang.IllegalStateException");
        Signature newIse = f.makeConstructorSig(1, "java.lang.IllegalStateException", "(Ljava/lang/String;)V", "s",
                "");
        Signature catchIse = f.makeCatchClauseSig("probe.Shapes", "java.lang.IllegalStateException", "<missing>");
        Signature newOops = f.makeConstructorSig(1, "probe.Shapes$Oops", "()V", "", "");
        Signature oopsClinit = fOops.makeInitializerSig(8, "probe.Shapes$Oops");
        Signature catchOops = f.makeCatchClauseSig("probe.Shapes", "probe/Shapes$Oops", "<missing>");
        Signature parseIntSig = f.makeMethodSig(9, "parseInt", "java.lang.Integer", "(Ljava/lang/String;)I", "s",
                "java.lang.NumberFormatException");
        Signature catchNfe = f.makeCatchClauseSig("probe.Shapes", "java.lang.NumberFormatException", "<missing>");
        Signature sizeSig = f.makeMethodSig(1025, "size", "java.util.List", "()I", "", "");
        Signature cloneSig = f.makeMethodSig(260, "clone", "[I", "()Ljava/lang/Object;", "",
                "java.lang.CloneNotSupportedException");
        Signature valueOfSig = f.makeMethodSig(9, "valueOf", "java.lang.String", "(I)Ljava/lang/String;", "i", "");
        Signature outSig = f.makeFieldSig(25, "out", "java.lang.System", "Ljava/io/PrintStream;");
        Signature twiceSig = f.makeMethodSig(0, "twice", "probe.Shapes", "(I)I", "v", "");
        Signature beforeStat = fWatch.makeAdviceSig(1, "beforeStat", "probe.Watch",
                "(Lorg/aspectj/lang/JoinPoint;F)V", "jp,f", "");
        Signature aroundSig = fWatch.makeAdviceSig(1, "around", "probe.Watch",
                "(Lorg/aspectj/lang/ProceedingJoinPoint;)Ljava/lang/Object;", "pjp", "java.lang.Throwable");
        Signature proceedSig = fWatch.makeMethodSig(1025, "proceed", "org.aspectj.lang.ProceedingJoinPoint",
                "()Ljava/lang/Object;", "", "java.lang.Throwable");
        Signature returnedSig = fWatch.makeAdviceSig(1, "returned", "probe.Watch", "(Ljava/lang/Object;)V", "r", "");

        // Enclosing static parts (the executions), which are also the static parts of
        // those execution join points.
        JoinPoint.StaticPart clinit = f.makeESJP(CLINIT, clinitSig, 10);
        JoinPoint.StaticPart main = f.makeESJP(EXECUTION, mainSig, 29);
        JoinPoint.StaticPart shapesPre = f.makeESJP(PREINIT, newShapes, 17);
        JoinPoint.StaticPart shapesInit = f.makeESJP(INIT, newShapes, 17);
        JoinPoint.StaticPart shapesExec = f.makeESJP(CONSTRUCTOR, newShapes, 17);
        JoinPoint.StaticPart stringExec = f.makeESJP(CONSTRUCTOR, newShapesString, 21);
        JoinPoint.StaticPart varargsPre = f.makeESJP(PREINIT, newShapesVarargs, 25);
        JoinPoint.StaticPart varargsInit = f.makeESJP(INIT, newShapesVarargs, 25);
        JoinPoint.StaticPart varargsCtor = f.makeESJP(CONSTRUCTOR, newShapesVarargs, 25);
        JoinPoint.StaticPart runExec = f.makeESJP(EXECUTION, runSig, 70);
        JoinPoint.StaticPart genericExec = f.makeESJP(EXECUTION, genericSig, 74);
        JoinPoint.StaticPart varargsExec = f.makeESJP(EXECUTION, varargsSig, 78);
        JoinPoint.StaticPart arraysExec = f.makeESJP(EXECUTION, arraysSig, 82);
        JoinPoint.StaticPart statExec = f.makeESJP(EXECUTION, statSig, 86);
        JoinPoint.StaticPart failExec = f.makeESJP(EXECUTION, failSig, 90);
        JoinPoint.StaticPart twiceExec = f.makeESJP(EXECUTION, twiceSig, 94);
        JoinPoint.StaticPart innerClinitSp = fInner.makeESJP(CLINIT, innerClinit, 0);
        JoinPoint.StaticPart innerPre = fInner.makeESJP(PREINIT, newInner, 101);
        JoinPoint.StaticPart innerInit = fInner.makeESJP(INIT, newInner, 101);
        JoinPoint.StaticPart innerExec = fInner.makeESJP(CONSTRUCTOR, newInner, 101);
        JoinPoint.StaticPart goExec = fInner.makeESJP(EXECUTION, goSig, 105);
        JoinPoint.StaticPart nestedClinitSp = fNested.makeESJP(CLINIT, nestedClinit, 0);
        JoinPoint.StaticPart nestedPre = fNested.makeESJP(PREINIT, newNested, 110);
        JoinPoint.StaticPart nestedInit = fNested.makeESJP(INIT, newNested, 110);
        JoinPoint.StaticPart nestedExec = fNested.makeESJP(CONSTRUCTOR, newNested, 110);
        JoinPoint.StaticPart mExec = fNested.makeESJP(EXECUTION, mSig, 111);
        JoinPoint.StaticPart apiClinitSp = fApi.makeESJP(CLINIT, apiClinit, 0);
        JoinPoint.StaticPart defExec = fApi.makeESJP(EXECUTION, defSig, 122);
        JoinPoint.StaticPart utilExec = fApi.makeESJP(EXECUTION, utilSig, 125);
        JoinPoint.StaticPart implClinitSp = fImpl.makeESJP(CLINIT, implClinit, 0);
        JoinPoint.StaticPart implPre = fImpl.makeESJP(PREINIT, newImpl, 129);
        JoinPoint.StaticPart implInit = fImpl.makeESJP(INIT, newImpl, 129);
        JoinPoint.StaticPart implApiInit = fImpl.makeESJP(INIT, apiInit, 129);
        JoinPoint.StaticPart implExec = fImpl.makeESJP(CONSTRUCTOR, newImpl, 129);
        JoinPoint.StaticPart implCallExec = fImpl.makeESJP(EXECUTION, implCall, 130);
        JoinPoint.StaticPart anonClinitSp = fAnon.makeESJP(CLINIT, anonClinit, 0);
        JoinPoint.StaticPart anonPre = fAnon.makeESJP(PREINIT, newAnon, 42);
        JoinPoint.StaticPart anonInit = fAnon.makeESJP(INIT, newAnon, 42);
        JoinPoint.StaticPart anonApiInit = fAnon.makeESJP(INIT, apiInit, 42);
        JoinPoint.StaticPart anonExec = fAnon.makeESJP(CONSTRUCTOR, newAnon, 42);
        JoinPoint.StaticPart anonCallExec = fAnon.makeESJP(EXECUTION, anonCall, 43);
        JoinPoint.StaticPart oopsClinitSp = fOops.makeESJP(CLINIT, oopsClinit, 0);
        JoinPoint.StaticPart oopsPre = fOops.makeESJP(PREINIT, newOops, 115);
        JoinPoint.StaticPart oopsInit = fOops.makeESJP(INIT, newOops, 115);
        JoinPoint.StaticPart oopsExec = fOops.makeESJP(CONSTRUCTOR, newOops, 115);
        JoinPoint.StaticPart beforeStatExec = fWatch.makeESJP(ADVICE, beforeStat, 14);
        JoinPoint.StaticPart returnedExec = fWatch.makeESJP(ADVICE, returnedSig, 18);
        JoinPoint.StaticPart aroundExec = fWatch.makeESJP(ADVICE, aroundSig, 22);

        // The objects the program creates.
        Shapes s = new Shapes();
        Shapes s2 = new Shapes();
        Shapes.Inner inner = s.new Inner(4);
        Shapes.Nested nested = new Shapes.Nested();
        Shapes.ApiImpl impl = new Shapes.ApiImpl();
        java.lang.reflect.Constructor<?> anonNew = anonClass.getDeclaredConstructor();
        anonNew.setAccessible(true);
        Object anon = anonNew.newInstance();
        Shapes.Oops oops = new Shapes.Oops();
        Watch watch = new Watch();
        ArrayList<String> list = new ArrayList<String>();

        // Shapes.<clinit>
        e(clinit, null, NONE);
        d(f.makeSJP(SET, counterSig, 10), clinit, null, null, a(1));
        d(f.makeSJP(SET, gridSig, 15), clinit, null, null, a((Object) new long[][] {{0}}));
        // main: new Shapes()
        e(main, null, a((Object) new String[0]));
        d(f.makeSJP(NEW, newShapes, 30), main, null, null, NONE);
        d(shapesPre, shapesPre, null, null, NONE);
        e(shapesInit, s, NONE);
        e(stringExec, s, a("x"));
        d(f.makeSJP(SET, numsSig, 13), stringExec, s, s, a((Object) new int[2]));
        d(f.makeSJP(NEW, newArrayList, 14), stringExec, s, null, NONE);
        d(f.makeSJP(SET, listSig, 14), stringExec, s, s, a(list));
        d(f.makeSJP(SET, nameSig, 22), stringExec, s, s, a("x"));
        e(shapesExec, s, NONE);
        // s.run(3, "a", new int[] {1})
        Object[] runArgs = a(3, "a", new int[] {1});
        d(f.makeSJP(CALL, runSig, 31), main, null, s, runArgs);
        e(runExec, s, runArgs);
        // s.generic(new ArrayList<Integer>(), "t")
        d(f.makeSJP(NEW, newArrayList, 32), main, null, null, NONE);
        Object[] genericArgs = a(new ArrayList<Integer>(), "t");
        d(f.makeSJP(CALL, genericSig, 32), main, null, s, genericArgs);
        e(genericExec, s, genericArgs);
        // s.varargs("v", 1, 2)
        Object[] varargsArgs = a("v", new int[] {1, 2});
        d(f.makeSJP(CALL, varargsSig, 33), main, null, s, varargsArgs);
        e(varargsExec, s, varargsArgs);
        // arrays(new String[0][], new char[0])
        Object[] arraysArgs = a(new String[0][], new char[0]);
        d(f.makeSJP(CALL, arraysSig, 34), main, null, null, arraysArgs);
        e(arraysExec, null, arraysArgs);
        // s.new Inner(4): ajc's null check calls getClass()
        d(f.makeSJP(CALL, getClassSig, 35), main, null, s, NONE);
        Object[] innerArgs = a(s, 4);
        d(f.makeSJP(NEW, newInner, 35), main, null, null, innerArgs);
        e(innerClinitSp, null, NONE);
        d(innerPre, innerPre, null, null, innerArgs);
        e(innerInit, inner, innerArgs);
        e(innerExec, inner, innerArgs);
        d(fInner.makeSJP(SET, vSig, 102), innerExec, inner, inner, a(4));
        // in.go()
        d(f.makeSJP(CALL, goSig, 36), main, null, inner, NONE);
        e(goExec, inner, NONE);
        d(fInner.makeSJP(GET, vSig, 106), goExec, inner, inner, NONE);
        d(fInner.makeSJP(SET, vSig, 106), goExec, inner, inner, a(5));
        // new Nested().m(null)
        d(f.makeSJP(NEW, newNested, 37), main, null, null, NONE);
        e(nestedClinitSp, null, NONE);
        d(nestedPre, nestedPre, null, null, NONE);
        e(nestedInit, nested, NONE);
        e(nestedExec, nested, NONE);
        Object[] mArgs = a((Object) (Map.Entry<?, ?>[]) null);
        d(f.makeSJP(CALL, mSig, 37), main, null, nested, mArgs);
        e(mExec, nested, mArgs);
        // new ApiImpl()
        d(f.makeSJP(NEW, newImpl, 38), main, null, null, NONE);
        e(apiClinitSp, null, NONE);
        e(implClinitSp, null, NONE);
        d(implPre, implPre, null, null, NONE);
        e(implInit, impl, NONE);
        e(implApiInit, impl, NONE);
        e(implExec, impl, NONE);
        // api.call(5L), api.def(), Api.util()
        d(f.makeSJP(CALL, apiCall, 39), main, null, impl, a(5L));
        e(implCallExec, impl, a(5L));
        d(f.makeSJP(CALL, defSig, 40), main, null, impl, NONE);
        e(defExec, impl, NONE);
        d(f.makeSJP(CALL, utilSig, 41), main, null, null, NONE);
        e(utilExec, null, NONE);
        // new Api() { ... }, anon.call(6L)
        d(f.makeSJP(NEW, newAnon, 42), main, null, null, NONE);
        e(anonClinitSp, null, NONE);
        d(anonPre, anonPre, null, null, NONE);
        e(anonInit, anon, NONE);
        e(anonApiInit, anon, NONE);
        e(anonExec, anon, NONE);
        d(f.makeSJP(CALL, apiCall, 46), main, null, anon, a(6L));
        e(anonCallExec, anon, a(6L));
        // stat(1.5f, 2.0, (byte) 3, (short) 4, 'c', true), advised by Watch.beforeStat
        Object[] statArgs = a(1.5f, 2.0, (byte) 3, (short) 4, 'c', true);
        d(f.makeSJP(CALL, statSig, 47), main, null, null, statArgs);
        e(statExec, null, statArgs);
        e(beforeStatExec, watch, a(Factory.makeJP(statExec, null, null, statArgs), 1.5f));
        // s.fail(), caught
        d(f.makeSJP(CALL, failSig, 49), main, null, s, NONE);
        e(failExec, s, NONE);
        d(f.makeSJP(NEW, newIse, 91), failExec, s, null, a("boom"));
        d(f.makeSJP(HANDLER, catchIse, 50), main, null, null, a(new IllegalStateException("boom")));
        d(f.makeSJP(GET, counterSig, 51), main, null, null, NONE);
        d(f.makeSJP(SET, counterSig, 51), main, null, null, a(2));
        // new Shapes(1, "b"), which throws Oops
        Object[] ctorArgs = a(1, new String[] {"b"});
        d(f.makeSJP(NEW, newShapesVarargs, 54), main, null, null, ctorArgs);
        d(varargsPre, varargsPre, null, null, ctorArgs);
        e(varargsInit, s2, ctorArgs);
        e(varargsCtor, s2, ctorArgs);
        d(f.makeSJP(SET, numsSig, 13), varargsCtor, s2, s2, a((Object) new int[2]));
        d(f.makeSJP(NEW, newArrayList, 14), varargsCtor, s2, null, NONE);
        d(f.makeSJP(SET, listSig, 14), varargsCtor, s2, s2, a(list));
        d(f.makeSJP(NEW, newOops, 26), varargsCtor, s2, null, NONE);
        e(oopsClinitSp, null, NONE);
        d(oopsPre, oopsPre, null, null, NONE);
        e(oopsInit, oops, NONE);
        e(oopsExec, oops, NONE);
        d(f.makeSJP(HANDLER, catchOops, 55), main, null, null, a(oops));
        d(f.makeSJP(GET, counterSig, 56), main, null, null, NONE);
        d(f.makeSJP(SET, counterSig, 56), main, null, null, a(1));
        // Integer.parseInt("x"), caught
        d(f.makeSJP(CALL, parseIntSig, 59), main, null, null, a("x"));
        d(f.makeSJP(HANDLER, catchNfe, 60), main, null, null, a(new NumberFormatException()));
        d(f.makeSJP(GET, counterSig, 61), main, null, null, NONE);
        d(f.makeSJP(SET, counterSig, 61), main, null, null, a(2));
        // int x = s.nums[0] + GRID.length + s.list.size();
        d(f.makeSJP(GET, numsSig, 63), main, null, s, NONE);
        d(f.makeSJP(GET, gridSig, 63), main, null, null, NONE);
        d(f.makeSJP(GET, listSig, 63), main, null, s, NONE);
        d(f.makeSJP(CALL, sizeSig, 63), main, null, list, NONE);
        // int[] copy = s.nums.clone();
        d(f.makeSJP(GET, numsSig, 64), main, null, s, NONE);
        d(f.makeSJP(CALL, cloneSig, 64), main, null, new int[2], NONE);
        // s.name = String.valueOf(x + copy.length);
        d(f.makeSJP(CALL, valueOfSig, 65), main, null, null, a(3));
        d(f.makeSJP(SET, nameSig, 65), main, null, s, a("3"));
        // Object out = System.out;
        d(f.makeSJP(GET, outSig, 66), main, null, null, NONE);
        // s.twice(21), with Watch.around at the execution and Watch.returned after the call
        d(f.makeSJP(CALL, twiceSig, 67), main, null, s, a(21));
        e(twiceExec, s, a(21));
        ProceedingJoinPoint pjp = Factory.makePJP(twiceExec, s, s, a(21), new MethodHandleClosure(
                MethodHandles.lookup().findStatic(Driver.class, "proceedTwice",
                        MethodType.methodType(Object.class, Object[].class))));
        e(aroundExec, watch, a(pjp));
        d(fWatch.makeSJP(CALL, proceedSig, 23), aroundExec, watch, pjp, NONE);
        Object result = watch.around(pjp);
        e(returnedExec, watch, a(result));
    }
}
