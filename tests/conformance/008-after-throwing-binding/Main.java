import java.io.IOException;

public class Main {
    static void fail(int kind) throws Exception {
        switch (kind) {
            case 0:
                throw new IllegalStateException("state");
            case 1:
                throw new IllegalArgumentException("argument");
            case 2:
                throw new IOException("io");
            default:
                System.out.println("  no failure");
        }
    }

    public static void main(String[] args) {
        for (int k = 0; k < 4; k++) {
            try {
                fail(k);
            } catch (Exception e) {
                System.out.println("caught " + e.getMessage());
            }
        }
    }
}
