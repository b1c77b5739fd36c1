public aspect Pre {
    before(String owner): preinitialization(Main.Account+.new(String, ..)) && args(owner, ..) {
        System.out.println("preinit " + thisJoinPointStaticPart.getSignature().toShortString() + " owner='" + owner + "'");
    }

    before(): call(* String.*(..)) && withincode(Main.Account+.new(..)) {
        System.out.println("  " + thisJoinPointStaticPart.toShortString() + " line " + thisJoinPointStaticPart.getSourceLocation().getLine());
    }

    before(double r): initialization(Main.Savings.new(..)) && args(*, r) {
        System.out.println("init savings rate " + r);
    }
}
