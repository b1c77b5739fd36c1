package major.runtime;

import java.lang.reflect.Method;
import org.aspectj.lang.reflect.AdviceSignature;

/**
 * The signature of an advice method. As in AspectJ, the string forms show no
 * modifiers, and an ajc-style method name {@code ajc$before$...} shows as
 * {@code before}.
 */
final class AdviceSignatureImpl extends CodeSignatureImpl implements AdviceSignature {
    private volatile Class<?> returnType;
    private volatile Method advice;
    private volatile boolean adviceSearched;
    /** The name the string forms show, when the factory was given one. */
    String shown;

    AdviceSignatureImpl(int modifiers, String name, String declaringType, String descriptor,
            String parameterNames, String exceptionTypes, ClassLoader loader) {
        super(modifiers, name, declaringType, descriptor, parameterNames, exceptionTypes, loader);
    }

    /** The name shown in the string forms. */
    private String displayName() {
        if (shown != null) {
            return shown;
        }
        if (name.startsWith("ajc$")) {
            int end = name.indexOf('$', 4);
            return end < 0 ? name.substring(4) : name.substring(4, end);
        }
        return name;
    }

    @Override
    void render(StringBuilder b, int form) {
        if (form == SHORT) {
            Names.append(b, declaringTypeName, false);
            b.append('.').append(displayName());
            Names.appendShortList(b, parameterTypeNames());
            return;
        }
        boolean full = form == LONG;
        Names.append(b, Names.returnType(descriptor), full);
        b.append(' ');
        Names.append(b, declaringTypeName, true);
        b.append('.').append(displayName());
        Names.appendList(b, parameterTypeNames(), full);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class getReturnType() {
        Class<?> c = returnType;
        if (c == null) {
            c = load(Names.returnType(descriptor));
            returnType = c;
        }
        return c;
    }

    @Override
    public Method getAdvice() {
        if (!adviceSearched) {
            advice = Members.findMethod(getDeclaringType(), name, parameterClasses());
            adviceSearched = true;
        }
        return advice;
    }
}
