public aspect Code {
    before(): call(void Main.log(String)) && withincode(* Main.alpha()) {
        System.out.println("  in alpha");
    }

    before(): call(void Main.log(String)) && withincode(* Main.*(int)) {
        System.out.println("  in a method taking an int: " + thisEnclosingJoinPointStaticPart.toShortString());
    }

    before(): call(void Main.log(String)) && withincode(Main.new()) {
        System.out.println("  in constructor: " + thisEnclosingJoinPointStaticPart.toShortString());
    }

    before(): call(void Main.log(String)) && !withincode(* Main.*(..)) && !withincode(Main.new(..)) {
        System.out.println("  never printed");
    }
}
