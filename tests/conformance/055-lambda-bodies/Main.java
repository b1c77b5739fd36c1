import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

public class Main {
    static int twice(int x) {
        return 2 * x;
    }

    public static void main(String[] args) {
        Function<Integer, Integer> f = x -> twice(x) + 1;
        System.out.println(f.apply(5));
        Supplier<String> s = () -> "supplied";
        System.out.println(s.get());
        List<String> out = new ArrayList<>();
        Arrays.asList("b", "a", "c").forEach(v -> out.add(v.toUpperCase()));
        System.out.println(out);
        Function<Integer, Integer> ref = Main::twice;
        System.out.println(ref.apply(21));
    }
}
