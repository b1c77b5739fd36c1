package major.runtime;

/**
 * A per-thread stack of states for {@code cflow(..)} that binds values: each entry
 * to the flow's join point pushes the bound values, each exit pops them; advice in
 * the flow reads the innermost state.
 */
public final class CFlowStack {
    /** One thread's stack. */
    private static final class Frames {
        Object[][] items = new Object[4][];
        int size;
    }

    private final ThreadLocal<Frames> frames = new ThreadLocal<Frames>() {
        @Override
        protected Frames initialValue() {
            return new Frames();
        }
    };

    /** A stack, empty on every thread. */
    public CFlowStack() {
    }

    /**
     * Enters the flow with the values it binds.
     * @param state the bound values (kept, not copied)
     */
    public void push(Object[] state) {
        Frames f = frames.get();
        if (f.size == f.items.length) {
            Object[][] bigger = new Object[f.size * 2][];
            System.arraycopy(f.items, 0, bigger, 0, f.size);
            f.items = bigger;
        }
        f.items[f.size++] = state;
    }

    /**
     * Leaves the innermost flow.
     * @throws IllegalStateException if the stack is empty
     */
    public void pop() {
        Frames f = frames.get();
        if (f.size == 0) {
            throw new IllegalStateException("cflow stack underflow");
        }
        f.items[--f.size] = null;
    }

    /**
     * The values bound by the innermost flow.
     *
     * @return the state last pushed on this thread
     * @throws IllegalStateException if the stack is empty
     */
    public Object[] peek() {
        Frames f = frames.get();
        if (f.size == 0) {
            throw new IllegalStateException("not in the control flow");
        }
        return f.items[f.size - 1];
    }

    /**
     * One value bound by the innermost flow.
     *
     * @param index its index in the state
     * @return the value
     * @throws IllegalStateException if the stack is empty
     */
    public Object get(int index) {
        return peek()[index];
    }

    /**
     * Whether the current thread is in the flow.
     * @return whether the stack is not empty
     */
    public boolean isValid() {
        return frames.get().size > 0;
    }
}
