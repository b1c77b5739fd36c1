public aspect Generic {
    before(): execution(void Main.Box+.put(..)) {
        System.out.println("  put " + thisJoinPointStaticPart.getSignature().toLongString() + " arg " + thisJoinPoint.getArgs()[0]);
    }

    before(): call(* Main.Box.put(Object)) {
        System.out.println("  call put(Object) " + thisJoinPointStaticPart.getSignature().toLongString());
    }

    int compares;

    before(): execution(int Main.Version.compareTo(..)) {
        compares++;
    }

    before(): execution(* Main.Version.compareTo(Object)) {
        System.out.println("  never: the bridge method is not a join point");
    }

    after() returning(Object r): call(* Main.max(..)) {
        System.out.println("  max -> " + r + " after " + compares + " compareTo executions");
    }

    before(): execution(* Main.max(java.util.List)) {
        System.out.println("  max takes a raw List in its erased signature: " + thisJoinPointStaticPart.getSignature().toLongString());
    }
}
