package app;

class Square extends Shape {
    final double side;

    Square(double side) {
        this("square", side);
    }

    Square(String name, double side) {
        super(name);
        this.side = side;
    }

    @Override
    double area() {
        return side * side;
    }
}
