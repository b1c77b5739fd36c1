public class Main {
    static class E {
        final boolean ok;

        E(boolean ok) {
            this.ok = ok;
        }

        boolean ok() {
            return ok;
        }

        public String toString() {
            return "E(" + ok + ")";
        }
    }

    static class F extends E {
        F() {
            super(true);
        }

        public String toString() {
            return "F";
        }
    }

    static int probes;

    static boolean probe(String what) {
        probes++;
        System.out.println("  probe " + what);
        return true;
    }

    static void take(Object o) {
        System.out.println("take " + o);
    }

    void work(Object o, int n) {
        System.out.println("work " + o + " " + n);
    }

    public static void main(String[] args) {
        take(new E(true));
        take(new E(false));
        take("a string");
        take(null);
        take(new F());
        Object m = new Main();
        ((Main) m).work(new E(true), 1);
        ((Main) m).work(Integer.valueOf(3), 2);
        System.out.println("probes " + probes);
    }
}
