package dump;

import java.lang.reflect.Array;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Callable;
import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.Signature;
import org.aspectj.lang.reflect.AdviceSignature;
import org.aspectj.lang.reflect.CatchClauseSignature;
import org.aspectj.lang.reflect.CodeSignature;
import org.aspectj.lang.reflect.ConstructorSignature;
import org.aspectj.lang.reflect.FieldSignature;
import org.aspectj.lang.reflect.InitializerSignature;
import org.aspectj.lang.reflect.LockSignature;
import org.aspectj.lang.reflect.MemberSignature;
import org.aspectj.lang.reflect.MethodSignature;
import org.aspectj.lang.reflect.SourceLocation;
import org.aspectj.lang.reflect.UnlockSignature;

/**
 * Prints everything observable about a join point as one block of "key=value"
 * lines. Compiled twice: against AspectJ's aspectjrt.jar (called from an ajc-woven
 * program) and against major's runtime (called from a driver that builds the same
 * join points through major.runtime.Factory). The two outputs must be identical.
 * Identical blocks are printed once.
 */
public final class Dump {
    private Dump() {
    }

    private static final Set<String> SEEN = new HashSet<String>();

    /** A value that prints the same whichever runtime made it. */
    public static String repr(Object o) {
        if (o == null) {
            return "null";
        }
        if (o instanceof JoinPoint) {
            return "jp:" + o + (o instanceof ProceedingJoinPoint ? " (proceeding)" : "");
        }
        if (o instanceof JoinPoint.StaticPart) {
            return "sp:" + o;
        }
        if (o instanceof String) {
            return "\"" + o + "\"";
        }
        if (o instanceof Number || o instanceof Boolean || o instanceof Character) {
            return o.getClass().getSimpleName() + ":" + o;
        }
        if (o.getClass().isArray()) {
            StringBuilder b = new StringBuilder(o.getClass().getName()).append('{');
            for (int i = 0; i < Array.getLength(o); i++) {
                b.append(i > 0 ? ", " : "").append(repr(Array.get(o, i)));
            }
            return b.append('}').toString();
        }
        if (o instanceof Class) {
            return "class:" + ((Class<?>) o).getName();
        }
        return "a " + o.getClass().getName();
    }

    private static String g(Callable<Object> c) {
        try {
            Object o = c.call();
            if (o instanceof Class) {
                return ((Class<?>) o).getName();
            }
            if (o instanceof Class[]) {
                StringBuilder b = new StringBuilder("[");
                for (Class<?> k : (Class<?>[]) o) {
                    b.append(b.length() > 1 ? ", " : "").append(k == null ? "null" : k.getName());
                }
                return b.append(']').toString();
            }
            if (o instanceof String[]) {
                StringBuilder b = new StringBuilder("[");
                for (String s : (String[]) o) {
                    b.append(b.length() > 1 ? ", " : "").append(s);
                }
                return b.append(']').toString();
            }
            if (o instanceof Object[]) {
                return repr(o);
            }
            return String.valueOf(o);
        } catch (Throwable t) {
            return "!" + t.getClass().getName();
        }
    }

    private static void line(StringBuilder b, String key, String value) {
        b.append(key).append('=').append(value).append('\n');
    }

    /** Prints the block of one join point. */
    public static void jp(final JoinPoint jp, final JoinPoint.StaticPart sp, final JoinPoint.StaticPart esp) {
        final Signature s = jp.getSignature();
        StringBuilder b = new StringBuilder("== join point\n");
        line(b, "kind", g(new Callable<Object>() { public Object call() { return jp.getKind(); } }));
        line(b, "jp.toString", g(new Callable<Object>() { public Object call() { return jp.toString(); } }));
        line(b, "jp.toShortString", g(new Callable<Object>() { public Object call() { return jp.toShortString(); } }));
        line(b, "jp.toLongString", g(new Callable<Object>() { public Object call() { return jp.toLongString(); } }));
        line(b, "sp.same", g(new Callable<Object>() { public Object call() {
            return sp == jp.getStaticPart() && sp.toString().equals(jp.toString())
                    && sp.toShortString().equals(jp.toShortString()) && sp.toLongString().equals(jp.toLongString())
                    && sp.getKind().equals(jp.getKind()) && sp.getSignature() == s
                    && sp.getSourceLocation() == jp.getSourceLocation();
        } }));
        line(b, "sig.toString", g(new Callable<Object>() { public Object call() { return s.toString(); } }));
        line(b, "sig.toShortString", g(new Callable<Object>() { public Object call() { return s.toShortString(); } }));
        line(b, "sig.toLongString", g(new Callable<Object>() { public Object call() { return s.toLongString(); } }));
        line(b, "sig.name", g(new Callable<Object>() { public Object call() { return s.getName(); } }));
        line(b, "sig.declaringTypeName", g(new Callable<Object>() { public Object call() { return s.getDeclaringTypeName(); } }));
        line(b, "sig.modifiers", g(new Callable<Object>() { public Object call() { return s.getModifiers(); } }));
        line(b, "sig.declaringType", g(new Callable<Object>() { public Object call() { return s.getDeclaringType(); } }));
        StringBuilder kinds = new StringBuilder();
        if (s instanceof MemberSignature) kinds.append(" member");
        if (s instanceof CodeSignature) kinds.append(" code");
        if (s instanceof MethodSignature) kinds.append(" method");
        if (s instanceof ConstructorSignature) kinds.append(" constructor");
        if (s instanceof InitializerSignature) kinds.append(" initializer");
        if (s instanceof AdviceSignature) kinds.append(" advice");
        if (s instanceof FieldSignature) kinds.append(" field");
        if (s instanceof CatchClauseSignature) kinds.append(" catch");
        if (s instanceof LockSignature) kinds.append(" lock");
        if (s instanceof UnlockSignature) kinds.append(" unlock");
        line(b, "sig.interfaces", kinds.toString().trim());
        if (s instanceof CodeSignature) {
            final CodeSignature c = (CodeSignature) s;
            line(b, "code.parameterTypes", g(new Callable<Object>() { public Object call() { return c.getParameterTypes(); } }));
            line(b, "code.parameterNames", g(new Callable<Object>() { public Object call() { return c.getParameterNames(); } }));
            line(b, "code.exceptionTypes", g(new Callable<Object>() { public Object call() { return c.getExceptionTypes(); } }));
        }
        if (s instanceof MethodSignature) {
            final MethodSignature m = (MethodSignature) s;
            line(b, "method.returnType", g(new Callable<Object>() { public Object call() { return m.getReturnType(); } }));
            line(b, "method.method", g(new Callable<Object>() { public Object call() { return m.getMethod(); } }));
        }
        if (s instanceof ConstructorSignature) {
            final ConstructorSignature c = (ConstructorSignature) s;
            line(b, "constructor.constructor", g(new Callable<Object>() { public Object call() { return c.getConstructor(); } }));
        }
        if (s instanceof InitializerSignature) {
            final InitializerSignature i = (InitializerSignature) s;
            line(b, "initializer.initializer", g(new Callable<Object>() { public Object call() { return i.getInitializer(); } }));
        }
        if (s instanceof AdviceSignature) {
            final AdviceSignature a = (AdviceSignature) s;
            line(b, "advice.returnType", g(new Callable<Object>() { public Object call() { return a.getReturnType(); } }));
            line(b, "advice.advice", g(new Callable<Object>() { public Object call() { return a.getAdvice(); } }));
        }
        if (s instanceof FieldSignature) {
            final FieldSignature f = (FieldSignature) s;
            line(b, "field.fieldType", g(new Callable<Object>() { public Object call() { return f.getFieldType(); } }));
            line(b, "field.field", g(new Callable<Object>() { public Object call() { return f.getField(); } }));
        }
        if (s instanceof CatchClauseSignature) {
            final CatchClauseSignature c = (CatchClauseSignature) s;
            line(b, "catch.parameterType", g(new Callable<Object>() { public Object call() { return c.getParameterType(); } }));
            line(b, "catch.parameterName", g(new Callable<Object>() { public Object call() { return c.getParameterName(); } }));
        }
        final SourceLocation l = jp.getSourceLocation();
        line(b, "loc", g(new Callable<Object>() { public Object call() { return l.toString(); } }));
        line(b, "loc.fileName", g(new Callable<Object>() { public Object call() { return l.getFileName(); } }));
        line(b, "loc.line", g(new Callable<Object>() { public Object call() { return l.getLine(); } }));
        line(b, "loc.withinType", g(new Callable<Object>() { public Object call() { return l.getWithinType(); } }));
        line(b, "loc.column", g(new Callable<Object>() { @SuppressWarnings("deprecation") public Object call() { return l.getColumn(); } }));
        line(b, "this", repr(jp.getThis()));
        line(b, "target", repr(jp.getTarget()));
        line(b, "this==target", String.valueOf(jp.getThis() == jp.getTarget()));
        line(b, "args", g(new Callable<Object>() { public Object call() { return jp.getArgs(); } }));
        line(b, "args.fresh", g(new Callable<Object>() { public Object call() { return jp.getArgs() != jp.getArgs(); } }));
        line(b, "esp.kind", g(new Callable<Object>() { public Object call() { return esp.getKind(); } }));
        line(b, "esp.toString", g(new Callable<Object>() { public Object call() { return esp.toString(); } }));
        line(b, "esp.toShortString", g(new Callable<Object>() { public Object call() { return esp.toShortString(); } }));
        line(b, "esp.toLongString", g(new Callable<Object>() { public Object call() { return esp.toLongString(); } }));
        line(b, "esp.loc", g(new Callable<Object>() { public Object call() { return esp.getSourceLocation(); } }));
        line(b, "esp==sp", String.valueOf(esp == sp));
        String block = b.toString();
        synchronized (SEEN) {
            if (!SEEN.add(block)) {
                return;
            }
        }
        System.out.print(block);
        System.out.flush();
    }
}
