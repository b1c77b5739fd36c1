public aspect Inside {
    after() throwing(Throwable t): execution(int Main.work(String)) {
        System.out.println(" after throwing work: " + t.getMessage());
    }

    int around(String s): execution(int Main.work(String)) && args(s) {
        System.out.println(" around work(" + s + ")");
        try {
            return proceed(s);
        } finally {
            System.out.println(" around done, holds LOCK: " + Thread.holdsLock(Main.LOCK));
        }
    }

    after() throwing(NumberFormatException e): call(int Main.parse(String)) {
        System.out.println(" after throwing parse");
    }

    after() returning(int r): call(int Main.parse(String)) {
        System.out.println(" parse returned " + r);
    }

    before(NumberFormatException e): handler(NumberFormatException) && args(e) {
        System.out.println(" handler " + e.getClass().getSimpleName());
    }

    after(): execution(int Main.parse(String)) {
        System.out.println(" after parse execution");
    }

    after() throwing: call(* Integer.parseInt(..)) && withincode(* Main.parse(..)) {
        System.out.println(" after throwing parseInt in parse");
    }
}
