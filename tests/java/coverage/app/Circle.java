package app;

class Circle extends Shape {
    final double r;

    Circle(double r) {
        super("circle");
        this.r = r;
    }

    @Override
    double area() {
        return 3 * r * r;
    }

    @Override
    public double scaled(double factor) {
        return super.scaled(factor) + 1;
    }
}
