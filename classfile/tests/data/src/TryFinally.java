import java.io.IOException;
import java.io.StringReader;
import java.io.BufferedReader;

/** Fixture: try/catch/finally, multi-catch, try-with-resources, synchronized. */
public class TryFinally {
    private final Object lock = new Object();
    private int count;

    public int parse(String s) {
        int r = 0;
        try {
            r = Integer.parseInt(s);
        } catch (NumberFormatException | NullPointerException e) {
            r = -1;
        } finally {
            count++;
        }
        return r;
    }

    public String firstLine(String text) throws IOException {
        try (BufferedReader br = new BufferedReader(new StringReader(text))) {
            return br.readLine();
        }
    }

    public void bump() {
        synchronized (lock) {
            count += 2;
        }
    }

    public static int nested(int[] a) {
        int sum = 0;
        outer:
        for (int i = 0; i < a.length; i++) {
            try {
                for (int j = i; j < a.length; j++) {
                    if (a[j] < 0) {
                        continue outer;
                    }
                    if (a[j] > 100) {
                        break outer;
                    }
                    sum += a[j] / (a[i] == 0 ? 1 : a[i]);
                }
            } catch (ArithmeticException e) {
                sum = -sum;
            } finally {
                sum++;
            }
        }
        return sum;
    }
}
