public aspect Inner {
    before(): execution(Main.Inner.new(..)) {
        System.out.println("  inner constructor " + thisJoinPointStaticPart.toLongString() + " args " + thisJoinPoint.getArgs().length);
    }

    before(): execution(* Main.Inner.*(..)) || execution(* Main.Inner.Deeper.*(..)) || execution(* Main.Nested.*(..)) {
        System.out.println("  " + thisJoinPointStaticPart.toShortString() + " in " + thisJoinPointStaticPart.getSignature().getDeclaringTypeName());
    }

    before(): get(int Main.base) {
        System.out.println("  get base " + thisJoinPointStaticPart.getSourceLocation().getWithinType().getName());
    }

    before(): call(Main.Inner.Deeper.new(..)) {
        System.out.println("  new Deeper " + thisJoinPointStaticPart.toLongString());
    }
}
