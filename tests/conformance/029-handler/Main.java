import java.io.FileNotFoundException;
import java.io.IOException;

public class Main {
    static void open(String name) throws IOException {
        if (name.startsWith("missing")) {
            throw new FileNotFoundException(name);
        }
        throw new IOException("generic " + name);
    }

    public static void main(String[] args) {
        String[] names = {"missing.txt", "other.txt"};
        for (String n : names) {
            try {
                open(n);
            } catch (FileNotFoundException e) {
                System.out.println("not found: " + e.getMessage());
            } catch (IOException e) {
                System.out.println("io: " + e.getMessage());
            }
        }
        try {
            Object o = null;
            o.hashCode();
        } catch (NullPointerException e) {
            System.out.println("npe handled");
        } finally {
            System.out.println("finally");
        }
    }
}
