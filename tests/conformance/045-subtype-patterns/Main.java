import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;

public class Main {
    interface Shape {
        double area();
    }

    static class Rect implements Shape {
        public double area() { return 6.0; }
    }

    static class Square extends Rect {
        @Override
        public double area() { return 4.0; }
    }

    static class Circle implements Shape {
        public double area() { return 3.0; }
    }

    static double total(List<? extends Shape> shapes) {
        double t = 0;
        for (Shape s : shapes) {
            t += s.area();
        }
        return t;
    }

    public static void main(String[] args) {
        List<Shape> a = new ArrayList<>();
        a.add(new Rect());
        a.add(new Square());
        a.add(new Circle());
        System.out.println(total(a));
        List<Shape> b = new LinkedList<>(a);
        System.out.println(b.size());
    }
}
