import java.util.ArrayList;
import java.util.List;

public class Main {
    static class Widget {
        final String label;

        Widget(String label) {
            this.label = label;
        }

        @Override
        public String toString() {
            return "Widget(" + label + ")";
        }
    }

    public static void main(String[] args) {
        List<Widget> list = new ArrayList<>();
        list.add(new Widget("a"));
        list.add(new Widget("b"));
        System.out.println(list);
    }
}
