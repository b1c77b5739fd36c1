public class Main {
    static int created;
    String a = make("field a");
    String b;

    {
        b = make("instance block");
        created++;
    }

    Main() {
        System.out.println("  Main() body");
    }

    Main(String extra) {
        this();
        System.out.println("  Main(String) body " + extra);
    }

    static String make(String what) {
        System.out.println("  make " + what);
        return what;
    }

    public static void main(String[] args) {
        new Main("x");
        System.out.println(created);
    }
}
