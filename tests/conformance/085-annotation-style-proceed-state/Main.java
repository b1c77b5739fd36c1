public class Main {
    static class Counter {
        final String name;
        int n;

        Counter(String name) {
            this.name = name;
        }

        int add(int k) {
            n += k;
            return n;
        }

        @Override
        public String toString() {
            return "Counter(" + name + ")";
        }
    }

    static final Counter SPARE = new Counter("spare");

    int twice(int x) {
        return 2 * x;
    }

    public static void main(String[] args) {
        Counter a = new Counter("a");
        System.out.println(a.add(1));
        System.out.println("a=" + a.n + " spare=" + SPARE.n);
        System.out.println(new Main().twice(5));
    }
}
