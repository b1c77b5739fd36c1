import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

public class Main {
    static List<Runnable> later = new ArrayList<>();
    static List<Supplier<Object>> suppliers = new ArrayList<>();

    static void f() {
        System.out.println("  f runs");
    }

    static int g(int x) {
        System.out.println("  g(" + x + ")");
        return x * 10;
    }

    static String h(String s) throws IOException {
        if (s.isEmpty()) {
            throw new IOException("empty");
        }
        return s.toUpperCase();
    }

    public static void main(String[] args) throws Exception {
        System.out.println("call f");
        f();
        System.out.println("run later");
        for (Runnable r : later) {
            r.run();
        }
        System.out.println("call g");
        int v = g(3);
        System.out.println("g -> " + v);
        for (Supplier<Object> s : suppliers) {
            System.out.println("supplier -> " + s.get());
        }
        System.out.println("h -> " + h("abc"));
        try {
            h("");
        } catch (IOException e) {
            System.out.println("caught " + e.getMessage());
        }
    }
}
