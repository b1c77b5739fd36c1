package app;

abstract class Shape implements Scalable {
    static int made;
    final String name;

    static {
        made = 0;
    }

    Shape(String name) {
        this.name = name;
        made++;
    }

    abstract double area();

    @Override
    public double base() {
        return area();
    }
}
