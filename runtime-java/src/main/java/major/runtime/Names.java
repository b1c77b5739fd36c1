package major.runtime;

/**
 * Type names as the signatures keep them, and the strings built from them.
 *
 * <p>A type name is in the form of {@link Class#getName()}: {@code int},
 * {@code java.lang.String}, {@code a.b.Outer$Inner}, {@code [I},
 * {@code [Ljava.lang.String;}. The display forms replace {@code $} by {@code .} and
 * write arrays as {@code int[]}; the short display form drops the package. None of
 * this loads a class.
 */
final class Names {
    private Names() {
    }

    static final String[] NO_STRINGS = new String[0];

    /** Binary name from a binary or internal name ({@code a/b/C} to {@code a.b.C}). */
    static String binary(String name) {
        return name.indexOf('/') < 0 ? name : name.replace('/', '.');
    }

    /** Parameter types of a method descriptor, as type names. */
    static String[] parameterTypes(String descriptor) {
        int end = descriptor.indexOf(')');
        if (descriptor.isEmpty() || descriptor.charAt(0) != '(' || end < 0) {
            throw new IllegalArgumentException("not a method descriptor: " + descriptor);
        }
        int count = 0;
        int[] pos = {1};
        while (pos[0] < end) {
            skip(descriptor, pos);
            count++;
        }
        if (count == 0) {
            return NO_STRINGS;
        }
        String[] types = new String[count];
        pos[0] = 1;
        for (int i = 0; i < count; i++) {
            int start = pos[0];
            skip(descriptor, pos);
            types[i] = typeName(descriptor, start, pos[0]);
        }
        return types;
    }

    /** Return type of a method descriptor, as a type name. */
    static String returnType(String descriptor) {
        int start = descriptor.indexOf(')') + 1;
        if (start <= 0 || start >= descriptor.length()) {
            throw new IllegalArgumentException("not a method descriptor: " + descriptor);
        }
        return typeName(descriptor, start, descriptor.length());
    }

    /** The type of a field descriptor, as a type name. */
    static String fieldType(String descriptor) {
        int[] pos = {0};
        skip(descriptor, pos);
        if (pos[0] != descriptor.length()) {
            throw new IllegalArgumentException("not a field descriptor: " + descriptor);
        }
        return typeName(descriptor, 0, descriptor.length());
    }

    /** Moves {@code pos[0]} past one field type in {@code d}. */
    private static void skip(String d, int[] pos) {
        int i = pos[0];
        while (i < d.length() && d.charAt(i) == '[') {
            i++;
        }
        if (i >= d.length()) {
            throw new IllegalArgumentException("bad descriptor: " + d);
        }
        if (d.charAt(i) == 'L') {
            int semi = d.indexOf(';', i);
            if (semi < 0) {
                throw new IllegalArgumentException("bad descriptor: " + d);
            }
            i = semi;
        } else if (primitive(d.charAt(i)) == null) {
            throw new IllegalArgumentException("bad descriptor: " + d);
        }
        pos[0] = i + 1;
    }

    /** The type name of the descriptor {@code d[start, end)}. */
    private static String typeName(String d, int start, int end) {
        char c = d.charAt(start);
        if (c == '[') {
            return binary(d.substring(start, end));
        }
        if (c == 'L') {
            return binary(d.substring(start + 1, end - 1));
        }
        return primitive(c);
    }

    /** The name of the primitive type (or void) with descriptor character {@code c}, or null. */
    static String primitive(char c) {
        switch (c) {
            case 'B': return "byte";
            case 'C': return "char";
            case 'D': return "double";
            case 'F': return "float";
            case 'I': return "int";
            case 'J': return "long";
            case 'S': return "short";
            case 'Z': return "boolean";
            case 'V': return "void";
            default: return null;
        }
    }

    /** Comma-separated names as an array ({@code ""} gives none). */
    static String[] split(String list) {
        if (list == null || list.isEmpty()) {
            return NO_STRINGS;
        }
        int count = 1;
        for (int i = 0; i < list.length(); i++) {
            if (list.charAt(i) == ',') {
                count++;
            }
        }
        String[] parts = new String[count];
        int start = 0;
        for (int i = 0; i < count; i++) {
            int comma = list.indexOf(',', start);
            int end = comma < 0 ? list.length() : comma;
            parts[i] = list.substring(start, end).trim();
            start = end + 1;
        }
        return parts;
    }

    /** Comma-separated class names as binary names. */
    static String[] splitTypes(String list) {
        String[] parts = split(list);
        for (int i = 0; i < parts.length; i++) {
            parts[i] = binary(parts[i]);
        }
        return parts;
    }

    /**
     * Appends the display form of a type name: {@code a.b.Outer.Inner[]} in full,
     * {@code Outer.Inner[]} short.
     */
    static void append(StringBuilder b, String type, boolean full) {
        int dims = 0;
        String element = type;
        if (type.startsWith("[")) {
            while (dims < type.length() && type.charAt(dims) == '[') {
                dims++;
            }
            char c = dims < type.length() ? type.charAt(dims) : 'V';
            if (c == 'L') {
                element = type.substring(dims + 1, type.endsWith(";") ? type.length() - 1 : type.length());
            } else {
                String p = primitive(c);
                element = p == null ? type.substring(dims) : p;
            }
        }
        int from = full ? 0 : element.lastIndexOf('.') + 1;
        for (int i = from; i < element.length(); i++) {
            char c = element.charAt(i);
            b.append(c == '$' ? '.' : c);
        }
        for (int i = 0; i < dims; i++) {
            b.append("[]");
        }
    }

    /** Appends {@code (T1, T2)} with display forms of {@code types}. */
    static void appendList(StringBuilder b, String[] types, boolean full) {
        b.append('(');
        for (int i = 0; i < types.length; i++) {
            if (i > 0) {
                b.append(", ");
            }
            append(b, types[i], full);
        }
        b.append(')');
    }

    /** Appends {@code ()} or {@code (..)}: the parameters in a short form. */
    static void appendShortList(StringBuilder b, String[] types) {
        b.append(types.length == 0 ? "()" : "(..)");
    }

    /** Loads the class named by a type name, or {@code ClassNotFoundException.class} as AspectJ does. */
    static Class<?> resolve(String name, ClassLoader loader) {
        if (name.indexOf('.') < 0 && name.indexOf('[') < 0) {
            Class<?> p = primitiveClass(name);
            if (p != null) {
                return p;
            }
        }
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException e) {
            return ClassNotFoundException.class;
        } catch (LinkageError e) {
            return ClassNotFoundException.class;
        }
    }

    /** Loads the classes named by type names. */
    static Class<?>[] resolveAll(String[] names, ClassLoader loader) {
        Class<?>[] classes = new Class<?>[names.length];
        for (int i = 0; i < names.length; i++) {
            classes[i] = resolve(names[i], loader);
        }
        return classes;
    }

    private static Class<?> primitiveClass(String name) {
        switch (name) {
            case "int": return int.class;
            case "long": return long.class;
            case "boolean": return boolean.class;
            case "byte": return byte.class;
            case "char": return char.class;
            case "short": return short.class;
            case "float": return float.class;
            case "double": return double.class;
            case "void": return void.class;
            default: return null;
        }
    }
}
