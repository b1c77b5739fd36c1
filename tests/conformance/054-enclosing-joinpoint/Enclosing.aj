public aspect Enclosing {
    before(): (call(* Integer.parseInt(..)) || set(int Main.counter) || handler(*)) && within(Main) {
        System.out.println(thisJoinPointStaticPart.toShortString() + " enclosed by " + thisEnclosingJoinPointStaticPart.toShortString()
            + " (" + thisEnclosingJoinPointStaticPart.getKind() + ")");
    }
}
