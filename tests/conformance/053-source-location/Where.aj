public aspect Where {
    before(): (call(* Main.*(..)) || execution(* Main.*(..)) || set(* Main.*) || call(Main.new())) && !within(Where) {
        System.out.println(thisJoinPointStaticPart.toShortString() + " at "
            + thisJoinPointStaticPart.getSourceLocation().getFileName() + ":"
            + thisJoinPointStaticPart.getSourceLocation().getLine()
            + " within " + thisJoinPointStaticPart.getSourceLocation().getWithinType().getName());
    }
}
