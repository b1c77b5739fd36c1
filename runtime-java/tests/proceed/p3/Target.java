package p3;

import java.util.function.Supplier;

/** Around advice with proceed(Object[]) in every binding shape (see Asp). */
public class Target {
    final String tag;

    Target(String tag) {
        this.tag = tag;
    }

    public String inst(int a, String b) {
        return tag + ":" + a + b;
    }

    public static String stat(int a, String b) {
        return "static:" + a + b;
    }

    public String noargs() {
        return tag + ":noargs";
    }

    public String bound(int a) {
        return tag + ":bound" + a;
    }

    public String both() {
        return tag + ":both";
    }

    public String thisbound(int a) {
        return tag + ":tb" + a;
    }

    public String caller(int a) {
        return tag + ":caller/" + helper(a) + "/" + helper2(a) + "/" + helper3(a);
    }

    String helper(int a) {
        return tag + "-h" + a;
    }

    String helper2(int a) {
        return tag + "-h2_" + a;
    }

    String helper3(int a) {
        return tag + "-h3_" + a;
    }

    public long wide(long x, double y, char c, boolean z) {
        return x + (long) y + c + (z ? 1 : 0);
    }

    public void nothing(int a) {
        System.out.println("  nothing ran with " + a);
    }

    public String callee(int a, String b) {
        return tag + ":callee" + a + b;
    }

    static void run(String what, Supplier<Object> s) {
        try {
            System.out.println(what + " -> " + s.get());
        } catch (Throwable e) {
            System.out.println(what + " !! " + e);
        }
    }

    public static void main(String[] args) {
        Target t = new Target("T1");
        for (int i = 1; i <= 3; i++) {
            final int n = i;
            run("exec inst " + n, () -> t.inst(n, "x"));
            run("exec stat " + n, () -> Target.stat(n, "y"));
            run("exec noargs " + n, () -> t.noargs());
        }
        for (int i = 1; i <= 5; i++) {
            final int n = i;
            run("exec bound " + n, () -> t.bound(n));
        }
        for (int i = 1; i <= 2; i++) {
            final int n = i;
            run("exec both " + n, () -> t.both());
            run("exec thisbound " + n, () -> t.thisbound(n));
            run("exec caller " + n, () -> t.caller(n));
        }
        for (long i = 1; i <= 4; i++) {
            final long n = i;
            run("exec wide " + n, () -> t.wide(n, 2.0, 'a', false));
        }
        run("exec nothing", () -> {
            t.nothing(6);
            return "void";
        });
        run("call new", () -> Caller.make("T3").tag);
        run("call callee", () -> Caller.callee(t));
    }
}

class Caller {
    static Target make(String tag) {
        return new Target(tag);
    }

    static String callee(Target t) {
        return t.callee(7, "z");
    }
}
