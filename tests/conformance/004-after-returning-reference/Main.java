import java.util.ArrayList;
import java.util.List;

public class Main {
    static Object make(int kind) {
        if (kind == 0) {
            return "a string";
        } else if (kind == 1) {
            return Integer.valueOf(42);
        }
        return null;
    }

    static List<String> names() {
        List<String> l = new ArrayList<>();
        l.add("x");
        l.add("y");
        return l;
    }

    public static void main(String[] args) {
        for (int i = 0; i < 3; i++) {
            System.out.println("make(" + i + ") = " + make(i));
        }
        System.out.println("names " + names());
    }
}
