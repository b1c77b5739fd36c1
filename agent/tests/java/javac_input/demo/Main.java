package demo;

import java.util.List;

public class Main {
    public static void main(String[] args) {
        var shapes = List.of(new Shapes.Circle(1), new Shapes.Rect(2, 3));
        System.out.println(Shapes.areas(shapes, a -> a * 2));
        for (var s : shapes) System.out.println(Shapes.describe(s));
        try {
            Object o = Class.forName("demo.Shapes$Kind").getEnumConstants();
            System.out.println(o != null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
