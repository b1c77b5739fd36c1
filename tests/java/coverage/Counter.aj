import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Map;
import java.util.TreeMap;
import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.reflect.CodeSignature;
import org.aspectj.lang.reflect.MethodSignature;

/**
 * Counts every execution (methods, constructors, static initializers) in app,
 * keyed like the JVMTI oracle: internal class name, method name, descriptor;
 * writes the counts to the file named by the system property counter.out.
 */
aspect Counter {
    private static final Map<String, long[]> counts = new TreeMap<String, long[]>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(new Runnable() {
            public void run() {
                dump();
            }
        }));
    }

    static String descriptor(Class<?> c) {
        if (c.isArray()) {
            return c.getName().replace('.', '/');
        }
        if (c.isPrimitive()) {
            if (c == void.class) return "V";
            if (c == int.class) return "I";
            if (c == long.class) return "J";
            if (c == double.class) return "D";
            if (c == float.class) return "F";
            if (c == boolean.class) return "Z";
            if (c == char.class) return "C";
            if (c == short.class) return "S";
            return "B";
        }
        return "L" + c.getName().replace('.', '/') + ";";
    }

    static String key(JoinPoint.StaticPart sp) {
        String owner = sp.getSignature().getDeclaringTypeName().replace('.', '/');
        if (sp.getKind().equals(JoinPoint.STATICINITIALIZATION)) {
            return owner + ".<clinit>()V";
        }
        StringBuilder d = new StringBuilder("(");
        for (Class<?> p : ((CodeSignature) sp.getSignature()).getParameterTypes()) {
            d.append(descriptor(p));
        }
        d.append(')');
        boolean method = sp.getSignature() instanceof MethodSignature;
        d.append(method ? descriptor(((MethodSignature) sp.getSignature()).getReturnType()) : "V");
        return owner + "." + (method ? sp.getSignature().getName() : "<init>") + d;
    }

    before(): (execution(* app..*(..)) || execution(app..*.new(..)) || staticinitialization(app..*))
            && !within(Counter) {
        String k = key(thisJoinPointStaticPart);
        synchronized (counts) {
            long[] n = counts.get(k);
            if (n == null) {
                counts.put(k, n = new long[1]);
            }
            n[0]++;
        }
    }

    static void dump() {
        try (PrintWriter w = new PrintWriter(new FileWriter(System.getProperty("counter.out")))) {
            synchronized (counts) {
                for (Map.Entry<String, long[]> e : counts.entrySet()) {
                    w.println(e.getValue()[0] + " " + e.getKey());
                }
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }
}
