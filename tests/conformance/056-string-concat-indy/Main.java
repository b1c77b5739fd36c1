public class Main {
    static class Item {
        final String name;

        Item(String name) {
            this.name = name;
        }

        @Override
        public String toString() {
            return "Item(" + name + ")";
        }
    }

    static String label(int n) {
        return "#" + n;
    }

    public static void main(String[] args) {
        Item item = new Item("pen");
        long big = 1L << 40;
        double d = 0.125;
        char c = 'z';
        String s = "item=" + item + " label=" + label(3) + " big=" + big + " d=" + d + " c=" + c + " null=" + null;
        System.out.println(s);
        String t = item.toString() + "!";
        System.out.println(t);
    }
}
