public class Main {
    static class Circle {
        String name() { return "circle"; }
    }

    static class BigCircle extends Circle {
        @Override
        String name() { return "big circle"; }
    }

    static Circle make() {
        return new Circle();
    }

    public static void main(String[] args) {
        System.out.println(make().name());
        Circle c = new BigCircle();
        System.out.println(c.name());
    }
}
