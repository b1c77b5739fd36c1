public class Main {
    static void run() {
        System.out.println("      run()");
    }

    public static void main(String[] args) {
        run();
    }
}
