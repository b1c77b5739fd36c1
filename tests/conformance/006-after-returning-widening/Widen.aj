public aspect Widen {
    after() returning(int i): call(* Main.*()) && within(Main) {
        System.out.println("as int: " + i + " from " + thisJoinPointStaticPart.getSignature().getName());
    }

    after() returning(long l): call(* Main.*()) && within(Main) {
        System.out.println("as long: " + l + " from " + thisJoinPointStaticPart.getSignature().getName());
    }
}
