public class Main {
    static class Repository {
        String find(int id) {
            return "item" + id;
        }

        void save(String item) {
            System.out.println("  saving " + item);
        }
    }

    static class Mailer {
        void send(String to) {
            System.out.println("  sending to " + to);
        }
    }

    public static void main(String[] args) {
        Repository r = new Repository();
        System.out.println(r.find(7));
        r.save("x");
        new Mailer().send("bob");
    }
}
