package workloads.antlr4;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.antlr.v4.Tool;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.LexerInterpreter;
import org.antlr.v4.runtime.ParserInterpreter;
import org.antlr.v4.runtime.tree.ParseTree;
import org.antlr.v4.tool.Grammar;
import workloads.Results;

/**
 * Runs the ANTLR 4 tool in this JVM on the generated grammar (the Java
 * parser, lexer, listener and visitor written to {@code out/gen}), then parses
 * the generated program with the grammar's lexer and parser interpreters,
 * writing the parse tree to {@code out/tree.txt}. The grammar is copied to
 * {@code grammar/} of the work directory first, so the generated files name it
 * by a relative path.
 */
public final class Main {
    private Main() {}

    /** {@code Main INPUT_DIR}. */
    public static void main(String[] args) throws Exception {
        Path in = Path.of(args[0]);
        Path grammar = Path.of("grammar", "Mini.g4");
        Files.createDirectories(grammar.getParent());
        Files.copy(in.resolve("Mini.g4"), grammar);
        Tool tool = new Tool(new String[] {"-o", "out/gen", "-visitor", "-listener", "-package", "mini",
            "-Xexact-output-dir", grammar.toString()});
        tool.processGrammarsOnCommandLine();
        if (tool.getNumErrors() > 0) {
            System.out.println("antlr4: " + tool.getNumErrors() + " errors");
            System.exit(1);
        }
        long generated;
        try (Stream<Path> s = Files.list(Path.of("out/gen"))) {
            generated = s.count();
        }
        Grammar g = tool.loadGrammar(grammar.toString());
        String program = Results.read(in, "program.mini");
        LexerInterpreter lexer = g.createLexerInterpreter(CharStreams.fromString(program, "program.mini"));
        CommonTokenStream tokens = new CommonTokenStream(lexer);
        ParserInterpreter parser = g.createParserInterpreter(tokens);
        ParseTree tree = parser.parse(g.getRule("program").index);
        String text = tree.toStringTree(parser);
        Results.write("tree.txt", text.replace(") (function", ")\n(function") + "\n");
        System.out.println("antlr4: " + generated + " files generated, " + tokens.size() + " tokens, "
                + parser.getNumberOfSyntaxErrors() + " syntax errors, tree " + text.length() + " chars");
    }
}
