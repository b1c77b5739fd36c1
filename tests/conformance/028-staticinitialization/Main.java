public class Main {
    static class Config {
        static final java.util.List<String> KEYS = new java.util.ArrayList<>();

        static {
            KEYS.add("alpha");
            System.out.println("  Config static block");
        }
    }

    static class Lazy {
        static int value = compute();

        static int compute() {
            System.out.println("  Lazy.compute");
            return 3;
        }
    }

    static class NoInit {
        static void hello() {
            System.out.println("  NoInit.hello");
        }
    }

    public static void main(String[] args) {
        System.out.println("main starts");
        System.out.println(Config.KEYS);
        System.out.println(Lazy.value);
        NoInit.hello();
    }
}
