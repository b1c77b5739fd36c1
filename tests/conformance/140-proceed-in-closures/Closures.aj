import java.io.IOException;
import java.util.function.Supplier;

public aspect Closures {
    void around(): call(void Main.f()) {
        Runnable r = () -> proceed();
        r.run();
        Main.later.add(r);
        Main.later.add(new Runnable() {
            public void run() {
                System.out.println("  anonymous proceeds");
                proceed();
            }
        });
        System.out.println("  advice returns");
    }

    int around(int x): call(int Main.g(int)) && args(x) {
        Supplier<Object> twice = () -> proceed(x + 1) + proceed(x + 2);
        Main.suppliers.add(twice);
        Main.suppliers.add(() -> proceed(100));
        return proceed(x);
    }

    String around(String s): call(String Main.h(String)) && args(s) {
        Supplier<String> once = () -> proceed(s);
        String r = once.get();
        return "<" + r + ">";
    }

    String around(String s) throws IOException: call(String Main.h(String)) && args(s) && if(s.isEmpty()) {
        try {
            return proceed(s);
        } catch (IOException e) {
            System.out.println("  advice saw " + e.getMessage());
            throw e;
        }
    }
}
