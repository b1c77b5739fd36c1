public class Main {
    static class Base {
        protected final String tag;

        Base(String tag) {
            this.tag = tag;
            System.out.println("    Base body " + tag);
        }
    }

    static class Derived extends Base {
        private final int n;

        Derived(int n) {
            super("d" + n);
            this.n = n;
            System.out.println("    Derived body " + n);
        }

        Derived() {
            this(99);
            System.out.println("    Derived() body");
        }
    }

    public static void main(String[] args) {
        new Derived(1);
        System.out.println("--");
        new Derived();
    }
}
