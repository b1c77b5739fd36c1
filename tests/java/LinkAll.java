import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.*;
import java.util.*;
import java.util.stream.*;

/**
 * Loads and links every class of a directory or jar so that HotSpot verifies it
 * (run with -Xverify:all). Usage:
 *   java [--patch-module java.base=DIR|JAR] -Xverify:all LinkAll boot DIR|JAR
 *   java -Xverify:all LinkAll jar JAR [JAR...]    (first jar checked, the rest on the class path)
 *   java --add-modules M,.. -Xverify:all LinkAll jrt M[,N...]
 *       (every class of the run-time image's modules M, N..., from jrt:/, each
 *        loaded from its module of the boot layer)
 *   java @WOVEN/java.args --add-modules M,.. -Xverify:all LinkAll modules M.jar [N.jar...]
 *       (each jar a patch of the module it is named after: its classes are loaded
 *        from that module of the boot layer, by the module's own class loader)
 * Prints one line per VerifyError/ClassFormatError and a summary line
 * "linked N verify-errors V format-errors F other-errors O skipped S".
 */
public class LinkAll {
    public static void main(String[] args) throws Exception {
        String mode = args[0];
        List<String> names;
        ClassLoader loader;
        if (mode.equals("jrt")) {
            linkImage(args[1].split(","));
            return;
        }
        if (mode.equals("modules")) {
            linkModules(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (mode.equals("boot") && Files.isDirectory(Paths.get(args[1]))) {
            Path root = Paths.get(args[1]);
            try (Stream<Path> s = Files.walk(root)) {
                names = s.filter(p -> p.toString().endsWith(".class"))
                        .map(p -> root.relativize(p).toString())
                        .collect(Collectors.toList());
            }
            loader = null;
        } else if (mode.equals("boot")) {
            names = new ArrayList<>();
            try (java.util.zip.ZipFile z = new java.util.zip.ZipFile(args[1])) {
                z.stream().map(e -> e.getName())
                        .filter(n -> n.endsWith(".class") && !n.startsWith("META-INF/"))
                        .forEach(names::add);
            }
            loader = null;
        } else {
            names = new ArrayList<>();
            try (java.util.zip.ZipFile z = new java.util.zip.ZipFile(args[1])) {
                z.stream().map(e -> e.getName())
                        .filter(n -> n.endsWith(".class") && !n.startsWith("META-INF/"))
                        .forEach(names::add);
            }
            URL[] urls = new URL[args.length - 1];
            for (int i = 1; i < args.length; i++) urls[i - 1] = Paths.get(args[i]).toUri().toURL();
            loader = new URLClassLoader(urls, LinkAll.class.getClassLoader());
        }
        Collections.sort(names);
        Counts n = new Counts();
        for (String file : names) {
            String name = file.substring(0, file.length() - ".class".length()).replace('/', '.');
            if (name.endsWith("module-info") || name.endsWith("package-info")) { n.skipped++; continue; }
            final ClassLoader l = loader;
            n.link(name, () -> Class.forName(name, false, l));
        }
        n.print();
    }

    /** What linking found. */
    static final class Counts {
        int linked, verify, format, other, skipped;

        interface Load { Class<?> load() throws Throwable; }

        /** Loads a class and links it (getDeclaredMethods links, so verifies, it). */
        void link(String name, Load load) {
            try {
                Class<?> c = load.load();
                if (c == null) throw new ClassNotFoundException(name);
                c.getDeclaredMethods();
                linked++;
            } catch (VerifyError e) {
                verify++;
                System.out.println("VerifyError " + name + ": " + e.getMessage());
            } catch (ClassFormatError e) {
                format++;
                System.out.println("ClassFormatError " + name + ": " + e.getMessage());
            } catch (Throwable e) {
                other++;
                if (System.getenv("LINKALL_VERBOSE") != null) System.out.println("other " + name + ": " + e);
            }
        }

        void print() {
            System.out.println("linked " + linked + " verify-errors " + verify + " format-errors " + format
                    + " other-errors " + other + " skipped " + skipped);
        }
    }

    /** Links every class of the named modules of the run-time image (jrt:/). */
    static void linkImage(String[] modules) throws IOException {
        Counts n = new Counts();
        FileSystem jrt = FileSystems.getFileSystem(java.net.URI.create("jrt:/"));
        for (String moduleName : modules) {
            Optional<Module> module = ModuleLayer.boot().findModule(moduleName);
            Path root = jrt.getPath("/modules", moduleName);
            List<String> names;
            try (Stream<Path> s = Files.walk(root)) {
                names = s.map(p -> root.relativize(p).toString())
                        .filter(x -> x.endsWith(".class"))
                        .sorted()
                        .collect(Collectors.toList());
            }
            for (String f : names) {
                String name = f.substring(0, f.length() - ".class".length()).replace('/', '.');
                if (name.endsWith("module-info") || name.endsWith("package-info")) { n.skipped++; continue; }
                if (module.isEmpty()) {
                    n.other++;
                    System.out.println("no module " + moduleName + " in the boot layer for " + name);
                    continue;
                }
                Module m = module.get();
                n.link(name, () -> Class.forName(m, name));
            }
        }
        n.print();
    }

    /** Links the classes of each patch jar M.jar from module M of the boot layer. */
    static void linkModules(String[] jars) throws IOException {
        Counts n = new Counts();
        for (String jar : jars) {
            String file = Paths.get(jar).getFileName().toString();
            String moduleName = file.substring(0, file.length() - ".jar".length());
            Optional<Module> module = ModuleLayer.boot().findModule(moduleName);
            List<String> names = new ArrayList<>();
            try (java.util.zip.ZipFile z = new java.util.zip.ZipFile(jar)) {
                z.stream().map(e -> e.getName())
                        .filter(x -> x.endsWith(".class") && !x.startsWith("META-INF/"))
                        .forEach(names::add);
            }
            Collections.sort(names);
            for (String f : names) {
                String name = f.substring(0, f.length() - ".class".length()).replace('/', '.');
                if (name.endsWith("module-info") || name.endsWith("package-info")) { n.skipped++; continue; }
                if (module.isEmpty()) {
                    n.other++;
                    System.out.println("no module " + moduleName + " in the boot layer for " + name);
                    continue;
                }
                Module m = module.get();
                n.link(name, () -> Class.forName(m, name));
            }
        }
        n.print();
    }
}
