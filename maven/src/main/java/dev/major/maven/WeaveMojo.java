package dev.major.maven;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import org.apache.maven.artifact.DependencyResolutionRequiredException;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;

/**
 * Weaves the main classes ({@code target/classes}) with the aspects of {@code src/main/aspect}
 * and the {@code @Aspect} classes of the sources, against the compile class path; in place unless
 * {@code outputDirectory} is set.
 */
@Mojo(
        name = "weave",
        defaultPhase = LifecyclePhase.PROCESS_CLASSES,
        requiresDependencyResolution = ResolutionScope.COMPILE,
        threadSafe = true)
public class WeaveMojo extends AbstractWeaveMojo {

    /** The classes to weave. */
    @Parameter(defaultValue = "${project.build.outputDirectory}", required = true)
    private File classesDirectory;

    /** Where the woven classes go (default: in place, into the classes directory). */
    @Parameter(property = "major.outputDirectory")
    private File outputDirectory;

    /** The aspects' directory: its {@code .aj} and {@code .java} files are aspects. */
    @Parameter(defaultValue = "${project.basedir}/src/main/aspect")
    private File aspectDirectory;

    @Override
    protected File classesDirectory() {
        return classesDirectory;
    }

    @Override
    protected File outputDirectory() {
        return outputDirectory;
    }

    @Override
    protected File aspectDirectory() {
        return aspectDirectory;
    }

    @Override
    protected List<String> sourceRoots() {
        return new ArrayList<>(project.getCompileSourceRoots());
    }

    @Override
    protected List<String> classPath() throws MojoExecutionException {
        try {
            return project.getCompileClasspathElements();
        } catch (DependencyResolutionRequiredException e) {
            throw new MojoExecutionException("major: the compile class path is not resolved", e);
        }
    }

    @Override
    protected void useOutput(File output) {
        project.getBuild().setOutputDirectory(output.getPath());
    }

    @Override
    protected String workName() {
        return "classes";
    }
}
