import java.io.IOException;
import java.io.UncheckedIOException;

public class Main {
    static void io() throws IOException { }
    static void two() throws IOException, InterruptedException { }
    static void unchecked() throws IllegalStateException { }
    static void none() { }
    static void wrapped() {
        try {
            io();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        io();
        two();
        unchecked();
        none();
        wrapped();
    }
}
