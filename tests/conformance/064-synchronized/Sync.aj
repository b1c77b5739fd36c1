public aspect Sync {
    void around(Main m): execution(synchronized void Main.*()) && this(m) {
        System.out.println("around " + thisJoinPointStaticPart.getSignature().getName() + " holds lock: " + Thread.holdsLock(m));
        proceed(m);
    }

    before(): execution(static synchronized * Main.*(..)) {
        System.out.println("before static synchronized, holds class lock: " + Thread.holdsLock(Main.class));
    }

    before(): call(void Main.helper()) {
        System.out.println("call helper inside synchronized block");
    }

    after() throwing(IllegalStateException e): within(Main) && call(IllegalStateException.new(..)) {
        System.out.println("never: the constructor does not throw");
    }

    after() returning(Object e): within(Main) && call(IllegalStateException.new(..)) {
        System.out.println("created " + e.getClass().getSimpleName() + " inside the lock");
    }
}
