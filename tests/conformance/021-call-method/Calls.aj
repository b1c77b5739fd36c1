public aspect Calls {
    before(): call(* *(..)) && within(Main) {
        System.out.println("call " + thisJoinPointStaticPart.getSignature().toLongString()
            + " line " + thisJoinPointStaticPart.getSourceLocation().getLine());
    }
}
