import java.util.List;

public aspect Results {
    after() returning(String s): execution(Object Main.make(int)) {
        System.out.println("  returned a String: " + s);
    }

    after() returning(Integer i): execution(Object Main.make(int)) {
        System.out.println("  returned an Integer: " + i);
    }

    after() returning(Object o): execution(Object Main.make(int)) {
        System.out.println("  returned an Object: " + o);
    }

    after() returning(List<?> l): execution(* Main.names()) {
        System.out.println("  list of size " + l.size());
    }
}
