public class Main {
    static int compute() {
        System.out.println("        compute()");
        return 7;
    }

    public static void main(String[] args) {
        System.out.println("result " + compute());
    }
}
