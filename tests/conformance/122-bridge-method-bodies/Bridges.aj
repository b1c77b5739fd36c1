public aspect Bridges {
    before(): call(* Main.*.put(..)) || call(* Main.*.get()) || call(* Main.*.compareTo(..)) || call(* Main.*.make()) {
        System.out.println("  call " + thisJoinPointStaticPart.getSignature().toLongString()
            + " in " + thisEnclosingJoinPointStaticPart.getSignature().toLongString());
    }

    after() returning: within(Main.*) && (call(* *(..)) || get(* *) || set(* *)) {
        System.out.println("  " + thisJoinPointStaticPart + " in " + thisEnclosingJoinPointStaticPart.getSignature().toLongString());
    }
}
