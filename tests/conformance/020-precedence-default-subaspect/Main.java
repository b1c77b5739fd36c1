public class Main {
    void step() {
        System.out.println("    step()");
    }

    public static void main(String[] args) {
        new Main().step();
    }
}
