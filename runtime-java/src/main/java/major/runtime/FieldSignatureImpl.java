package major.runtime;

import java.lang.reflect.Field;
import org.aspectj.lang.reflect.FieldSignature;

/** The signature of a field. */
final class FieldSignatureImpl extends SignatureImpl implements FieldSignature {
    private final String fieldTypeName;
    private volatile Class<?> fieldType;
    private volatile Field field;
    private volatile boolean searched;

    FieldSignatureImpl(int modifiers, String name, String declaringType, String fieldDescriptor, ClassLoader loader) {
        super(modifiers, name, declaringType, loader);
        this.fieldTypeName = Names.fieldType(fieldDescriptor);
    }

    @Override
    void render(StringBuilder b, int form) {
        if (form == SHORT) {
            Names.append(b, declaringTypeName, false);
            b.append('.').append(name);
            return;
        }
        boolean full = form == LONG;
        if (full) {
            appendModifiers(b);
        }
        Names.append(b, fieldTypeName, full);
        b.append(' ');
        Names.append(b, declaringTypeName, true);
        b.append('.').append(name);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class getFieldType() {
        Class<?> c = fieldType;
        if (c == null) {
            c = load(fieldTypeName);
            fieldType = c;
        }
        return c;
    }

    @Override
    public Field getField() {
        if (!searched) {
            field = Members.findField(getDeclaringType(), name);
            searched = true;
        }
        return field;
    }
}
