package major.runtime;

import java.lang.reflect.Constructor;
import java.lang.reflect.Modifier;
import org.aspectj.lang.reflect.InitializerSignature;

/** The signature of an initializer: {@code <clinit>} when static, else {@code <init>}. */
final class InitializerSignatureImpl extends CodeSignatureImpl implements InitializerSignature {
    private volatile Constructor<?> initializer;
    private volatile boolean searched;

    InitializerSignatureImpl(int modifiers, String declaringType, ClassLoader loader) {
        super(modifiers, Modifier.isStatic(modifiers) ? "<clinit>" : "<init>", declaringType, null, "", "", loader);
    }

    @Override
    void render(StringBuilder b, int form) {
        if (form == LONG) {
            appendModifiers(b);
        }
        Names.append(b, declaringTypeName, form != SHORT);
        b.append('.').append(name);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Constructor getInitializer() {
        if (!searched) {
            initializer = Members.findConstructor(getDeclaringType(), parameterClasses());
            searched = true;
        }
        return initializer;
    }
}
