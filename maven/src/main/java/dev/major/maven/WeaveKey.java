package dev.major.maven;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The key of a weave: a SHA-256 over everything its output depends on: major itself (its version
 * and the size and time of its binary), the options, each aspect file's path and bytes, each class
 * path element's contents, and each input file's path and bytes. Equal keys, equal outputs.
 */
final class WeaveKey {
    private WeaveKey() {}

    /** The key of weaving {@code inputs} with {@code aspects} against {@code classPath}. */
    static String compute(
            Major major, List<String> options, List<Path> aspects, List<Path> classPath, Path inputs)
            throws IOException {
        MessageDigest md = Digests.sha256();
        line(md, "major " + major.identity());
        for (String o : options) {
            line(md, "option " + o);
        }
        for (Path a : aspects) {
            line(md, "aspect " + a + " " + Digests.sha256(a));
        }
        for (Path p : classPath) {
            line(md, "classpath " + p + " " + classPathDigest(p));
        }
        for (Path p : SourceFiles.walk(inputs)) {
            line(md, "input " + SourceFiles.relative(inputs, p) + " " + Digests.sha256(p));
        }
        return Digests.hex(md.digest());
    }

    /**
     * The contents of a class path element: for a directory, every file's path and bytes; for a
     * jar, every entry's name, size and CRC (so that a jar packed again from the same classes,
     * with other times, has the same digest); for another file, its bytes.
     */
    static String classPathDigest(Path p) throws IOException {
        MessageDigest md = Digests.sha256();
        if (Files.isDirectory(p)) {
            for (Path f : SourceFiles.walk(p)) {
                line(md, SourceFiles.relative(p, f) + " " + Digests.sha256(f));
            }
            return Digests.hex(md.digest());
        }
        try (ZipFile zip = new ZipFile(p.toFile())) {
            Enumeration<? extends ZipEntry> entries = zip.entries();
            while (entries.hasMoreElements()) {
                ZipEntry e = entries.nextElement();
                line(md, e.getName() + " " + e.getSize() + " " + Long.toHexString(e.getCrc()));
            }
            return Digests.hex(md.digest());
        } catch (java.util.zip.ZipException notAZip) {
            return Digests.sha256(p);
        }
    }

    private static void line(MessageDigest md, String s) {
        md.update(s.getBytes(StandardCharsets.UTF_8));
        md.update((byte) '\n');
    }
}
