/** Fixture: an interface with a default, a static and a private method. */
public interface Greeter {
    String PREFIX = "Hello, ";

    String name();

    default String greet() {
        return decorate(PREFIX + name());
    }

    static Greeter of(String n) {
        return () -> n;
    }

    private String decorate(String s) {
        return s.isEmpty() ? "?" : s + "!";
    }
}
