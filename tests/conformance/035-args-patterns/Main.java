public class Main {
    static void none() { }
    static void one(String s) { }
    static void two(String s, int i) { }
    static void three(int i, String s, Object o) { }
    static void boxed(Integer i) { }
    static void object(Object o) { }

    public static void main(String[] args) {
        none();
        one("a");
        two("b", 2);
        three(3, "c", "object string");
        three(4, "d", 5);
        boxed(6);
        object("str");
        object(7);
        object(null);
    }
}
