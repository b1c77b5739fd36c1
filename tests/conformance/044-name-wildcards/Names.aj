public aspect Names {
    before(): execution(* Main.get*()) {
        System.out.println("getter " + thisJoinPointStaticPart.getSignature().getName());
    }

    before(): execution(void Main.set*(*)) {
        System.out.println("setter " + thisJoinPointStaticPart.getSignature().getName());
    }

    before(): execution(boolean Main.is*()) || execution(* *.re*et()) {
        System.out.println("is*/re*et " + thisJoinPointStaticPart.getSignature().getName());
    }

    before(): execution(!void *.*(..)) && !execution(* get*(..)) && within(Main) {
        System.out.println("non-void, non-getter " + thisJoinPointStaticPart.getSignature().getName());
    }

    before(): set(private * Main.*) {
        System.out.println("set private " + thisJoinPointStaticPart.getSignature().getName());
    }
}
