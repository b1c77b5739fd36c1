public aspect Flow {
    before(): call(void Main.leaf(String)) && cflow(execution(void Main.top())) {
        System.out.println("  leaf call in cflow of top: " + thisJoinPoint.getArgs()[0]);
    }

    before(): execution(void Main.leaf(String)) && cflow(execution(void Main.middle())) {
        System.out.println("  leaf execution in cflow of middle");
    }

    before(): execution(* Main.*(..)) && cflow(execution(void Main.top())) {
        System.out.println("in cflow of top: " + thisJoinPointStaticPart.toShortString());
    }
}
