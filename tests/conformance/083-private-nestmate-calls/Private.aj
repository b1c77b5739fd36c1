public aspect Private {
    before(): call(private * Main*.*(..)) || call(private * Main.*.*(..)) {
        System.out.println("  private call " + thisJoinPointStaticPart.toLongString() + " from " + thisEnclosingJoinPointStaticPart.getSignature().getDeclaringType().getSimpleName());
    }

    before(): execution(private * *(..)) && within(Main) {
        System.out.println("  private execution " + thisJoinPointStaticPart.toShortString());
    }

    before(): (get(private int Main.secret) || set(private int Main.secret)) && within(Main.Peer) {
        System.out.println("  nestmate field access " + thisJoinPointStaticPart.toShortString());
    }
}
