public aspect Tags {
    before(Tag t): call(void Main.helper(String)) && @within(t) {
        System.out.println("within " + t.value() + " level " + t.level());
    }

    before(Tag t): call(void Main.helper(String)) && @withincode(t) {
        System.out.println("withincode " + t.value() + " level " + t.level());
    }

    after(Tag c, Tag m) returning: execution(* *(..)) && @within(c) && @annotation(m) {
        System.out.println("after " + thisJoinPointStaticPart.getSignature().getName() + " in " + c.value() + " annotated " + m.value());
    }
}
