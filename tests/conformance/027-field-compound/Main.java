public class Main {
    static int hits;
    int level;

    public static void main(String[] args) {
        Main m = new Main();
        hits++;
        hits += 10;
        m.level = m.level + 3;
        m.level *= 2;
        int old = m.level++;
        System.out.println(hits + " " + m.level + " " + old);
    }
}
