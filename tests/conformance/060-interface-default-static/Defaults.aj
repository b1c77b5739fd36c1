public aspect Defaults {
    before(): execution(* Main.Named.*(..)) {
        System.out.println("  exec " + thisJoinPointStaticPart.toShortString() + " this=" + (thisJoinPoint.getThis() == null ? "none" : thisJoinPoint.getThis().getClass().getSimpleName()));
    }

    before(): execution(static * Main.Named.*(..)) {
        System.out.println("  static exec " + thisJoinPointStaticPart.toShortString());
    }

    before(): call(* Main.Named.*(..)) && !within(Defaults) {
        System.out.println("  call " + thisJoinPointStaticPart.toShortString() + " from " + thisEnclosingJoinPointStaticPart.toShortString());
    }
}
