package workloads.gen;

import java.nio.file.Path;

/**
 * Writes every workload's input under {@code args[0]/<workload>/}; the inputs
 * depend only on fixed seeds, so every JDK writes the same bytes.
 */
public final class Generate {
    private Generate() {}

    /** {@code Generate INPUTS_DIR}. */
    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        workloads.javac.Input.generate(root.resolve("javac"));
        workloads.xalan.Input.generate(root.resolve("xalan"));
        workloads.SqlWorkload.generate(root.resolve("h2"));
        workloads.SqlWorkload.generate(root.resolve("hsqldb"));
        workloads.lucene.Input.generate(root.resolve("lucene"));
        workloads.antlr4.Input.generate(root.resolve("antlr4"));
    }
}
