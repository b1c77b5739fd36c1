package gen;

/** A class the program defines from bytes with its own loader. */
public class Plugin implements app.Dynamic.Greeter {
    public String greet(String name) {
        return "hi, " + name;
    }
}
