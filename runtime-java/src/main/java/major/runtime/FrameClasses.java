package major.runtime;

/**
 * Finds a class by its frame on the current thread's stack, for a woven class whose
 * extra class of static parts cannot name it.
 *
 * <p>That is JDK 17's generated reflection accessors
 * ({@code jdk.internal.reflect.Generated*}): the JDK defines each in a fresh
 * {@code DelegatingClassLoader}, and HotSpot resolves every name in the accessor's
 * code, its own included, through that loader's parent. The single-phase agent
 * therefore defines the accessor's extra class in the parent, where the accessor's
 * code finds it; but the extra class cannot name the accessor in turn (the parent
 * does not know it). Its static initializer runs when the accessor's woven code
 * first reads a static part, so the accessor's frame is on the stack then, and this
 * class finds it there.
 *
 * <p>Only the agent weaves accessors, and it implements the method: HotSpot finds
 * {@code Java_major_runtime_FrameClasses_onStack} among the agents' libraries. It
 * reads the stack through JVMTI and runs no Java code, so it warms none of the
 * JDK's caches (a {@code StackWalker} would spin lambdas and method handles, work
 * the program would otherwise do, and count, itself).
 */
public final class FrameClasses {
    private FrameClasses() {}

    /**
     * The class of the innermost frame of the current thread whose class is named
     * {@code internalName}.
     *
     * @param internalName the class's internal name ({@code a/b/C})
     * @return the class
     * @throws NoClassDefFoundError if no frame of the stack is of that class
     * @throws UnsatisfiedLinkError if the single-phase agent is not loaded
     */
    public static native Class<?> onStack(String internalName);
}
