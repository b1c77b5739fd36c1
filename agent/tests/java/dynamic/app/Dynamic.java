package app;

import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Classes defined at run time: a java.lang.reflect.Proxy, and gen.Plugin
 * defined from bytes (args[0], not on the class path) by a custom loader;
 * with args[1], the first args[1] bytes of it as a damaged class.
 */
public class Dynamic {
    public interface Greeter {
        String greet(String name);
    }

    static final class Loader extends ClassLoader {
        Loader(ClassLoader parent) {
            super(parent);
        }

        Class<?> define(String name, byte[] b) {
            return defineClass(name, b, 0, b.length);
        }
    }

    public static void main(String[] args) throws Exception {
        Greeter g = (Greeter) Proxy.newProxyInstance(
            Dynamic.class.getClassLoader(),
            new Class<?>[] {Greeter.class},
            (proxy, method, a) -> "hello, " + a[0]);
        System.out.println(g.greet("proxy"));
        byte[] b = Files.readAllBytes(Path.of(args[0]));
        Class<?> c = new Loader(Dynamic.class.getClassLoader()).define("gen.Plugin", b);
        Greeter p = (Greeter) c.getConstructor().newInstance();
        System.out.println(p.greet("plugin") + " from " + c.getClassLoader().getClass().getSimpleName());
        if (args.length > 1) {
            // A damaged class file: the JVM rejects it (as the weaver does).
            byte[] broken = java.util.Arrays.copyOf(b, Integer.parseInt(args[1]));
            try {
                new Loader(Dynamic.class.getClassLoader()).define("gen.Broken", broken);
                System.out.println("defined a damaged class");
            } catch (ClassFormatError e) {
                System.out.println("damaged class rejected");
            }
        }
    }
}
