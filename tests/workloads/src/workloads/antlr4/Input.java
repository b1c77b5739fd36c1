package workloads.antlr4;

import java.io.IOException;
import java.nio.file.Path;
import workloads.Results;
import workloads.Rng;

/**
 * The antlr4 workload's input: {@code Mini.g4}, a combined grammar of a small
 * imperative language (precedence climbing, labels, lexer modes-free tokens,
 * fragments, skipped comments), and {@code program.mini}, a generated program
 * in that language.
 */
public final class Input {
    private Input() {}

    /** Number of generated functions. */
    static final int FUNCTIONS = 120;

    /** Writes {@code Mini.g4} and {@code program.mini} under {@code dir}. */
    public static void generate(Path dir) throws IOException {
        Results.writeInput(dir, "Mini.g4", GRAMMAR);
        Rng rng = new Rng(472);
        StringBuilder p = new StringBuilder("// generated program\n");
        for (int f = 0; f < FUNCTIONS; f++) {
            p.append("fn ").append(rng.word()).append(f).append("(a, b, c) {\n");
            statements(rng, p, 1, rng.between(3, 8));
            p.append("  return ").append(expr(rng, 3)).append(";\n}\n\n");
        }
        p.append("/* the end */\n");
        Results.writeInput(dir, "program.mini", p);
    }

    private static void statements(Rng rng, StringBuilder p, int depth, int n) {
        String pad = "  ".repeat(depth);
        for (int i = 0; i < n; i++) {
            switch (depth > 2 ? rng.below(2) : rng.below(5)) {
                case 0:
                    p.append(pad).append("let ").append(rng.word()).append(" = ").append(expr(rng, 3)).append(";\n");
                    break;
                case 1:
                    p.append(pad).append("print(").append(expr(rng, 2)).append(", \"")
                            .append(rng.words(2)).append("\");\n");
                    break;
                case 2:
                    p.append(pad).append("if (").append(expr(rng, 2)).append(" < ").append(expr(rng, 1))
                            .append(") {\n");
                    statements(rng, p, depth + 1, rng.between(1, 3));
                    p.append(pad).append("} else {\n");
                    statements(rng, p, depth + 1, rng.between(1, 2));
                    p.append(pad).append("}\n");
                    break;
                case 3:
                    p.append(pad).append("while (").append(rng.word()).append(" != 0) {\n");
                    statements(rng, p, depth + 1, rng.between(1, 3));
                    p.append(pad).append("}\n");
                    break;
                default:
                    p.append(pad).append(rng.word()).append(" = ").append(rng.word()).append("[")
                            .append(expr(rng, 1)).append("] + ").append(expr(rng, 2)).append("; // update\n");
            }
        }
    }

    private static String expr(Rng rng, int depth) {
        if (depth == 0 || rng.below(3) == 0) {
            switch (rng.below(4)) {
                case 0:
                    return Integer.toString(rng.below(1000));
                case 1:
                    return rng.word();
                case 2:
                    return rng.word() + "(" + rng.word() + ", " + rng.below(10) + ")";
                default:
                    return "[" + rng.below(9) + ", " + rng.word() + "]";
            }
        }
        String[] ops = {"+", "-", "*", "/", "%", "==", "&&", "||"};
        String e = expr(rng, depth - 1) + " " + rng.pick(ops) + " " + expr(rng, depth - 1);
        return rng.below(3) == 0 ? "(" + e + ")" : rng.below(5) == 0 ? "-" + e : e;
    }

    static final String GRAMMAR = String.join("\n",
            "grammar Mini;",
            "",
            "program : function* EOF ;",
            "",
            "function : 'fn' ID '(' params? ')' block ;",
            "",
            "params : ID (',' ID)* ;",
            "",
            "block : '{' statement* '}' ;",
            "",
            "statement",
            "    : 'let' ID '=' expr ';'                         # Let",
            "    | target '=' expr ';'                           # Assign",
            "    | 'print' '(' args ')' ';'                      # Print",
            "    | 'if' '(' expr ')' block ('else' block)?       # If",
            "    | 'while' '(' expr ')' block                    # While",
            "    | 'return' expr ';'                             # Return",
            "    | block                                         # Nested",
            "    ;",
            "",
            "target : ID ('[' expr ']')* ;",
            "",
            "args : expr (',' expr)* ;",
            "",
            "expr",
            "    : '-' expr                                      # Negate",
            "    | '!' expr                                      # Not",
            "    | expr op=('*' | '/' | '%') expr                # Mul",
            "    | expr op=('+' | '-') expr                      # Add",
            "    | expr op=('<' | '<=' | '>' | '>=') expr        # Compare",
            "    | expr op=('==' | '!=') expr                    # Equal",
            "    | expr '&&' expr                                # And",
            "    | expr '||' expr                                # Or",
            "    | expr '[' expr ']'                             # Index",
            "    | ID '(' args? ')'                              # Call",
            "    | '[' args? ']'                                 # List",
            "    | '(' expr ')'                                  # Parens",
            "    | ID                                            # Name",
            "    | NUMBER                                        # Number",
            "    | STRING                                        # String",
            "    ;",
            "",
            "ID : LETTER (LETTER | DIGIT | '_')* ;",
            "NUMBER : DIGIT+ ('.' DIGIT+)? ;",
            "STRING : '\"' (ESC | ~[\"\\\\])* '\"' ;",
            "fragment ESC : '\\\\' [\"\\\\nt] ;",
            "fragment LETTER : [a-zA-Z] ;",
            "fragment DIGIT : [0-9] ;",
            "LINE_COMMENT : '//' ~[\\r\\n]* -> skip ;",
            "BLOCK_COMMENT : '/*' .*? '*/' -> skip ;",
            "WS : [ \\t\\r\\n]+ -> skip ;",
            "");
}
