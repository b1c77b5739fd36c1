package dev.major.maven;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The record of the last weave of a classes directory: the key over everything the weave
 * depended on ({@link WeaveKey}) and the SHA-256 digest of every file major left in the output.
 *
 * <p>Stored as text: a line {@code key HEX}, then one line {@code HEX RELATIVE/PATH} a file.
 */
final class WeaveState {
    private static final String HEADER = "# major-maven-plugin: the last weave of this directory";

    /** The key of the inputs of the weave. */
    final String key;

    /** Relative path ({@code /}-separated) to the SHA-256 (hex) of the file major wrote there. */
    final Map<String, String> files;

    WeaveState(String key, Map<String, String> files) {
        this.key = key;
        this.files = files;
    }

    /** The record at {@code file}, or {@code null} when there is none or it is not one. */
    static WeaveState read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            return null;
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.size() < 2 || !lines.get(0).equals(HEADER) || !lines.get(1).startsWith("key ")) {
            return null;
        }
        Map<String, String> files = new TreeMap<>();
        for (String line : lines.subList(2, lines.size())) {
            int space = line.indexOf(' ');
            if (space != 64) {
                return null;
            }
            files.put(line.substring(space + 1), line.substring(0, space));
        }
        return new WeaveState(lines.get(1).substring(4), files);
    }

    /** Writes the record to {@code file} (through a temporary file renamed into place). */
    void write(Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(HEADER);
        lines.add("key " + key);
        for (Map.Entry<String, String> e : files.entrySet()) {
            lines.add(e.getValue() + " " + e.getKey());
        }
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(tmp, lines, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Whether {@code dir} holds exactly the recorded files, each with its recorded bytes. */
    boolean matches(Path dir) throws IOException {
        return Files.isDirectory(dir) && digests(dir).equals(files);
    }

    /** The SHA-256 of every file under {@code dir}, by relative {@code /}-separated path. */
    static Map<String, String> digests(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        for (Path p : SourceFiles.walk(dir)) {
            out.put(SourceFiles.relative(dir, p), Digests.sha256(p));
        }
        return out;
    }
}
