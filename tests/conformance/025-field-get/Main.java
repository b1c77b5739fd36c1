public class Main {
    static int counter = 5;
    static final String CONSTANT = "constant";
    int value = 10;
    String label = "lbl";

    int sum() {
        return value + counter;
    }

    public static void main(String[] args) {
        Main m = new Main();
        System.out.println(m.sum());
        System.out.println(m.label);
        System.out.println(CONSTANT);
        System.out.println(Main.counter);
    }
}
