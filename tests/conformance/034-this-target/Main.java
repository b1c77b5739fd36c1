public class Main {
    interface Animal {
        String sound();
    }

    static class Dog implements Animal {
        public String sound() { return "woof"; }

        String callOther(Animal other) {
            return "dog hears " + other.sound();
        }
    }

    static class Cat implements Animal {
        public String sound() { return "meow"; }
    }

    public static void main(String[] args) {
        Animal[] animals = {new Dog(), new Cat()};
        for (Animal a : animals) {
            System.out.println(a.sound());
        }
        Dog d = new Dog();
        System.out.println(d.callOther(new Cat()));
        System.out.println(d.callOther(d));
    }
}
