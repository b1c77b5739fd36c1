package major.runtime;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Finds a class by its frame on the current thread's stack, for a woven class whose
 * extra class of static parts cannot name it.
 *
 * <p>That is JDK 17's generated reflection accessors
 * ({@code jdk.internal.reflect.Generated*}): the JDK defines each in a fresh
 * {@code DelegatingClassLoader}, and HotSpot resolves every name in the accessor's
 * code, its own included, through that loader's parent. The agent therefore defines
 * the accessor's extra class in the parent, where the accessor's code finds it; but
 * the extra class cannot name the accessor in turn (the parent does not know it). Its
 * static initializer runs when the accessor's woven code first reads a static part,
 * so the accessor's frame is on the stack then, and this class finds it there
 * ({@code StackWalker}, with reflection frames shown: accessors are reflection
 * frames).
 *
 * <p>The runtime is compiled for Java 8, which has no {@code StackWalker}: it is
 * reached through method handles. Accessors of {@code jdk.internal.reflect} exist
 * from JDK 9 on only.
 */
public final class FrameClasses {
    private FrameClasses() {}

    /**
     * The class of the innermost frame of the current thread whose class is named
     * {@code binaryName}.
     *
     * @param binaryName the class's binary name ({@code a.b.C})
     * @return the class
     * @throws NoClassDefFoundError if no frame of the stack is of that class
     */
    public static Class<?> onStack(final String binaryName) {
        final Class<?>[] found = new Class<?>[1];
        try {
            Class<?> walkerClass = Class.forName("java.lang.StackWalker");
            @SuppressWarnings({"unchecked", "rawtypes"})
            Class<Enum> option = (Class<Enum>) Class.forName("java.lang.StackWalker$Option");
            Set<Object> options = new HashSet<Object>();
            options.add(Enum.valueOf(option, "RETAIN_CLASS_REFERENCE"));
            options.add(Enum.valueOf(option, "SHOW_HIDDEN_FRAMES"));
            // A full-privilege lookup: StackWalker.forEach is caller-sensitive.
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            MethodHandle getInstance = lookup.findStatic(
                    walkerClass, "getInstance", MethodType.methodType(walkerClass, Set.class));
            MethodHandle forEach = lookup.findVirtual(
                    walkerClass, "forEach", MethodType.methodType(void.class, Consumer.class));
            Class<?> frameClass = Class.forName("java.lang.StackWalker$StackFrame");
            final MethodHandle declaringClass = lookup.findVirtual(
                    frameClass, "getDeclaringClass", MethodType.methodType(Class.class));
            Object walker = getInstance.invoke(options);
            forEach.invoke(walker, new Consumer<Object>() {
                @Override
                public void accept(Object frame) {
                    if (found[0] != null) {
                        return;
                    }
                    try {
                        Class<?> c = (Class<?>) declaringClass.invoke(frame);
                        if (c.getName().equals(binaryName)) {
                            found[0] = c;
                        }
                    } catch (Throwable t) {
                        throw new IllegalStateException(t);
                    }
                }
            });
        } catch (Throwable t) {
            NoClassDefFoundError e = new NoClassDefFoundError(binaryName);
            e.initCause(t);
            throw e;
        }
        if (found[0] == null) {
            throw new NoClassDefFoundError(binaryName + " (no frame of it on the stack)");
        }
        return found[0];
    }
}
