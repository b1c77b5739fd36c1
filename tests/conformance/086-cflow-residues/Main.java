public class Main {
    static class Worker {
        final String name;

        Worker(String name) {
            this.name = name;
        }

        void run(int depth) {
            step(depth);
        }

        void step(int depth) {
            if (depth > 0) {
                new Worker(name + "'").run(depth - 1);
            }
            leaf(depth);
        }

        void leaf(int depth) {
            System.out.println("    leaf " + name + " " + depth);
        }
    }

    static class Special extends Worker {
        Special(String name) {
            super(name);
        }

        void runAndFail() {
            leaf(-1);
            fail();
        }
    }

    static void fail() {
        throw new IllegalStateException("boom");
    }

    public static void main(String[] args) {
        new Worker("w").run(1);
        System.out.println("--");
        new Special("s").run(1);
        System.out.println("--");
        try {
            new Special("t").runAndFail();
        } catch (IllegalStateException e) {
            System.out.println("caught " + e.getMessage());
        }
        new Worker("after").leaf(7);
    }
}
