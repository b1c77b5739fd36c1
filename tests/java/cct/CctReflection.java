import java.lang.reflect.Constructor;
import java.lang.reflect.Method;

/**
 * Reflection: 20 calls through Method.invoke (on JDK 17 the first 15 go
 * through the native accessor, then a generated one), and 5 constructions
 * through Constructor.newInstance.
 */
public class CctReflection {
    static int total;

    public static int work(int x) {
        total += x;
        return helper(x);
    }

    static int helper(int x) {
        return x + 1;
    }

    public static class Made {
        public Made() {
            total++;
        }
    }

    public static void main(String[] args) throws Exception {
        Method m = CctReflection.class.getMethod("work", int.class);
        for (int i = 0; i < 20; i++) {
            m.invoke(null, i);
        }
        Constructor<Made> c = Made.class.getConstructor();
        for (int i = 0; i < 5; i++) {
            c.newInstance();
        }
        if (total != 190 + 5) {
            throw new AssertionError("total " + total);
        }
    }
}
