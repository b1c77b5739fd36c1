public aspect Within {
    before(): call(* util.Helper.*(..)) && within(app..*) {
        System.out.println("[app] " + thisJoinPointStaticPart.toShortString());
    }

    before(): call(* util.Helper.*(..)) && within(util.Helper.*) {
        System.out.println("[Helper.*] " + thisJoinPointStaticPart.toShortString());
    }

    before(): execution(* *(..)) && within(util.Helper+) {
        System.out.println("[Helper+] " + thisJoinPointStaticPart.toShortString());
    }

    before(): call(* util..*(..)) && within(Main) {
        System.out.println("[Main] " + thisJoinPointStaticPart.toShortString());
    }
}
