public class Main {
    private String name = "n";
    private int size = 3;

    String getName() { return name; }
    int getSize() { return size; }
    void setName(String n) { name = n; }
    boolean isEmpty() { return size == 0; }
    void reset() { size = 0; }
    static String getVersion() { return "1.0"; }

    public static void main(String[] args) {
        Main m = new Main();
        m.setName(m.getName() + m.getSize());
        m.reset();
        System.out.println(m.isEmpty() + " " + getVersion() + " " + m.getName());
    }
}
