package workloads;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the drivers put their results: {@code out/} under the current
 * directory (the run's work directory), UTF-8 text with {@code \n} line ends.
 */
public final class Results {
    private Results() {}

    /** The results directory {@code out/}, created. */
    public static Path dir() {
        Path out = Path.of("out");
        try {
            Files.createDirectories(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** Writes {@code text} to {@code out/name} (parents created). */
    public static Path write(String name, CharSequence text) {
        Path p = dir().resolve(name);
        try {
            Files.createDirectories(p.getParent());
            Files.write(p, text.toString().getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + p, e);
        }
        return p;
    }

    /** Reads the UTF-8 text file {@code dir/name}. */
    public static String read(Path dir, String name) throws IOException {
        return new String(Files.readAllBytes(dir.resolve(name)), StandardCharsets.UTF_8);
    }

    /** Writes {@code text} to {@code dir/name} (parents created); for the input generators. */
    public static void writeInput(Path dir, String name, CharSequence text) throws IOException {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.write(p, text.toString().getBytes(StandardCharsets.UTF_8));
    }
}
