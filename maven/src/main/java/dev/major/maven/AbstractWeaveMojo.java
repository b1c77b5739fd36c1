package dev.major.maven;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.project.MavenProject;

/**
 * What the goals {@code weave} and {@code test-weave} share: finding the aspects, keeping the
 * unwoven classes when weaving in place, deciding whether anything changed, running {@code major
 * weave} and reporting what it says in Maven's format.
 *
 * <p>Weaving in place: the classes the compiler wrote are copied into {@code
 * target/major/<classes>} (the inputs), and major weaves that copy into the classes directory. The
 * record {@code target/major/<classes>.state} holds the digest of every file major left in the
 * classes directory and a key over everything the weave depends on; a file of the classes
 * directory whose digest differs from the record came from the compiler since, and is a new input.
 */
public abstract class AbstractWeaveMojo extends AbstractMojo {

    /** The project being built. */
    @Parameter(defaultValue = "${project}", readonly = true, required = true)
    protected MavenProject project;

    /** The {@code major} binary: a path, or a name looked up on {@code PATH}. */
    @Parameter(property = "major.executable", defaultValue = "major")
    protected String executable;

    /** The JDK whose class library the classes are woven against (default: the one running Maven). */
    @Parameter(property = "major.jdk")
    protected File jdk;

    /** Skip weaving. */
    @Parameter(property = "major.skip", defaultValue = "false")
    protected boolean skip;

    /**
     * Fail when a method cannot be woven because a class it needs is missing from the class path
     * (by default such a method is left unwoven with a warning).
     */
    @Parameter(property = "major.strict", defaultValue = "false")
    protected boolean strict;

    /** Put the runtime classes ({@code org.aspectj.lang}, {@code major.runtime}) into the output. */
    @Parameter(property = "major.bundleRuntime", defaultValue = "true")
    protected boolean bundleRuntime;

    /** Where major caches compiled aspects (default: major's own, {@code ~/.cache/major}). */
    @Parameter(property = "major.cacheDir")
    protected File cacheDir;

    /** More aspect files ({@code .aj}, or {@code @Aspect} {@code .java}) beside those found. */
    @Parameter
    protected List<File> aspects;

    /** Look for {@code @Aspect} classes among the {@code .java} files of the source roots. */
    @Parameter(property = "major.scanSources", defaultValue = "true")
    protected boolean scanSources;

    /**
     * Weave in a resident major ({@code major serve}), started by the first weave and kept for
     * every module and later builds until idle for {@code residentIdleTimeout} seconds: no
     * process start per weave (a one-class change of a large module costs half as much).
     * Needs Java 16 or later to run Maven; falls back to a process, with a warning.
     */
    @Parameter(property = "major.resident", defaultValue = "false")
    protected boolean resident;

    /**
     * Where the resident major's socket and log are: a directory only the user can use (made so
     * if missing). Default: {@code major-<user>} in the temporary directory.
     */
    @Parameter(property = "major.residentDirectory")
    protected File residentDirectory;

    /** Seconds without a weave after which the resident major exits. */
    @Parameter(property = "major.residentIdleTimeout", defaultValue = "1800")
    protected long residentIdleTimeout;

    /** The directory of classes to weave. */
    protected abstract File classesDirectory();

    /** Where the woven classes go; {@code null} weaves the classes directory in place. */
    protected abstract File outputDirectory();

    /** The directory of the aspects ({@code *.aj}, {@code @Aspect} {@code *.java}). */
    protected abstract File aspectDirectory();

    /** The Java source roots searched for {@code @Aspect} classes and for declare hits' files. */
    protected abstract List<String> sourceRoots();

    /** The class path the classes are woven against (dependencies, other modules). */
    protected abstract List<String> classPath() throws MojoExecutionException;

    /**
     * Makes {@code output} the directory the rest of the build takes the classes from, in place
     * of the classes directory (when weaving into another directory).
     */
    protected abstract void useOutput(File output);

    /** The name of the copy of the inputs and of the record, under {@code target/major}. */
    protected abstract String workName();

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        if (skip) {
            getLog().info("major: skipped");
            return;
        }
        if ("pom".equals(project.getPackaging())) {
            getLog().debug("major: a pom project has no classes to weave");
            return;
        }
        Path classes = classesDirectory().toPath().toAbsolutePath().normalize();
        if (!Files.isDirectory(classes)) {
            getLog().info("major: no classes in " + classes + ", nothing to weave");
            return;
        }
        Path work = new File(project.getBuild().getDirectory(), "major").toPath().toAbsolutePath();
        Path stateFile = work.resolve(workName() + ".state");
        Path output =
                outputDirectory() == null
                        ? classes
                        : outputDirectory().toPath().toAbsolutePath().normalize();
        boolean inPlace = output.equals(classes);
        Path inputs = inPlace ? work.resolve(workName()) : classes;
        Path marker = work.resolve(workName() + ".weaving");
        try {
            if (inPlace && (Files.exists(marker)
                    || (!Files.exists(stateFile) && Files.exists(classes.resolve(".major-output")))
                    || (Files.exists(stateFile) && !Files.isDirectory(inputs)))) {
                throw new MojoFailureException(
                        "major: "
                                + output
                                + " holds classes an earlier weave left without its record (the"
                                + " weave was interrupted, or target/major was deleted), so woven"
                                + " classes cannot be told from new"
                                + " ones: run `mvn clean` (or delete "
                                + output
                                + " and "
                                + work
                                + ")");
            }
            if (!inPlace && Files.exists(classes.resolve(".major-output"))) {
                throw new MojoFailureException(
                        "major: "
                                + classes
                                + " was woven in place by an earlier build, so it cannot be the"
                                + " input of a weave into "
                                + output
                                + ": run `mvn clean`");
            }
            WeaveState previous = WeaveState.read(stateFile);
            List<Path> aspectFiles = findAspects();
            if (aspectFiles.isEmpty()) {
                if (inPlace && previous != null) {
                    InPlaceInputs.sync(classes, inputs, previous);
                    InPlaceInputs.restore(inputs, classes);
                    Files.delete(stateFile);
                    getLog().info("major: no aspects any more: " + classes + " holds the unwoven classes again");
                } else {
                    getLog().info("major: no aspects (" + aspectDirectory() + ", @Aspect classes), nothing to weave");
                }
                return;
            }
            if (!inPlace) {
                // The woven classes are the module's classes for the rest of this build
                // (the tests, the jar, the modules depending on this one).
                useOutput(output.toFile());
                getLog().info("major: the rest of the build uses " + output);
            }
            boolean outputChanged;
            if (inPlace) {
                outputChanged = InPlaceInputs.sync(classes, inputs, previous);
            } else {
                outputChanged = previous == null || !previous.matches(output);
            }
            List<Path> classPath = new ArrayList<>();
            for (String element : classPath()) {
                Path p = new File(element).toPath().toAbsolutePath().normalize();
                if (!p.equals(classes) && !p.equals(output) && Files.exists(p)) {
                    classPath.add(p);
                }
            }
            Major major = new Major(executable, getLog());
            List<String> keyed = new ArrayList<>(options());
            keyed.add("-o " + output + (inPlace ? " (in place)" : ""));
            String key = WeaveKey.compute(major, keyed, aspectFiles, classPath, inputs);
            if (!outputChanged && previous != null && previous.key.equals(key)) {
                getLog().info("major: nothing to weave (unchanged)");
                return;
            }
            List<String> command = new ArrayList<>();
            command.add("weave");
            for (Path a : aspectFiles) {
                command.add("--aspect");
                command.add(a.toString());
            }
            command.add(inputs.toString());
            command.add("-o");
            command.add(output.toString());
            if (inPlace) {
                command.add("--force");
            }
            command.addAll(options());
            if (!classPath.isEmpty()) {
                List<String> cp = new ArrayList<>();
                for (Path p : classPath) {
                    cp.add(p.toString());
                }
                command.add("--classpath");
                command.add(String.join(File.pathSeparator, cp));
            }
            // A weave in place that is killed between major's replacing the classes and the new
            // record leaves this marker: the next build then cannot tell woven classes from new
            // ones, and says so instead of weaving them twice. A weave that fails leaves the
            // classes as they were (major writes nothing then): the record still holds.
            if (inPlace) {
                Files.createDirectories(work);
                Files.write(marker, new byte[0]);
            }
            Major.Result result = resident
                    ? major.runResident(
                            command,
                            residentDirectory != null ? residentDirectory : Resident.defaultDirectory(),
                            residentIdleTimeout)
                    : major.run(command);
            if (result.exitCode != 0) {
                Files.deleteIfExists(marker);
            }
            Diagnostics diagnostics =
                    Diagnostics.parse(result.output, sourceFiles(aspectFiles));
            diagnostics.report(getLog(), result.exitCode == 0);
            if (result.exitCode != 0) {
                throw new MojoFailureException(
                        "major: weaving "
                                + classes
                                + " failed"
                                + (diagnostics.errorCount() > 0
                                        ? " with " + diagnostics.errorCount() + " error(s): see above"
                                        : " (exit code " + result.exitCode + "): see above"));
            }
            new WeaveState(key, WeaveState.digests(output)).write(stateFile);
            Files.deleteIfExists(marker);
        } catch (IOException e) {
            throw new MojoExecutionException("major: weaving " + classes + ": " + e.getMessage(), e);
        }
    }

    /** The options of {@code major weave} beside the aspects, inputs, output and class path. */
    private List<String> options() {
        List<String> o = new ArrayList<>();
        o.add("--java-home");
        o.add(jdk != null ? jdk.getAbsolutePath() : System.getProperty("java.home"));
        if (strict) {
            o.add("--strict");
        }
        if (!bundleRuntime) {
            o.add("--no-runtime");
        }
        if (cacheDir != null) {
            o.add("--cache-dir");
            o.add(cacheDir.getAbsolutePath());
        }
        return o;
    }

    /**
     * The aspects: every {@code .aj} and {@code .java} file under the aspect directory, the
     * configured files, and (with {@code scanSources}) the {@code .java} files of the source roots
     * that declare an {@code @Aspect} class; sorted, each once.
     */
    private List<Path> findAspects() throws IOException {
        Set<Path> found = new LinkedHashSet<>();
        Path dir = aspectDirectory().toPath().toAbsolutePath().normalize();
        for (Path p : SourceFiles.walk(dir)) {
            String n = p.getFileName().toString();
            if (n.endsWith(".aj") || n.endsWith(".java")) {
                found.add(p);
            }
        }
        if (aspects != null) {
            for (File f : aspects) {
                found.add(f.toPath().toAbsolutePath().normalize());
            }
        }
        if (scanSources) {
            for (String root : sourceRoots()) {
                for (Path p : SourceFiles.walk(new File(root).toPath().toAbsolutePath().normalize())) {
                    if (p.getFileName().toString().endsWith(".java") && SourceFiles.declaresAspect(p)) {
                        found.add(p);
                    }
                }
            }
        }
        List<Path> sorted = new ArrayList<>(found);
        Collections.sort(sorted);
        return sorted;
    }

    /** The source files a declare hit's {@code File.java} may name: sources and aspects. */
    private List<Path> sourceFiles(List<Path> aspectFiles) throws IOException {
        List<Path> files = new ArrayList<>(aspectFiles);
        for (String root : sourceRoots()) {
            files.addAll(SourceFiles.walk(new File(root).toPath().toAbsolutePath().normalize()));
        }
        return files;
    }
}
