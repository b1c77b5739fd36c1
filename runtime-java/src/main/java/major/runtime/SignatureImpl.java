package major.runtime;

import java.lang.reflect.Modifier;
import org.aspectj.lang.Signature;

/**
 * What every signature has: modifiers, name, declaring type, and the three string
 * forms, built from names on first use and then kept.
 */
abstract class SignatureImpl implements Signature {
    static final int SHORT = 0;
    static final int MIDDLE = 1;
    static final int LONG = 2;

    final int modifiers;
    final String name;
    final String declaringTypeName;
    final ClassLoader loader;

    private volatile String shortString;
    private volatile String middleString;
    private volatile String longString;
    private volatile Class<?> declaringType;

    SignatureImpl(int modifiers, String name, String declaringTypeName, ClassLoader loader) {
        this.modifiers = modifiers;
        this.name = name;
        this.declaringTypeName = Names.binary(declaringTypeName);
        this.loader = loader;
    }

    /** Appends the string form {@code form} ({@link #SHORT}, {@link #MIDDLE} or {@link #LONG}). */
    abstract void render(StringBuilder b, int form);

    private String make(int form) {
        StringBuilder b = new StringBuilder(64);
        render(b, form);
        return b.toString();
    }

    /** Appends the modifiers and a space, if there are any. */
    final void appendModifiers(StringBuilder b) {
        String m = Modifier.toString(modifiers);
        if (!m.isEmpty()) {
            b.append(m).append(' ');
        }
    }

    @Override
    public final String toString() {
        String s = middleString;
        if (s == null) {
            s = make(MIDDLE);
            middleString = s;
        }
        return s;
    }

    @Override
    public final String toShortString() {
        String s = shortString;
        if (s == null) {
            s = make(SHORT);
            shortString = s;
        }
        return s;
    }

    @Override
    public final String toLongString() {
        String s = longString;
        if (s == null) {
            s = make(LONG);
            longString = s;
        }
        return s;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public int getModifiers() {
        return modifiers;
    }

    @Override
    @SuppressWarnings("rawtypes")
    public final Class getDeclaringType() {
        Class<?> c = declaringType;
        if (c == null) {
            c = Names.resolve(declaringTypeName, loader);
            declaringType = c;
        }
        return c;
    }

    @Override
    public final String getDeclaringTypeName() {
        return declaringTypeName;
    }

    /** Loads a type name with the signature's class loader. */
    final Class<?> load(String type) {
        return Names.resolve(type, loader);
    }
}
