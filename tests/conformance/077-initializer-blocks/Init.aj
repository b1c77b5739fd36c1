public aspect Init {
    before(String w): call(String Main.make(String)) && args(w) && withincode(Main.new(..)) {
        System.out.println("call make(" + w + ") in " + thisEnclosingJoinPointStaticPart.toShortString());
    }

    before(): set(* Main.*) && withincode(Main.new()) {
        System.out.println("set " + thisJoinPointStaticPart.getSignature().getName() + " in Main()");
    }

    before(): initialization(Main.new(..)) {
        System.out.println("initialization " + thisJoinPointStaticPart.toShortString());
    }
}
