public aspect Synth {
    before(): get(* *) && !within(Synth) && !get(* System.out) {
        System.out.println("  get " + thisJoinPointStaticPart.getSignature().toLongString());
    }

    before(): set(* *) && !within(Synth) {
        System.out.println("  set " + thisJoinPointStaticPart.getSignature().toLongString());
    }

    before(): execution(* *(..)) && !within(Synth) {
        System.out.println("  execution " + thisJoinPointStaticPart.getSignature().toLongString());
    }
}
