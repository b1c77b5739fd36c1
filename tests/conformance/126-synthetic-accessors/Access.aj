public aspect Access {
    before(): (get(* *) || set(* *)) && within(Main*) && !get(* System.out) {
        System.out.println("  " + thisJoinPointStaticPart + " in " + thisEnclosingJoinPointStaticPart.getSignature().getName());
    }

    before(): call(* *(..)) && within(Main*) && !call(* java..*(..)) {
        System.out.println("  " + thisJoinPointStaticPart + " in " + thisEnclosingJoinPointStaticPart.getSignature().getName());
    }

    before(): execution(* *(..)) && within(Main*) {
        System.out.println("  " + thisJoinPointStaticPart);
    }
}
