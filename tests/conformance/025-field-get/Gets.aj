public aspect Gets {
    after() returning(Object v): get(* Main.*) {
        System.out.println("  get " + thisJoinPointStaticPart.getSignature().toLongString() + " = " + v
            + " in " + thisEnclosingJoinPointStaticPart.toShortString());
    }

    int around(): get(int Main.value) {
        return proceed() * 2;
    }
}
