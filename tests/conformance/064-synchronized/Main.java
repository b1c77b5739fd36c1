public class Main {
    private int count;
    private static final Object LOCK = new Object();
    private static int shared;

    synchronized void inc() {
        count++;
        System.out.println("  inc holds lock: " + Thread.holdsLock(this));
    }

    static synchronized void staticInc() {
        shared++;
        System.out.println("  staticInc holds class lock: " + Thread.holdsLock(Main.class));
    }

    void block() {
        synchronized (LOCK) {
            shared += 10;
            helper();
        }
        System.out.println("  after block holds LOCK: " + Thread.holdsLock(LOCK));
    }

    void failing() {
        try {
            synchronized (LOCK) {
                throw new IllegalStateException("inside lock");
            }
        } catch (IllegalStateException e) {
            System.out.println("  caught " + e.getMessage() + ", holds LOCK: " + Thread.holdsLock(LOCK));
        }
    }

    static void helper() {
        System.out.println("  helper holds LOCK: " + Thread.holdsLock(LOCK));
    }

    public static void main(String[] args) throws Exception {
        Main m = new Main();
        m.inc();
        staticInc();
        m.block();
        m.failing();
        Thread t = new Thread(m::inc);
        t.start();
        t.join();
        System.out.println(m.count + " " + shared);
    }
}
