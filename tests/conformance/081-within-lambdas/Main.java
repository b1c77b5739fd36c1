import java.util.function.IntUnaryOperator;

public class Main {
    static int inc(int x) {
        return x + 1;
    }

    public static void main(String[] args) {
        int direct = inc(1);
        IntUnaryOperator op = v -> inc(v) * 2;
        Runnable r = new Runnable() {
            @Override
            public void run() {
                System.out.println("  anonymous run: " + inc(10));
            }
        };
        System.out.println(direct + " " + op.applyAsInt(5));
        r.run();
    }
}
