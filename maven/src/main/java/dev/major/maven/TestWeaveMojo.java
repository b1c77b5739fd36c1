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
 * Weaves the test classes ({@code target/test-classes}) with the aspects of {@code
 * src/test/aspect} and the {@code @Aspect} classes of the test sources, against the test class
 * path (the main classes included); in place unless {@code testOutputDirectory} is set.
 */
@Mojo(
        name = "test-weave",
        defaultPhase = LifecyclePhase.PROCESS_TEST_CLASSES,
        requiresDependencyResolution = ResolutionScope.TEST,
        threadSafe = true)
public class TestWeaveMojo extends AbstractWeaveMojo {

    /** The test classes to weave. */
    @Parameter(defaultValue = "${project.build.testOutputDirectory}", required = true)
    private File testClassesDirectory;

    /** Where the woven test classes go (default: in place). */
    @Parameter(property = "major.testOutputDirectory")
    private File testOutputDirectory;

    /** The test aspects' directory: its {@code .aj} and {@code .java} files are aspects. */
    @Parameter(defaultValue = "${project.basedir}/src/test/aspect")
    private File testAspectDirectory;

    @Override
    protected File classesDirectory() {
        return testClassesDirectory;
    }

    @Override
    protected File outputDirectory() {
        return testOutputDirectory;
    }

    @Override
    protected File aspectDirectory() {
        return testAspectDirectory;
    }

    @Override
    protected List<String> sourceRoots() {
        return new ArrayList<>(project.getTestCompileSourceRoots());
    }

    @Override
    protected List<String> classPath() throws MojoExecutionException {
        try {
            return project.getTestClasspathElements();
        } catch (DependencyResolutionRequiredException e) {
            throw new MojoExecutionException("major: the test class path is not resolved", e);
        }
    }

    @Override
    protected void useOutput(File output) {
        project.getBuild().setTestOutputDirectory(output.getPath());
    }

    @Override
    protected String workName() {
        return "test-classes";
    }
}
