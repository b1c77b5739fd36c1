package corpus;

import java.util.*;
import java.util.function.*;
import static java.util.Objects.requireNonNull;

/** Java members whose extent is tricky to find; none of this is parsed as Java. */
@SuppressWarnings({"unchecked", "rawtypes"})
public aspect JavaMembers {
    private static final Map<String, List<Map<Integer, int[]>>> nested = new HashMap<>();
    private final Runnable lambda = () -> { System.out.println("} { ) ("); };
    private final Object anonymous = new Object() {
        @Override public String toString() { return "{"; }
    };
    private final int[][] grid = { { 1, 2 }, { 3 } }, other = new int[] { 4 };
    private final char quote = '\'', brace = '{', backslash = '\\', unicode = '\u007B';
    private final String text = """
        a text block with "quotes", \""" and } { braces
        """;
    private final String tricky = "// not a comment /* nor this */ \" }";
    /* a comment with } and { and " */
    // a line comment with { and "
    private static int counter = 0 /* { */, second = 1 // }
        ;

    static {
        counter = "{".length();
    }

    {
        counter++;
    }

    public JavaMembers() {
        super();
    }

    <T extends Comparable<? super T>> T max(Collection<? extends T> xs) throws IllegalStateException {
        return Collections.max(xs);
    }

    abstract static class Inner<K, V> implements Map.Entry<K, V> {
        abstract void run();
    }

    enum Color { RED, GREEN { @Override public String toString() { return "g}"; } }; int x; }

    record Point(int x, int y) {
        Point {
            if (x < 0) throw new IllegalArgumentException("x {");
        }
    }

    @interface Marker { String value() default "}"; int[] ids() default { 1 }; }

    Comparator<String> byLength = Comparator.<String, Integer>comparing(String::length);
    int[] array[];
    List<? extends Number>[] wildcards;

    pointcut everything(): execution(* *(..)) && within(corpus..*);

    Object around(Map<String, List<Integer>> m, int[]... rest):
            execution(* *(Map, int[][])) && args(m, rest) {
        BiFunction<Object, Object, Object> f = (a, b) -> { return proceed(m, rest); };
        return f.apply(null, null);
    }

    before(final List<? super Integer> xs): everything() && args(xs) {
        xs.forEach(x -> { if (x == null) { throw new NullPointerException("}"); } });
    }
}

class AfterTheAspect<T> {
    T value;
}

interface Service {
    void call();
}
