import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * Exceptions thrown through several frames, and through native frames: a
 * reflective call whose target throws (Method.invoke: a native accessor on
 * JDK 17), a static initializer that throws under Class.forName (a native
 * method that runs Java code), a class loader that throws under
 * Class.forName, and a thread that dies of an uncaught exception (the VM
 * calls its handler), and a null receiver at calls of native methods. After
 * each catch, main calls after(): its node must
 * be a child of main, not of a frame the exception went through.
 */
public class CctExceptions {
    static int sink;

    /** a -> b -> c, c throws; b catches every second time and calls recover(). */
    static void a(int i) {
        b(i);
    }

    static void b(int i) {
        try {
            c(i);
        } catch (IllegalStateException e) {
            if (i % 2 == 0) {
                recover();
            } else {
                throw e;
            }
        }
    }

    static void c(int i) {
        sink += i;
        throw new IllegalStateException("c");
    }

    static void recover() {
        sink++;
    }

    static void after() {
        sink++;
    }

    /** Recurses `depth` frames, then throws. */
    public static void deep(int depth) {
        if (depth == 0) {
            throw new UnsupportedOperationException("deep");
        }
        deep(depth - 1);
    }

    /** Its initializer throws (under Class.forName). */
    static class Boom {
        static final int X;

        static {
            deep(2);
            X = 1;
        }
    }

    /** A loader whose loadClass throws for every name it is asked for. */
    static class FailingLoader extends ClassLoader {
        FailingLoader() {
            super(null);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            refuse(name);
            return null;
        }

        static void refuse(String name) throws ClassNotFoundException {
            throw new ClassNotFoundException(name);
        }
    }

    static class Handler implements Thread.UncaughtExceptionHandler {
        @Override
        public void uncaughtException(Thread t, Throwable e) {
            sink++;
        }
    }

    public static void main(String[] args) throws Exception {
        // 1. Through Java frames only: 4 times a -> b -> c; b recovers for i = 0 and 2.
        for (int i = 0; i < 4; i++) {
            try {
                a(i);
            } catch (IllegalStateException e) {
                after();
            }
        }
        // 2. Through a reflective call (native frames on JDK 17), 3 times.
        Method m = CctExceptions.class.getMethod("deep", int.class);
        for (int i = 0; i < 3; i++) {
            try {
                m.invoke(null, 3);
                throw new AssertionError("no exception");
            } catch (InvocationTargetException e) {
                after();
            }
        }
        // 3. Through Class.forName running a static initializer, once.
        try {
            Class.forName("CctExceptions$Boom");
            throw new AssertionError("no exception");
        } catch (ExceptionInInitializerError e) {
            after();
        }
        // 4. Through Class.forName calling a class loader, once.
        try {
            Class.forName("some.Missing", true, new FailingLoader());
            throw new AssertionError("no exception");
        } catch (ClassNotFoundException e) {
            after();
        }
        // 5. A thread dies of an uncaught exception; its handler runs.
        Thread t = new Thread(CctExceptions::dies);
        t.setUncaughtExceptionHandler(new Handler());
        t.start();
        t.join();
        after();
        // 6. A null receiver at calls of native methods (no woven body: the
        // call site enters them): the VM throws at the call, in main's frame,
        // and constructs the exception there, twice each.
        Object[] nothing = new Object[1];
        for (int i = 0; i < 2; i++) {
            try {
                nothing[0].getClass();
                throw new AssertionError("no exception");
            } catch (NullPointerException e) {
                after();
            }
            try {
                ((String) nothing[0]).intern();
                throw new AssertionError("no exception");
            } catch (NullPointerException e) {
                after();
            }
            try {
                nothing[0].notify();
                throw new AssertionError("no exception");
            } catch (NullPointerException e) {
                after();
            }
        }
    }

    static void dies() {
        deep(4);
    }
}
