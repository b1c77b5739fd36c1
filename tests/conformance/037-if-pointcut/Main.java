public class Main {
    static boolean verbose = false;

    static int process(int n) {
        return n * 3;
    }

    public static void main(String[] args) {
        for (int i = 0; i < 6; i++) {
            if (i == 3) {
                verbose = true;
            }
            process(i);
        }
        System.out.println("done");
    }
}
