public aspect Handlers {
    Object around(): execution(* Main.ar*(..)) {
        String name = thisJoinPointStaticPart.getSignature().getName();
        System.out.println(" around " + name);
        try {
            return proceed();
        } finally {
            System.out.println(" around done " + name + ", holds LOCK: " + Thread.holdsLock(Main.LOCK));
        }
    }

    after() throwing(Throwable t): execution(* Main.ar*(..)) || execution(* Main.tar*(..)) || execution(* Main.af*(..)) {
        System.out.println(" after throwing " + thisJoinPointStaticPart.getSignature().getName() + ": " + t.getMessage()
            + ", holds LOCK: " + Thread.holdsLock(Main.LOCK));
    }

    Object around(): execution(* Main.tar*(..)) {
        String name = thisJoinPointStaticPart.getSignature().getName();
        System.out.println(" around(outer) " + name);
        try {
            Object r = proceed();
            System.out.println(" around(outer) returned " + r);
            return r;
        } finally {
            System.out.println(" around(outer) done " + name);
        }
    }

    after(): execution(* Main.af*(..)) {
        System.out.println(" after " + thisJoinPointStaticPart.getSignature().getName() + ", holds LOCK: " + Thread.holdsLock(Main.LOCK));
    }

    after() throwing(RuntimeException e): call(int Integer.parseInt(String)) {
        System.out.println(" after throwing call parseInt: " + e.getClass().getSimpleName());
    }
}
