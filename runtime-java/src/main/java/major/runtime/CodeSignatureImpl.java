package major.runtime;

import org.aspectj.lang.reflect.CodeSignature;

/** A signature with parameters and exceptions, from a JVM method descriptor. */
abstract class CodeSignatureImpl extends SignatureImpl implements CodeSignature {
    private static final Class<?>[] NO_CLASSES = new Class<?>[0];

    /** The JVM descriptor, or null for none (an initializer). */
    final String descriptor;
    private final String parameterNameList;
    private final String exceptionTypeList;

    private volatile String[] parameterTypeNames;
    private volatile String[] parameterNames;
    private volatile Class<?>[] parameterTypes;
    private volatile Class<?>[] exceptionTypes;

    CodeSignatureImpl(int modifiers, String name, String declaringType, String descriptor,
            String parameterNames, String exceptionTypes, ClassLoader loader) {
        super(modifiers, name, declaringType, loader);
        this.descriptor = descriptor;
        this.parameterNameList = parameterNames;
        this.exceptionTypeList = exceptionTypes;
    }

    /** The parameter types as type names (shared: do not change). */
    final String[] parameterTypeNames() {
        String[] t = parameterTypeNames;
        if (t == null) {
            t = descriptor == null ? Names.NO_STRINGS : Names.parameterTypes(descriptor);
            parameterTypeNames = t;
        }
        return t;
    }

    @Override
    @SuppressWarnings("rawtypes")
    public final Class[] getParameterTypes() {
        Class<?>[] c = parameterTypes;
        if (c == null) {
            c = Names.resolveAll(parameterTypeNames(), loader);
            parameterTypes = c;
        }
        return c.length == 0 ? c : c.clone();
    }

    @Override
    public final String[] getParameterNames() {
        String[] n = parameterNames;
        if (n == null) {
            n = Names.split(parameterNameList);
            int count = parameterTypeNames().length;
            if (n.length == 0 && count > 0) {
                n = new String[count];
                for (int i = 0; i < count; i++) {
                    n[i] = "arg" + i;
                }
            }
            parameterNames = n;
        }
        return n.length == 0 ? n : n.clone();
    }

    @Override
    @SuppressWarnings("rawtypes")
    public final Class[] getExceptionTypes() {
        Class<?>[] c = exceptionTypes;
        if (c == null) {
            String[] names = Names.splitTypes(exceptionTypeList);
            c = names.length == 0 ? NO_CLASSES : Names.resolveAll(names, loader);
            exceptionTypes = c;
        }
        return c.length == 0 ? c : c.clone();
    }

    /** The parameter types, resolved, without copying (shared: do not change). */
    final Class<?>[] parameterClasses() {
        Class<?>[] c = parameterTypes;
        if (c == null) {
            getParameterTypes();
            c = parameterTypes;
        }
        return c;
    }
}
