package dev.major.maven;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Walking directories, and telling {@code @Aspect} classes among Java sources. */
final class SourceFiles {
    private SourceFiles() {}

    /** {@code @Aspect} on a type, imported from AspectJ's annotations (or written in full). */
    private static final Pattern ASPECT_ANNOTATION =
            Pattern.compile("@(?:org\\.aspectj\\.lang\\.annotation\\.)?Aspect\\b");

    private static final Pattern ASPECT_IMPORT =
            Pattern.compile(
                    "import\\s+org\\.aspectj\\.lang\\.annotation\\.(?:Aspect|\\*)\\s*;"
                            + "|@org\\.aspectj\\.lang\\.annotation\\.Aspect\\b");

    /** Every regular file under {@code dir} (none when it does not exist), sorted. */
    static List<Path> walk(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return Collections.emptyList();
        }
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(dir)) {
            s.filter(Files::isRegularFile).forEach(out::add);
        }
        Collections.sort(out);
        return out;
    }

    /** {@code p} relative to {@code dir}, with {@code /} separators. */
    static String relative(Path dir, Path p) {
        return dir.relativize(p).toString().replace(java.io.File.separatorChar, '/');
    }

    /** Whether the Java source declares an annotation-style aspect (AspectJ's {@code @Aspect}). */
    static boolean declaresAspect(Path javaFile) throws IOException {
        String text = new String(Files.readAllBytes(javaFile), StandardCharsets.UTF_8);
        return ASPECT_IMPORT.matcher(text).find() && ASPECT_ANNOTATION.matcher(text).find();
    }
}
