package major.runtime;

import java.lang.reflect.Method;
import org.aspectj.lang.reflect.MethodSignature;

/** The signature of a method. */
final class MethodSignatureImpl extends CodeSignatureImpl implements MethodSignature {
    private volatile Class<?> returnType;
    private volatile Method method;
    private volatile boolean methodSearched;

    MethodSignatureImpl(int modifiers, String name, String declaringType, String descriptor,
            String parameterNames, String exceptionTypes, ClassLoader loader) {
        super(modifiers, name, declaringType, descriptor, parameterNames, exceptionTypes, loader);
    }

    @Override
    void render(StringBuilder b, int form) {
        if (form == SHORT) {
            Names.append(b, declaringTypeName, false);
            b.append('.').append(name);
            Names.appendShortList(b, parameterTypeNames());
            return;
        }
        boolean full = form == LONG;
        if (full) {
            appendModifiers(b);
        }
        Names.append(b, Names.returnType(descriptor), full);
        b.append(' ');
        Names.append(b, declaringTypeName, true);
        b.append('.').append(name);
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
    public Method getMethod() {
        if (!methodSearched) {
            method = Members.findMethod(getDeclaringType(), name, parameterClasses());
            methodSearched = true;
        }
        return method;
    }
}
