import java.util.ArrayList;
import java.util.List;

public class Main {
    static class Run {
        static List<String> NAMES = new ArrayList<>();
        static int count = 10;
        static {
            NAMES.add("a");
            count++;
            System.out.println("  Run initializer");
        }
    }

    static class Skip {
        static int count = 10;
        static String name = "set";
        static {
            System.out.println("  Skip initializer");
        }
    }

    static class NoInit {
        static int value;
    }

    public static void main(String[] args) {
        System.out.println("Run.count = " + Run.count + " " + Run.NAMES);
        System.out.println("Skip.count = " + Skip.count + " " + Skip.name);
        System.out.println("NoInit.value = " + NoInit.value);
    }
}
