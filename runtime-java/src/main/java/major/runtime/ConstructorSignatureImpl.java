package major.runtime;

import java.lang.reflect.Constructor;
import org.aspectj.lang.reflect.ConstructorSignature;

/** The signature of a constructor. */
final class ConstructorSignatureImpl extends CodeSignatureImpl implements ConstructorSignature {
    private volatile Constructor<?> constructor;
    private volatile boolean searched;

    ConstructorSignatureImpl(int modifiers, String declaringType, String descriptor,
            String parameterNames, String exceptionTypes, ClassLoader loader) {
        super(modifiers, "<init>", declaringType, descriptor, parameterNames, exceptionTypes, loader);
    }

    @Override
    void render(StringBuilder b, int form) {
        if (form == SHORT) {
            Names.append(b, declaringTypeName, false);
            Names.appendShortList(b, parameterTypeNames());
            return;
        }
        boolean full = form == LONG;
        if (full) {
            appendModifiers(b);
        }
        Names.append(b, declaringTypeName, true);
        Names.appendList(b, parameterTypeNames(), full);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Constructor getConstructor() {
        if (!searched) {
            constructor = Members.findConstructor(getDeclaringType(), parameterClasses());
            searched = true;
        }
        return constructor;
    }
}
