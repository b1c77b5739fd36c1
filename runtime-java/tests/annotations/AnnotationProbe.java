import java.lang.annotation.Annotation;
import java.lang.annotation.Documented;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Comparator;

/**
 * Prints the retention, targets, elements and defaults of the annotation-style
 * annotations, read by reflection. Compiled unchanged against AspectJ's runtime and
 * against major's: the outputs must be equal.
 */
public class AnnotationProbe {
    public static void main(String[] args) throws Exception {
        String[] names = {"Aspect", "Pointcut", "Before", "After", "AfterReturning", "AfterThrowing", "Around",
            "DeclarePrecedence", "DeclareWarning", "DeclareError", "AdviceName", "SuppressAjWarnings"};
        for (String name : names) {
            Class<?> c = Class.forName("org.aspectj.lang.annotation." + name);
            Retention r = c.getAnnotation(Retention.class);
            Target t = c.getAnnotation(Target.class);
            System.out.println(name + ": annotation=" + c.isAnnotation() + " retention=" + (r == null ? null : r.value())
                    + " target=" + (t == null ? null : Arrays.toString(t.value())) + " documented="
                    + c.isAnnotationPresent(Documented.class) + " inherited=" + c.isAnnotationPresent(Inherited.class));
            Method[] methods = c.getDeclaredMethods();
            Arrays.sort(methods, new Comparator<Method>() {
                public int compare(Method a, Method b) {
                    return a.getName().compareTo(b.getName());
                }
            });
            for (Method m : methods) {
                Object d = m.getDefaultValue();
                System.out.println("  " + m.getReturnType().getSimpleName() + " " + m.getName() + "() default "
                        + (d instanceof Object[] ? Arrays.toString((Object[]) d) : d == null ? "none" : "\"" + d + "\""));
            }
        }
        Annotation[] none = AnnotationProbe.class.getAnnotations();
        System.out.println("done " + none.length);
    }
}
