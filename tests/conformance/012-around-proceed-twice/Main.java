public class Main {
    private int counter;

    int next() {
        counter++;
        System.out.println("  next -> " + counter);
        return counter;
    }

    void log(String s) {
        System.out.println("  log " + s);
    }

    public static void main(String[] args) {
        Main m = new Main();
        System.out.println("sum " + m.next());
        m.log("twice");
        System.out.println("counter " + m.counter);
    }
}
