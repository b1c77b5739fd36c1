public class Main {
    static long total;
    double ratio;
    String name;
    int[] slots = new int[2];

    public static void main(String[] args) {
        Main m = new Main();
        m.name = "first";
        m.ratio = 0.25;
        total = 1L << 33;
        m.slots[1] = 7;
        m.name = null;
        System.out.println(m.name + " " + m.ratio + " " + total + " " + m.slots[1]);
    }
}
