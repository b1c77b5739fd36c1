package workloads.javac;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import workloads.Results;

/**
 * Compiles the generated source tree with the JDK's own javac (the
 * {@code javax.tools} API, in this JVM) into {@code out/classes}, writes its
 * diagnostics to {@code out/diagnostics.txt}, then loads the compiled classes
 * and prints what {@code gen.Main.run()} computes.
 */
public final class Main {
    private Main() {}

    /** {@code Main INPUT_DIR}. */
    public static void main(String[] args) throws Exception {
        Path src = Path.of(args[0]).resolve("src");
        List<Path> files;
        try (Stream<Path> s = Files.walk(src)) {
            files = s.filter(p -> p.toString().endsWith(".java")).sorted().collect(Collectors.toList());
        }
        Path classes = Results.dir().resolve("classes");
        Files.createDirectories(classes);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        boolean ok;
        try (StandardJavaFileManager fm = javac.getStandardFileManager(diags, Locale.ROOT, StandardCharsets.UTF_8)) {
            List<String> options = List.of("-d", classes.toString(), "--release", "17", "-g", "-parameters",
                    "-Xlint:all,-varargs", "-encoding", "UTF-8");
            ok = javac.getTask(null, fm, diags, options, null, fm.getJavaFileObjectsFromPaths(files)).call();
        }
        StringBuilder d = new StringBuilder();
        for (Diagnostic<? extends JavaFileObject> x : diags.getDiagnostics()) {
            String file = x.getSource() == null ? "-" : Path.of(x.getSource().toUri()).getFileName().toString();
            d.append(x.getKind()).append(' ').append(file).append(':').append(x.getLineNumber()).append(": ")
                    .append(x.getMessage(Locale.ROOT)).append('\n');
        }
        Results.write("diagnostics.txt", d);
        long count;
        try (Stream<Path> s = Files.walk(classes)) {
            count = s.filter(p -> p.toString().endsWith(".class")).count();
        }
        System.out.println("javac: " + files.size() + " sources, " + (ok ? "ok" : "FAILED") + ", "
                + diags.getDiagnostics().size() + " diagnostics, " + count + " class files");
        if (!ok) {
            System.out.print(d);
            System.exit(1);
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, Main.class.getClassLoader())) {
            Method run = loader.loadClass("gen.Main").getMethod("run");
            System.out.println("gen.Main.run() = " + run.invoke(null));
        }
    }
}
