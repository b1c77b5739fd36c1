public class Main {
    private int secret = 42;

    private int reveal() {
        return secret;
    }

    private static String hidden(String s) {
        return "hidden " + s;
    }

    static class Peer {
        private String peerPrivate() {
            return "peer private";
        }

        int peek(Main m) {
            m.secret++;
            return m.reveal();
        }
    }

    public static void main(String[] args) {
        Main m = new Main();
        Peer p = new Peer();
        System.out.println(p.peek(m));
        System.out.println(hidden("x"));
        System.out.println(p.peerPrivate());
    }
}
