import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

public class Main {
    interface Greeter {
        String greet(String who);
    }

    static Greeter make(String greeting) {
        return new Greeter() {
            @Override
            public String greet(String who) {
                return greeting + ", " + who;
            }
        };
    }

    static int localClass(int n) {
        class Counter {
            int count;

            void add(int k) {
                count += k;
            }
        }
        Counter c = new Counter();
        for (int i = 1; i <= n; i++) {
            c.add(i);
        }
        return c.count;
    }

    public static void main(String[] args) {
        System.out.println(make("hi").greet("ann"));
        System.out.println(localClass(4));
        List<String> l = new ArrayList<>(List.of("b", "c", "a"));
        Collections.sort(l, new Comparator<String>() {
            @Override
            public int compare(String x, String y) {
                return y.compareTo(x);
            }
        });
        System.out.println(l);
    }
}
