public class Main {
    static final Object LOCK = new Object();

    static int parse(String s) {
        return Integer.parseInt(s);
    }

    int work(String s) {
        int r = 0;
        synchronized (LOCK) {
            try {
                r = parse(s);
            } catch (NumberFormatException e) {
                System.out.println("  own catch, holds LOCK: " + Thread.holdsLock(LOCK));
                r = -1;
            } finally {
                System.out.println("  own finally");
            }
            if (r > 100) {
                throw new IllegalStateException("too big " + r);
            }
        }
        return r;
    }

    public static void main(String[] args) {
        Main m = new Main();
        for (String s : new String[] {"12", "x", "999"}) {
            try {
                System.out.println(s + " -> " + m.work(s));
            } catch (IllegalStateException e) {
                System.out.println(s + " escaped " + e.getMessage() + ", holds LOCK: " + Thread.holdsLock(LOCK));
            }
        }
    }
}
