package major.runtime;

import java.lang.annotation.Annotation;
import java.lang.invoke.CallSite;
import java.lang.invoke.ConstantCallSite;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ConcurrentHashMap;

import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.Signature;

/**
 * Bootstrap methods that create the static state woven code needs (join-point
 * static parts, the annotations {@code @annotation(a)} binds) lazily, in the woven
 * class itself: no field, no initializer and no extra class is added to it.
 *
 * <p>Class files of version 55 and later load each value with {@code ldc} of a
 * dynamically computed constant ({@code CONSTANT_Dynamic}) resolved by
 * {@link #staticPart}; versions 51 to 54 call an {@code invokedynamic} site linked
 * by {@link #staticPartSite} to a constant. Either way the value is created the
 * first time the woven code needs it, by the woven class's own class loader, and
 * a static part is one object per shadow: parts are kept per class and id, so
 * every site that loads the same shadow's part gets the same object.
 *
 * <p>A static part's static arguments are: id ({@code Integer}), join-point kind,
 * source file name, line ({@code Integer}), signature kind ({@code method},
 * {@code constructor}, {@code field}, {@code initializer}, {@code catch}), then
 * the signature's own arguments as {@link Factory} takes them (modifiers as an
 * {@code Integer} first, except for {@code catch}).
 */
public final class StaticParts {
    private StaticParts() {
    }

    /** The static parts made so far, per woven class, by id. */
    private static final ClassValue<ConcurrentHashMap<Integer, JoinPoint.StaticPart>> PARTS =
            new ClassValue<ConcurrentHashMap<Integer, JoinPoint.StaticPart>>() {
                @Override
                protected ConcurrentHashMap<Integer, JoinPoint.StaticPart> computeValue(Class<?> type) {
                    return new ConcurrentHashMap<Integer, JoinPoint.StaticPart>();
                }
            };

    /**
     * Resolves a dynamically computed constant: the static part described by
     * {@code spec} of the class {@code lookup} belongs to.
     *
     * @param lookup the woven class's lookup
     * @param name the constant's name (unused)
     * @param type the constant's type ({@code JoinPoint.StaticPart})
     * @param spec the static arguments, as the class comment says
     * @return the static part
     */
    public static Object staticPart(MethodHandles.Lookup lookup, String name, Class<?> type, Object... spec) {
        return part(lookup.lookupClass(), spec);
    }

    /**
     * Links a call site {@code ()JoinPoint$StaticPart} to the static part
     * described by {@code spec}, as a constant.
     *
     * @param lookup the woven class's lookup
     * @param name the call site's name (unused)
     * @param type the call site's type
     * @param spec the static arguments, as the class comment says
     * @return a constant call site
     */
    public static CallSite staticPartSite(MethodHandles.Lookup lookup, String name, MethodType type,
            Object... spec) {
        Object part = part(lookup.lookupClass(), spec);
        return new ConstantCallSite(MethodHandles.constant(type.returnType(), part));
    }

    /**
     * Resolves a dynamically computed constant: the annotation of type
     * {@code annotationType} on member {@code name} {@code descriptor} of
     * {@code declaring} ({@code null} when absent), as
     * {@link Factory#annotation} finds it.
     *
     * @param lookup the woven class's lookup
     * @param name the constant's name (unused)
     * @param type the constant's type
     * @param declaring the member's class
     * @param member the member's name
     * @param descriptor the member's descriptor
     * @param annotationType the annotation type
     * @return the annotation or {@code null}
     */
    public static Object annotation(MethodHandles.Lookup lookup, String name, Class<?> type, Class<?> declaring,
            String member, String descriptor, Class<?> annotationType) {
        return Factory.annotation(declaring, member, descriptor, annotationType.asSubclass(Annotation.class));
    }

    /**
     * Links a call site returning {@link #annotation}'s value as a constant.
     *
     * @param lookup the woven class's lookup
     * @param name the call site's name (unused)
     * @param type the call site's type
     * @param declaring the member's class
     * @param member the member's name
     * @param descriptor the member's descriptor
     * @param annotationType the annotation type
     * @return a constant call site
     */
    public static CallSite annotationSite(MethodHandles.Lookup lookup, String name, MethodType type,
            Class<?> declaring, String member, String descriptor, Class<?> annotationType) {
        Annotation a = Factory.annotation(declaring, member, descriptor, annotationType.asSubclass(Annotation.class));
        return new ConstantCallSite(MethodHandles.constant(type.returnType(), a));
    }

    private static JoinPoint.StaticPart part(Class<?> woven, Object[] spec) {
        int id = (Integer) spec[0];
        ConcurrentHashMap<Integer, JoinPoint.StaticPart> parts = PARTS.get(woven);
        JoinPoint.StaticPart p = parts.get(id);
        if (p == null) {
            p = make(woven, spec);
            JoinPoint.StaticPart earlier = parts.putIfAbsent(id, p);
            if (earlier != null) {
                p = earlier;
            }
        }
        return p;
    }

    private static JoinPoint.StaticPart make(Class<?> woven, Object[] spec) {
        int id = (Integer) spec[0];
        String kind = (String) spec[1];
        Factory f = new Factory((String) spec[2], woven);
        int line = (Integer) spec[3];
        String sigKind = (String) spec[4];
        Signature sig;
        if (sigKind.equals("catch")) {
            sig = f.makeCatchClauseSig(s(spec, 5), s(spec, 6), s(spec, 7));
        } else {
            int modifiers = (Integer) spec[5];
            if (sigKind.equals("method")) {
                sig = f.makeMethodSig(modifiers, s(spec, 6), s(spec, 7), s(spec, 8), s(spec, 9), s(spec, 10));
            } else if (sigKind.equals("constructor")) {
                sig = f.makeConstructorSig(modifiers, s(spec, 6), s(spec, 7), s(spec, 8), s(spec, 9));
            } else if (sigKind.equals("field")) {
                sig = f.makeFieldSig(modifiers, s(spec, 6), s(spec, 7), s(spec, 8));
            } else if (sigKind.equals("initializer")) {
                sig = f.makeInitializerSig(modifiers, s(spec, 6));
            } else if (sigKind.equals("advice")) {
                sig = f.makeAdviceSig(modifiers, s(spec, 6), s(spec, 7), s(spec, 8), s(spec, 9), s(spec, 10),
                        s(spec, 11));
            } else {
                throw new IllegalArgumentException("unknown signature kind " + sigKind);
            }
        }
        return f.makeSJP(id, kind, sig, line);
    }

    private static String s(Object[] spec, int i) {
        return (String) spec[i];
    }
}
