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
 * Prints one line per VerifyError/ClassFormatError and a summary line
 * "linked N verify-errors V format-errors F other-errors O skipped S".
 */
public class LinkAll {
    public static void main(String[] args) throws Exception {
        String mode = args[0];
        List<String> names;
        ClassLoader loader;
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
        int linked = 0, verify = 0, format = 0, other = 0, skipped = 0;
        for (String file : names) {
            String name = file.substring(0, file.length() - ".class".length()).replace('/', '.');
            if (name.endsWith("module-info") || name.endsWith("package-info")) { skipped++; continue; }
            try {
                Class<?> c = Class.forName(name, false, loader);
                c.getDeclaredMethods(); // links (and so verifies) the class
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
        System.out.println("linked " + linked + " verify-errors " + verify + " format-errors " + format + " other-errors " + other + " skipped " + skipped);
    }
}
