public aspect Bind {
    before(Traced t): execution(* *(..)) && @annotation(t) {
        System.out.println("execution of " + thisJoinPointStaticPart.getSignature().getName() + " traced as " + t.value());
    }

    after(Traced t) returning(Object r): call(* *(..)) && @annotation(t) {
        System.out.println("call of " + thisJoinPointStaticPart.getSignature().getName() + " [" + t.value() + "] returned " + r);
    }
}
