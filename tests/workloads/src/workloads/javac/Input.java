package workloads.javac;

import java.io.IOException;
import java.nio.file.Path;
import workloads.Results;
import workloads.Rng;

/**
 * The javac workload's input: a source tree {@code src/gen/...} of generated
 * classes using generics, lambdas and method references, inner, anonymous and
 * nested classes, enums with switch expressions, records, switch on strings,
 * pattern matching and text blocks; each class calls one in another package,
 * and {@code gen.Main} runs them all.
 */
public final class Input {
    private Input() {}

    /** Number of generated classes (besides {@code gen.Shape} and {@code gen.Main}). */
    static final int CLASSES = 48;
    /** Number of packages they are spread over. */
    static final int PACKAGES = 8;

    /** Writes the source tree under {@code dir/src}. */
    public static void generate(Path dir) throws IOException {
        Rng rng = new Rng(17);
        Path src = dir.resolve("src");
        Results.writeInput(src, "gen/Shape.java", String.join("\n",
                "package gen;",
                "",
                "/** Something with a name. */",
                "public interface Shape {",
                "    String name();",
                "",
                "    long compute();",
                "",
                "    default String describe() {",
                "        return \"shape \" + name();",
                "    }",
                "}",
                ""));
        StringBuilder main = new StringBuilder();
        main.append("package gen;\n\nimport java.util.ArrayList;\nimport java.util.List;\n\n")
                .append("/** Runs every generated class. */\npublic final class Main {\n")
                .append("    public static long run() {\n        List<Shape> all = new ArrayList<>();\n");
        for (int i = 0; i < CLASSES; i++) {
            Results.writeInput(src, "gen/p" + (i % PACKAGES) + "/C" + i + ".java", unit(rng, i));
            main.append("        all.add(new gen.p").append(i % PACKAGES).append(".C").append(i)
                    .append("(").append(i).append("));\n");
        }
        main.append("        long h = 0;\n        for (Shape s : all) {\n")
                .append("            h = h * 1_000_003L + s.compute() + s.describe().length();\n        }\n")
                .append("        return h;\n    }\n}\n");
        Results.writeInput(src, "gen/Main.java", main);
    }

    private static String unit(Rng rng, int i) {
        String c = "C" + i;
        int n = rng.between(20, 60);
        String[] words = new String[rng.between(4, 9)];
        for (int k = 0; k < words.length; k++) {
            words[k] = rng.word() + k;
        }
        StringBuilder quoted = new StringBuilder();
        for (String w : words) {
            quoted.append(quoted.length() == 0 ? "" : ", ").append('"').append(w).append('"');
        }
        String[] consts = {"ALPHA", "BETA", "GAMMA", "DELTA", "EPSILON", "ZETA"};
        int nc = rng.between(3, consts.length);
        StringBuilder enumBody = new StringBuilder();
        StringBuilder cases = new StringBuilder();
        for (int k = 0; k < nc; k++) {
            enumBody.append(k == 0 ? "" : ", ").append(consts[k]);
            cases.append("                case ").append(consts[k]).append(" -> ")
                    .append(rng.between(1, 97)).append(";\n");
        }
        StringBuilder labels = new StringBuilder();
        for (int k = 0; k < words.length; k += 2) {
            labels.append("            case \"").append(words[k]).append("\":\n                return \"")
                    .append(rng.name()).append("\";\n");
        }
        String dep = i == 0 ? "0L" : "new gen.p" + ((i - 1) % PACKAGES) + ".C" + (i - 1) + "(seed + 1).shallow()";
        return "package gen.p" + (i % PACKAGES) + ";\n"
                + "\n"
                + "import java.util.*;\n"
                + "import java.util.function.*;\n"
                + "import java.util.stream.*;\n"
                + "\n"
                + "/** Generated class " + i + ". */\n"
                + "public class " + c + " implements gen.Shape {\n"
                + "    static final int K = " + rng.between(1, 1000) + ";\n"
                + "    private final int seed;\n"
                + "\n"
                + "    public enum Kind { " + enumBody + ";\n"
                + "        int weight() {\n"
                + "            return switch (this) {\n" + cases
                + "            };\n"
                + "        }\n"
                + "    }\n"
                + "\n"
                + "    public record Pair<A, B>(A first, B second) {\n"
                + "        public Pair {\n"
                + "            Objects.requireNonNull(first, \"first\");\n"
                + "        }\n"
                + "\n"
                + "        <C> Pair<A, C> withSecond(C c) {\n"
                + "            return new Pair<>(first, c);\n"
                + "        }\n"
                + "    }\n"
                + "\n"
                + "    static final class Node<T extends Comparable<? super T>> {\n"
                + "        final T value;\n"
                + "        Node<T> left, right;\n"
                + "\n"
                + "        Node(T value) {\n"
                + "            this.value = value;\n"
                + "        }\n"
                + "\n"
                + "        void insert(T v) {\n"
                + "            if (v.compareTo(value) < 0) {\n"
                + "                if (left == null) left = new Node<>(v); else left.insert(v);\n"
                + "            } else {\n"
                + "                if (right == null) right = new Node<>(v); else right.insert(v);\n"
                + "            }\n"
                + "        }\n"
                + "\n"
                + "        void walk(Consumer<? super T> visit) {\n"
                + "            if (left != null) left.walk(visit);\n"
                + "            visit.accept(value);\n"
                + "            if (right != null) right.walk(visit);\n"
                + "        }\n"
                + "    }\n"
                + "\n"
                + "    class Inner {\n"
                + "        int twice() {\n"
                + "            return seed * 2 + K;\n"
                + "        }\n"
                + "    }\n"
                + "\n"
                + "    public " + c + "(int seed) {\n"
                + "        this.seed = seed;\n"
                + "    }\n"
                + "\n"
                + "    @SafeVarargs\n"
                + "    static <T extends Comparable<? super T>> Optional<T> max(T... xs) {\n"
                + "        return Arrays.stream(xs).max(Comparator.naturalOrder());\n"
                + "    }\n"
                + "\n"
                + "    static String label(String s) {\n"
                + "        switch (s) {\n" + labels
                + "            default:\n"
                + "                return \"other:\" + s;\n"
                + "        }\n"
                + "    }\n"
                + "\n"
                + "    static int size(Object o) {\n"
                + "        if (o instanceof String s && !s.isEmpty()) return s.length();\n"
                + "        if (o instanceof Collection<?> c) return c.size();\n"
                + "        return -1;\n"
                + "    }\n"
                + "\n"
                + "    public long shallow() {\n"
                + "        return seed * 7L + K;\n"
                + "    }\n"
                + "\n"
                + "    @Override\n"
                + "    public long compute() {\n"
                + "        Node<String> root = new Node<>(\"m\");\n"
                + "        for (String w : new String[] {" + quoted + "}) root.insert(w);\n"
                + "        StringBuilder sb = new StringBuilder();\n"
                + "        root.walk(sb::append);\n"
                + "        long h = sb.toString().hashCode();\n"
                + "        List<Integer> xs = IntStream.range(0, " + n + ").boxed().collect(Collectors.toList());\n"
                + "        h += xs.stream().filter(x -> x % 3 != seed % 3).mapToLong(x -> (long) x * x).sum();\n"
                + "        Map<Boolean, List<Integer>> parts = xs.stream().collect(Collectors.partitioningBy(x -> x % 2 == 0));\n"
                + "        h += parts.get(true).size() * 3L + parts.get(false).size();\n"
                + "        for (Kind k : Kind.values()) h = h * 31 + (long) k.weight() * k.ordinal();\n"
                + "        h += label(\"" + words[0] + "\").length() + label(\"none\").length();\n"
                + "        h += new Inner().twice();\n"
                + "        Function<Integer, Integer> plus = new Function<>() {\n"
                + "            @Override\n"
                + "            public Integer apply(Integer x) {\n"
                + "                return x + seed;\n"
                + "            }\n"
                + "        };\n"
                + "        h += plus.andThen(x -> x * 2).apply(" + rng.between(1, 50) + ");\n"
                + "        Pair<String, Integer> p = new Pair<>(\"" + words[1] + "\", K);\n"
                + "        h += p.withSecond((long) seed).second() + p.toString().length();\n"
                + "        h += max(" + quoted + ").map(String::length).orElse(0);\n"
                + "        h += size(\"" + words[2] + "\") + size(xs) + size(null);\n"
                + "        String block = \"\"\"\n"
                + "            " + words[3] + "\n"
                + "              " + c + "\n"
                + "            \"\"\";\n"
                + "        h += block.lines().count();\n"
                + "        h += " + dep + ";\n"
                + "        return h;\n"
                + "    }\n"
                + "\n"
                + "    @Override\n"
                + "    public String name() {\n"
                + "        return \"" + c + "\";\n"
                + "    }\n"
                + "}\n";
    }
}
