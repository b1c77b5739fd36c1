public class Main {
    @Traced
    static void one() { }

    @Traced("two")
    @Internal
    static void two() { }

    @Internal
    static void three() { }

    static void four() { }

    @Traced
    static int counter;

    @Traced
    static class Special {
        void work() { }
    }

    public static void main(String[] args) {
        one();
        two();
        three();
        four();
        counter = 1;
        new Special().work();
    }
}
