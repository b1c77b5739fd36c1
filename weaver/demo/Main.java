import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** The program `major demo` weaves: a few shapes, a lambda, a string concatenation. */
public class Main {
    interface Shape {
        double area();
    }

    record Circle(double r) implements Shape {
        public double area() {
            return Math.PI * r * r;
        }
    }

    record Square(double side) implements Shape {
        public double area() {
            return side * side;
        }
    }

    static double total(List<Shape> shapes) {
        double sum = 0;
        for (Shape s : shapes) {
            sum += s.area();
        }
        return sum;
    }

    public static void main(String[] args) {
        List<Shape> shapes = new ArrayList<>();
        Function<Double, Shape> circle = Circle::new;
        for (int i = 1; i <= 3; i++) {
            shapes.add(circle.apply((double) i));
            shapes.add(new Square(i));
        }
        System.out.println("total area of " + shapes.size() + " shapes: " + Math.round(total(shapes)));
    }
}
