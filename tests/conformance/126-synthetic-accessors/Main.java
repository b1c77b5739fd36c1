public class Main {
    private int secret = 3;

    private static String tag(String s) {
        return "<" + s + ">";
    }

    static class Nested {
        private int count;

        private void bump() {
            count++;
        }
    }

    interface Shout {
        String shout();
    }

    String local(final String word) {
        class Echo implements Shout {
            public String shout() {
                return word + word;
            }
        }
        return new Echo().shout();
    }

    class Inner {
        int reveal() {
            secret++;
            return secret + tag("x").length();
        }
    }

    public static void main(String[] args) {
        Main m = new Main();
        System.out.println(m.new Inner().reveal());
        Nested n = new Nested();
        n.bump();
        n.count += 2;
        System.out.println(n.count);
        System.out.println(m.local("ho"));
    }
}
