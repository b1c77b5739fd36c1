public aspect Audit {
    pointcut op(Main.Account acct, long amount):
        call(* Main.Account.*(long)) && target(acct) && args(amount);

    pointcut withdrawal(Main.Account a, long amt): op(a, amt) && call(boolean *.withdraw(..));

    private pointcut anyOp(): op(*, *);

    before(Main.Account acct, long amount): op(acct, amount) {
        System.out.println("op " + thisJoinPointStaticPart.getSignature().getName() + "(" + amount + ") balance before " + acct.balance());
    }

    after(Main.Account a, long amt) returning(boolean ok): withdrawal(a, amt) {
        System.out.println("withdrawal of " + amt + (ok ? " succeeded" : " refused") + ", balance " + a.balance());
    }

    after(): anyOp() {
        System.out.println("op done");
    }
}
