public class Main {
    static class Node {
        final String name;
        Node next;

        Node(String name) {
            this.name = name;
        }

        String name() {
            return name;
        }
    }

    static class Special extends Node {
        Special(String name) {
            super(name);
        }
    }

    public static void main(String[] args) {
        Node a = new Node("a");
        Node b = null;
        System.out.println(a.name());
        Node c = new Special("c");
        System.out.println(c.name());
        try {
            System.out.println(b.name());
        } catch (NullPointerException e) {
            System.out.println("NPE on null target");
        }
        a.next = null;
        Object x = a.next;
        System.out.println(x);
    }
}
