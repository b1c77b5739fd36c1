public class Main {
    int field;

    static int compute(int a,
                       int b) {
        int x = a
            + b;
        return x
            * 2;
    }

    void multiLine() {

        field =
            compute(1,
                    2);
    }

    public static void main(String[] args) {
        new Main()
            .multiLine();
        System.out.println(
            compute(3, 4));
    }
}
