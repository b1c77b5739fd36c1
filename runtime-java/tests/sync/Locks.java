package sync;

public class Locks {
    static final Object LOCK = new Object();

    public static void main(String[] args) {
        synchronized (LOCK) {
            args = null;
        }
    }
}
