public class Main {
    static void work(int n) {
        System.out.println("  work " + n);
    }

    public static void main(String[] args) {
        work(1);
        work(2);
    }
}
