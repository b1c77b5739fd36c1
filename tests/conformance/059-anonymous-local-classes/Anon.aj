public aspect Anon {
    before(): execution(* Main.Greeter+.greet(..)) {
        System.out.println("  greet in " + thisJoinPoint.getThis().getClass().getName() + " sig " + thisJoinPointStaticPart.getSignature().toLongString());
    }

    after() returning: execution(void *.add(int)) && within(Main..*) {
        System.out.println("  local add " + thisJoinPointStaticPart.getSignature().getDeclaringTypeName() + " " + thisJoinPoint.getArgs()[0]);
    }

    int compares;

    before(): execution(int java.util.Comparator+.compare(..)) && within(Main*) {
        compares++;
    }

    after(): execution(void Main.main(..)) {
        System.out.println("  compare executions: " + (compares > 0));
    }

    before(): call(Main.Greeter+.new(..)) || (call(*.new(..)) && withincode(int Main.localClass(int))) {
        System.out.println("  new " + thisJoinPointStaticPart.getSignature().getDeclaringTypeName() + " " + thisJoinPointStaticPart.toShortString());
    }
}
