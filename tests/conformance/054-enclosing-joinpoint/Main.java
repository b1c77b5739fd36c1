public class Main {
    static int counter;

    static { 
        counter = Integer.parseInt("5");
    }

    int value = Integer.parseInt("6");

    Main() {
        counter++;
    }

    static void work() {
        try {
            Integer.parseInt("x");
        } catch (NumberFormatException e) {
            counter--;
        }
    }

    public static void main(String[] args) {
        new Main();
        work();
        Runnable r = () -> counter += 10;
        r.run();
        System.out.println(counter);
    }
}
