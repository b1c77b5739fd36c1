public class Main {
    @Traced("alpha")
    static int alpha(int x) {
        return x + 1;
    }

    @Traced
    void beta() {
    }

    void gamma() {
    }

    public static void main(String[] args) {
        alpha(1);
        Main m = new Main();
        m.beta();
        m.gamma();
    }
}
