public class Main {
    private final String name;

    Main(String name) {
        this.name = name;
    }

    String describe(int times) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < times; i++) {
            sb.append(name);
        }
        return sb.toString();
    }

    public static void main(String[] args) {
        Main m = new Main("ab");
        System.out.println(m.describe(3));
        System.out.println(m.describe(0).isEmpty());
    }
}
