package major.runtime;

import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.Signature;
import org.aspectj.lang.reflect.AdviceSignature;
import org.aspectj.lang.reflect.CatchClauseSignature;
import org.aspectj.lang.reflect.ConstructorSignature;
import org.aspectj.lang.reflect.FieldSignature;
import org.aspectj.lang.reflect.InitializerSignature;
import org.aspectj.lang.reflect.LockSignature;
import org.aspectj.lang.reflect.MethodSignature;
import org.aspectj.lang.reflect.UnlockSignature;

/**
 * Makes the static parts, signatures and join points of one woven class, from what
 * the weaver reads in its class file.
 *
 * <p>Names are given as binary names ({@code a.b.Outer$Inner}; internal names with
 * {@code /} are accepted too, and arrays in the form of {@link Class#getName()},
 * {@code [I}), types as JVM descriptors, lists comma-separated ({@code ""} for
 * none). Nothing is loaded until a reflective method such as
 * {@code getParameterTypes()} asks; then classes are loaded with the lexical
 * class's class loader, without initializing them. The string forms never load
 * anything.
 *
 * <p>The modifiers are those AspectJ reports: the access flags of the member's
 * class file entry (so a varargs method shows {@code transient}, as in AspectJ).
 */
public final class Factory {
    private final String sourceFileName;
    private final Class<?> lexicalClass;
    private final ClassLoader loader;
    private int nextId;

    /**
     * A factory for the join points whose shadows are in {@code lexicalClass}.
     *
     * @param sourceFileName the class's source file name ({@code Foo.java}), as its
     *     {@code SourceFile} attribute says
     * @param lexicalClass the woven class: the source locations' "within type", and
     *     the class loader used to load the types signatures name
     */
    public Factory(String sourceFileName, Class<?> lexicalClass) {
        this.sourceFileName = sourceFileName;
        this.lexicalClass = lexicalClass;
        this.loader = lexicalClass == null ? null : lexicalClass.getClassLoader();
    }

    private synchronized int nextId() {
        return nextId++;
    }

    /**
     * A static part, with the next id of this factory (ids start at 0).
     *
     * @param kind one of the kind constants of {@link JoinPoint}
     * @param sig the signature
     * @param line the source line of the shadow (0 if unknown)
     * @return the static part
     */
    public JoinPoint.StaticPart makeSJP(String kind, Signature sig, int line) {
        return new StaticPartImpl(nextId(), StaticPartImpl.canonicalKind(kind), sig,
                new SourceLocationImpl(lexicalClass, sourceFileName, line));
    }

    /**
     * A static part with a given id (the weaver numbers a class's static parts;
     * created lazily, in whatever order the program reaches them).
     *
     * @param id the static part's id within its class
     * @param kind one of the kind constants of {@link JoinPoint}
     * @param sig the signature
     * @param line the source line of the shadow (0 if unknown)
     * @return the static part
     */
    public JoinPoint.StaticPart makeSJP(int id, String kind, Signature sig, int line) {
        return new StaticPartImpl(id, StaticPartImpl.canonicalKind(kind), sig,
                new SourceLocationImpl(lexicalClass, sourceFileName, line));
    }

    /**
     * An enclosing static part (what {@code thisEnclosingJoinPointStaticPart} gives),
     * with the next id of this factory.
     *
     * @param kind one of the kind constants of {@link JoinPoint}
     * @param sig the signature
     * @param line the source line (0 if unknown)
     * @return the enclosing static part
     */
    public JoinPoint.EnclosingStaticPart makeESJP(String kind, Signature sig, int line) {
        return new StaticPartImpl.Enclosing(nextId(), StaticPartImpl.canonicalKind(kind), sig,
                new SourceLocationImpl(lexicalClass, sourceFileName, line));
    }

    /**
     * A method signature.
     *
     * @param modifiers the method's access flags
     * @param name the method's name
     * @param declaringType binary name of the declaring class
     * @param descriptor the method's descriptor, {@code (I[Ljava/lang/String;)V}
     * @param parameterNames comma-separated parameter names ({@code ""}: unknown,
     *     {@code arg0, arg1, ...})
     * @param exceptionTypes comma-separated binary names of the declared exceptions
     * @return the signature
     */
    public MethodSignature makeMethodSig(int modifiers, String name, String declaringType, String descriptor,
            String parameterNames, String exceptionTypes) {
        return new MethodSignatureImpl(modifiers, name, declaringType, descriptor, parameterNames, exceptionTypes,
                loader);
    }

    /**
     * A constructor signature.
     *
     * @param modifiers the constructor's access flags
     * @param declaringType binary name of the declaring class
     * @param descriptor the constructor's descriptor (returning {@code V})
     * @param parameterNames comma-separated parameter names ({@code ""}: unknown)
     * @param exceptionTypes comma-separated binary names of the declared exceptions
     * @return the signature
     */
    public ConstructorSignature makeConstructorSig(int modifiers, String declaringType, String descriptor,
            String parameterNames, String exceptionTypes) {
        return new ConstructorSignatureImpl(modifiers, declaringType, descriptor, parameterNames, exceptionTypes,
                loader);
    }

    /**
     * A field signature.
     *
     * @param modifiers the field's access flags
     * @param name the field's name
     * @param declaringType binary name of the declaring class
     * @param fieldDescriptor the field's descriptor, {@code [J}
     * @return the signature
     */
    public FieldSignature makeFieldSig(int modifiers, String name, String declaringType, String fieldDescriptor) {
        return new FieldSignatureImpl(modifiers, name, declaringType, fieldDescriptor, loader);
    }

    /**
     * A catch clause signature.
     *
     * @param declaringType binary name of the class whose code has the handler
     * @param exceptionType binary name of the exception class caught
     * @param parameterName the catch parameter's name (AspectJ gives {@code <missing>})
     * @return the signature
     */
    public CatchClauseSignature makeCatchClauseSig(String declaringType, String exceptionType, String parameterName) {
        return new CatchClauseSignatureImpl(declaringType, exceptionType, parameterName, loader);
    }

    /**
     * An initializer signature: named {@code <clinit>} if {@code modifiers} has
     * {@code static}, else {@code <init>}.
     *
     * @param modifiers {@code static} for a static initializer, plus {@code interface}
     *     for an interface's as AspectJ does for member interfaces
     * @param declaringType binary name of the class
     * @return the signature
     */
    public InitializerSignature makeInitializerSig(int modifiers, String declaringType) {
        return new InitializerSignatureImpl(modifiers, declaringType, loader);
    }

    /**
     * An advice signature. The string forms show no modifiers, and an ajc-style name
     * {@code ajc$before$...} shows as {@code before}.
     *
     * @param modifiers the advice method's access flags
     * @param name the advice method's name
     * @param declaringType binary name of the aspect class
     * @param descriptor the advice method's descriptor
     * @param parameterNames comma-separated parameter names ({@code ""}: unknown)
     * @param exceptionTypes comma-separated binary names of the declared exceptions
     * @return the signature
     */
    public AdviceSignature makeAdviceSig(int modifiers, String name, String declaringType, String descriptor,
            String parameterNames, String exceptionTypes) {
        return new AdviceSignatureImpl(modifiers, name, declaringType, descriptor, parameterNames, exceptionTypes,
                loader);
    }

    /**
     * An advice signature whose string forms show {@code shown} (the advice kind,
     * {@code before}, {@code afterReturning}, ..., as ajc shows its advice methods)
     * instead of the method's name; {@code getName()} is still the method's name.
     *
     * @param modifiers the advice method's access flags
     * @param shown the name the string forms show
     * @param name the advice method's name
     * @param declaringType binary name of the aspect class
     * @param descriptor the advice method's descriptor
     * @param parameterNames comma-separated parameter names ({@code ""}: unknown)
     * @param exceptionTypes comma-separated binary names of the declared exceptions
     * @return the signature
     */
    public AdviceSignature makeAdviceSig(int modifiers, String shown, String name, String declaringType,
            String descriptor, String parameterNames, String exceptionTypes) {
        AdviceSignatureImpl s = new AdviceSignatureImpl(modifiers, name, declaringType, descriptor, parameterNames,
                exceptionTypes, loader);
        s.shown = shown;
        return s;
    }

    /**
     * The signature of a monitor acquisition: {@code lock(Object)}.
     *
     * @return the signature
     */
    public LockSignature makeLockSig() {
        return new MonitorSignatureImpl.Lock();
    }

    /**
     * The signature of a monitor release: {@code unlock(Object)}.
     *
     * @return the signature
     */
    public UnlockSignature makeUnlockSig() {
        return new MonitorSignatureImpl.Unlock();
    }

    /**
     * A join point, for before and after advice. As in AspectJ it is also a
     * {@link ProceedingJoinPoint}, whose {@code proceed} does nothing and returns
     * {@code null}. Asked for inside an around advice's {@code proceed} at the same
     * join point, it is the around advice's join point (one join point object per
     * join point, as in AspectJ: its arguments are those the join point started
     * with).
     *
     * @param sp its static part
     * @param thisObject the executing object, or {@code null}
     * @param target the target object, or {@code null}
     * @param args the arguments (kept, not copied; {@code null} for none)
     * @return the join point
     */
    public static JoinPoint makeJP(JoinPoint.StaticPart sp, Object thisObject, Object target, Object[] args) {
        return JoinPointImpl.make(sp, thisObject, target, args, null);
    }

    /**
     * A join point for around advice. Inside another around advice's {@code proceed}
     * at the same join point, it shows that join point's this, target and
     * arguments, and proceeds from the values given here.
     *
     * @param sp its static part
     * @param thisObject the executing object, or {@code null}
     * @param target the target object, or {@code null}
     * @param args the arguments (kept, not copied; {@code null} for none)
     * @param closure runs the rest of the join point
     * @return the join point
     */
    public static ProceedingJoinPoint makePJP(JoinPoint.StaticPart sp, Object thisObject, Object target,
            Object[] args, AroundClosure closure) {
        return JoinPointImpl.make(sp, thisObject, target, args, closure);
    }

    /**
     * A join point for around advice at a shadow whose other advice share
     * {@code shown}: it shows {@code shown}'s this, target and arguments (the
     * values the join point started with), proceeds from the values given here,
     * and hands {@code shown} on to the rest of the join point.
     *
     * @param sp its static part
     * @param thisObject the executing object, or {@code null}
     * @param target the target object, or {@code null}
     * @param args the arguments (kept, not copied; {@code null} for none)
     * @param closure runs the rest of the join point
     * @param shown the shadow's join point
     * @return the join point
     */
    public static ProceedingJoinPoint makePJP(JoinPoint.StaticPart sp, Object thisObject, Object target,
            Object[] args, JoinPointClosure closure, JoinPoint shown) {
        closure.link(shown);
        return JoinPointImpl.showing(sp, thisObject, target, args, closure, shown);
    }

    /**
     * The static part {@code sp} as an enclosing static part (what an
     * annotation-style advice's {@code JoinPoint.EnclosingStaticPart} parameter
     * gets): {@code sp} itself if it is one, else one view of it (always the same)
     * that prints and compares as it does.
     *
     * @param sp a static part made by a factory
     * @return the enclosing static part
     */
    public static JoinPoint.EnclosingStaticPart enclosing(JoinPoint.StaticPart sp) {
        if (sp instanceof JoinPoint.EnclosingStaticPart) {
            return (JoinPoint.EnclosingStaticPart) sp;
        }
        return ((StaticPartImpl) sp).asEnclosing();
    }

    /**
     * The annotation of type {@code type} on a member of {@code declaring}: the
     * method or constructor ({@code <init>}) {@code name} with the JVM
     * {@code descriptor}, or the field {@code name} when the descriptor is a field
     * descriptor, or the class itself (its declared annotation) when both name and
     * descriptor are empty. What {@code @annotation(a)} binds (and {@code @within(a)},
     * {@code @withincode(a)} for the enclosing class or member); the woven code asks once per
     * join point shadow and keeps the answer.
     *
     * @param declaring the class declaring the member
     * @param name its name
     * @param descriptor its JVM descriptor
     * @param type the annotation type
     * @return the annotation, or {@code null} if the member or annotation is not there
     */
    public static java.lang.annotation.Annotation annotation(Class<?> declaring, String name,
            String descriptor, Class<? extends java.lang.annotation.Annotation> type) {
        try {
            if (name.isEmpty() && descriptor.isEmpty()) {
                return declaring.getDeclaredAnnotation(type);
            }
            if (!descriptor.startsWith("(")) {
                return declaring.getDeclaredField(name).getAnnotation(type);
            }
            if (name.equals("<init>")) {
                for (java.lang.reflect.Constructor<?> c : declaring.getDeclaredConstructors()) {
                    if (descriptor.equals(descriptor(c.getParameterTypes(), void.class))) {
                        return c.getAnnotation(type);
                    }
                }
                return null;
            }
            for (java.lang.reflect.Method m : declaring.getDeclaredMethods()) {
                if (m.getName().equals(name)
                        && descriptor.equals(descriptor(m.getParameterTypes(), m.getReturnType()))) {
                    return m.getAnnotation(type);
                }
            }
        } catch (NoSuchFieldException e) {
            return null;
        } catch (RuntimeException e) {
            return null;
        } catch (LinkageError e) {
            return null;
        }
        return null;
    }

    private static String descriptor(Class<?>[] parameters, Class<?> result) {
        StringBuilder b = new StringBuilder("(");
        for (Class<?> p : parameters) {
            b.append(descriptor(p));
        }
        return b.append(')').append(descriptor(result)).toString();
    }

    private static String descriptor(Class<?> c) {
        if (c.isArray()) {
            return c.getName().replace('.', '/');
        }
        if (!c.isPrimitive()) {
            return "L" + c.getName().replace('.', '/') + ";";
        }
        if (c == void.class) {
            return "V";
        }
        if (c == boolean.class) {
            return "Z";
        }
        if (c == byte.class) {
            return "B";
        }
        if (c == char.class) {
            return "C";
        }
        if (c == short.class) {
            return "S";
        }
        if (c == int.class) {
            return "I";
        }
        if (c == long.class) {
            return "J";
        }
        return c == float.class ? "F" : "D";
    }
}
