import java.util.function.IntUnaryOperator;
import java.util.stream.IntStream;

/**
 * Lambdas and streams: a stream that maps 100 numbers through sq (a lambda)
 * and keeps the even squares, a Runnable lambda run 3 times, and a method
 * reference used 7 times.
 */
public class CctLambdas {
    static int runs;

    static int sq(int x) {
        return x * x;
    }

    static int twice(int x) {
        return 2 * x;
    }

    static void tick() {
        runs++;
    }

    public static void main(String[] args) {
        int sum = IntStream.range(0, 100).map(x -> sq(x)).filter(x -> x % 2 == 0).sum();
        Runnable r = () -> tick();
        for (int i = 0; i < 3; i++) {
            r.run();
        }
        IntUnaryOperator f = CctLambdas::twice;
        int t = 0;
        for (int i = 0; i < 7; i++) {
            t += f.applyAsInt(i);
        }
        if (sum != 161700 || runs != 3 || t != 42) {
            throw new AssertionError(sum + " " + runs + " " + t);
        }
    }
}
