package dev.major.maven;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The unwoven copy of a classes directory woven in place: what the compiler (and the resources
 * plugin) wrote there, kept under {@code target/major} so that every weave starts from unwoven
 * classes.
 */
final class InPlaceInputs {
    private InPlaceInputs() {}

    /**
     * Brings the copy {@code inputs} up to date with {@code classes}: a file of {@code classes}
     * whose digest is not the one the last weave recorded was written since (by the compiler) and
     * is copied; a file the last weave left that is gone was deleted (its source removed) and is
     * removed from the copy. Without a record, the copy is made anew. Returns whether anything in
     * {@code classes} changed since the last weave.
     */
    static boolean sync(Path classes, Path inputs, WeaveState previous) throws IOException {
        Map<String, String> current = WeaveState.digests(classes);
        if (previous == null) {
            deleteTree(inputs);
            Files.createDirectories(inputs);
            for (String rel : current.keySet()) {
                copy(classes, inputs, rel);
            }
            return true;
        }
        boolean changed = false;
        for (Map.Entry<String, String> e : current.entrySet()) {
            if (!e.getValue().equals(previous.files.get(e.getKey()))) {
                copy(classes, inputs, e.getKey());
                changed = true;
            }
        }
        for (String rel : previous.files.keySet()) {
            if (!current.containsKey(rel)) {
                Files.deleteIfExists(inputs.resolve(rel));
                changed = true;
            }
        }
        return changed;
    }

    /** Replaces {@code classes} by the unwoven copy {@code inputs}, which is then removed. */
    static void restore(Path inputs, Path classes) throws IOException {
        deleteTree(classes);
        for (Path p : SourceFiles.walk(inputs)) {
            copy(inputs, classes, SourceFiles.relative(inputs, p));
        }
        deleteTree(inputs);
    }

    private static void copy(Path from, Path to, String rel) throws IOException {
        Path target = to.resolve(rel);
        Files.createDirectories(target.getParent());
        Files.copy(from.resolve(rel), target, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Deletes {@code dir} and everything under it (nothing when it does not exist). */
    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        List<Path> all = new ArrayList<>();
        try (Stream<Path> s = Files.walk(dir)) {
            s.forEach(all::add);
        }
        Collections.reverse(all);
        for (Path p : all) {
            Files.delete(p);
        }
    }
}
