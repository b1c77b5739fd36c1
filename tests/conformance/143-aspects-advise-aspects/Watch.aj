public aspect Watch {
    before(): execution(* Worker.*(..)) {
        System.out.println("watch " + thisJoinPointStaticPart);
    }

    before(): adviceexecution() && !within(Watch) {
        System.out.println("advice " + thisJoinPointStaticPart.getKind() + " " + thisJoinPointStaticPart.getSignature());
    }

    after(): call(void Worker.note(String)) {
        System.out.println("noted " + thisJoinPointStaticPart.getSourceLocation().getWithinType().getName());
    }

    before(): execution(void Watch.helper()) {
        System.out.println("self " + thisJoinPointStaticPart);
    }

    void helper() {
        System.out.println("  helper");
    }

    after() returning: execution(void Main.main(..)) {
        helper();
    }
}
