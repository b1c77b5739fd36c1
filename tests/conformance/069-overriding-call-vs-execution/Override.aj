public aspect Override {
    before(): call(String Main.Base.who()) {
        System.out.println("  call Base.who: " + thisJoinPointStaticPart.toShortString() + " line " + thisJoinPointStaticPart.getSourceLocation().getLine());
    }

    before(): call(String Main.Sub.who()) {
        System.out.println("  call Sub.who: " + thisJoinPointStaticPart.toShortString() + " line " + thisJoinPointStaticPart.getSourceLocation().getLine());
    }

    before(): execution(String Main.Base.who()) {
        System.out.println("  exec Base.who: " + thisJoinPointStaticPart.toShortString());
    }

    before(): execution(String Main.Sub.who()) {
        System.out.println("  exec Sub.who: " + thisJoinPointStaticPart.toShortString());
    }

    before(): call(* Main.SubSub.*(..)) {
        System.out.println("  call SubSub.*: " + thisJoinPointStaticPart.toShortString());
    }

    before(): call(* Main.Base+.*(..)) && target(Main.SubSub) && within(Main) {
        System.out.println("  target SubSub: " + thisJoinPointStaticPart.toShortString());
    }
}
