public class Main {
    static class Vehicle {
        String kind;
        int wheels;

        Vehicle(String kind, int wheels) {
            this.kind = kind;
            this.wheels = wheels;
            System.out.println("    Vehicle(" + kind + ", " + wheels + ")");
        }

        Vehicle(String kind) {
            this(kind, 4);
            System.out.println("    Vehicle(" + kind + ")");
        }
    }

    static class Bike extends Vehicle {
        boolean electric;

        Bike(boolean electric) {
            super(electric ? "e-bike" : "bike", 2);
            this.electric = electric;
            System.out.println("    Bike(" + electric + ")");
        }

        Bike() {
            this(false);
            System.out.println("    Bike()");
        }
    }

    static class Car extends Vehicle {
        Car() {
            super("car");
            System.out.println("    Car()");
        }
    }

    public static void main(String[] args) {
        new Bike();
        System.out.println("--");
        new Car();
        System.out.println("--");
        Vehicle v = new Bike(true);
        System.out.println(v.kind + " " + v.wheels);
    }
}
