package demo;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** Shapes with generics, lambdas and records: javac's input under the agent. */
public class Shapes {
    public interface Shape { double area(); }

    public record Circle(double r) implements Shape {
        public double area() { return Math.PI * r * r; }
    }

    public record Rect(double w, double h) implements Shape {
        public double area() { return w * h; }
    }

    public enum Kind { ROUND, SQUARE }

    public static <T extends Shape> List<Double> areas(List<T> shapes, Function<Double, Double> f) {
        List<Double> out = new ArrayList<>();
        for (T s : shapes) out.add(f.apply(s.area()));
        return out;
    }

    public static String describe(Shape s) {
        if (s instanceof Circle c) {
            return "circle " + c.r();
        }
        return "shape " + s.area();
    }
}
