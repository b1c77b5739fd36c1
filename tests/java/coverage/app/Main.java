package app;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * The program whose method executions the JVMTI oracle and a woven counter both
 * count (weaver/tests/coverage_jvmti.rs): inheritance, interfaces with default
 * methods, constructors chaining with this(..), nested, inner, anonymous and
 * local classes, lambdas, enums, recursion, exceptions, static initializers and
 * a second thread. Deterministic.
 */
public class Main {
    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    public static void main(String[] args) throws Exception {
        List<Shape> shapes = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            shapes.add(i % 2 == 0 ? new Square(i) : new Circle(i));
        }
        shapes.add(new Shape("anonymous") {
            @Override
            double area() {
                return 1.5;
            }
        });
        double total = 0;
        for (Shape s : shapes) {
            total += s.area();
            total += s.scaled(2);
        }
        System.out.println("total " + Math.round(total));
        System.out.println("fib " + fib(15));
        IntUnaryOperator twice = x -> 2 * x;
        int acc = 0;
        for (int i = 0; i < 10; i++) {
            acc += twice.applyAsInt(i);
        }
        System.out.println("lambda " + acc);
        Counter c = new Counter();
        Counter.Inner in = c.new Inner();
        for (int i = 0; i < 7; i++) {
            in.bump();
        }
        System.out.println("counter " + c.value());
        for (Color col : Color.values()) {
            System.out.println(col + " " + col.rgb());
        }
        try {
            Checks.positive(-1);
        } catch (IllegalArgumentException e) {
            System.out.println("caught " + e.getMessage());
        }
        int[] fromThread = new int[1];
        Thread t = new Thread(new Runnable() {
            @Override
            public void run() {
                fromThread[0] = fib(10);
            }
        });
        t.start();
        t.join();
        System.out.println("thread " + fromThread[0]);
        class Local {
            int three() {
                return 3;
            }
        }
        System.out.println("local " + new Local().three());
    }
}
