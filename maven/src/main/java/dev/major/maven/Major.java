package dev.major.maven;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.logging.Log;

/** The {@code major} binary: found, identified, and run. */
final class Major {
    /** What a run of major did: its exit code and its output (stdout and stderr, merged). */
    static final class Result {
        final int exitCode;
        final String output;

        Result(int exitCode, String output) {
            this.exitCode = exitCode;
            this.output = output;
        }
    }

    private final Path binary;
    private final Log log;
    private String identity;

    /** The binary {@code executable} names: a path, or a name looked up on {@code PATH}. */
    Major(String executable, Log log) throws MojoExecutionException {
        this.log = log;
        this.binary = locate(executable);
    }

    private static Path locate(String executable) throws MojoExecutionException {
        if (executable.contains("/") || executable.contains(File.separator)) {
            Path p = new File(executable).toPath().toAbsolutePath();
            if (Files.isExecutable(p)) {
                return p;
            }
            throw new MojoExecutionException(
                    "major: " + p + " is not an executable file (configure <executable> or -Dmajor.executable)");
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                Path p = new File(dir.isEmpty() ? "." : dir, executable).toPath().toAbsolutePath();
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    return p;
                }
            }
        }
        throw new MojoExecutionException(
                "major: no `"
                        + executable
                        + "` on PATH: install it (`cargo install --path weaver` in major's"
                        + " repository) or name the binary with <executable> or -Dmajor.executable");
    }

    /**
     * What tells one major from another in a weave's key: its version line and the size and
     * modification time of its binary (a rebuilt binary re-weaves).
     */
    String identity() throws IOException {
        if (identity != null) {
            return identity;
        }
        Result r = run(List.of("--version"), false);
        if (r.exitCode != 0) {
            throw new IOException(binary + " --version failed: " + r.output.trim());
        }
        identity = r.output.trim()
                + " "
                + binary
                + " "
                + Files.size(binary)
                + " "
                + Files.getLastModifiedTime(binary).toMillis();
        return identity;
    }

    /**
     * Runs major with {@code args} in the resident major of {@code directory} ({@link Resident}),
     * started if none runs; as a process, with a warning saying why, if that fails.
     */
    Result runResident(List<String> args, File directory, long idleSeconds) throws IOException {
        try {
            Resident resident = new Resident(binary, identity(), directory, idleSeconds, log);
            if (log.isDebugEnabled()) {
                log.debug("major: weaving in the resident major on " + resident.socket() + ": "
                        + String.join(" ", args));
            }
            return resident.run(new File("").toPath().toAbsolutePath(), args);
        } catch (IOException e) {
            log.warn("major: the resident major could not weave (" + e.getMessage()
                    + "); running major as a process");
            return run(args);
        }
    }

    /** {@code pb} with major's messages in plain text, for parsing: no colours, no box drawing. */
    static ProcessBuilder plainText(ProcessBuilder pb) {
        pb.environment().put("NO_COLOR", "1");
        pb.environment().put("NO_GRAPHICS", "1");
        return pb;
    }

    /** Runs major with {@code args}, its command line shown at debug level. */
    Result run(List<String> args) throws IOException {
        return run(args, true);
    }

    private Result run(List<String> args, boolean show) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        command.addAll(args);
        if (show && log.isDebugEnabled()) {
            log.debug("major: running " + String.join(" ", command));
        }
        ProcessBuilder pb = plainText(new ProcessBuilder(command).redirectErrorStream(true));
        Process process = pb.start();
        process.getOutputStream().close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (InputStream in = process.getInputStream()) {
            in.transferTo(out);
        }
        try {
            int code = process.waitFor();
            return new Result(code, out.toString(StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            process.destroy();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while " + binary + " ran", e);
        }
    }
}
