public aspect Logic {
    pointcut ab(): execution(* Main.a()) || execution(* Main.b());

    before(): ab() && !execution(* *.b()) {
        System.out.println("a and not b: " + name(thisJoinPointStaticPart));
    }

    before(): (execution(* Main.c(..)) && args(int)) || (execution(* Main.d()) && this(Main)) {
        System.out.println("c or d: " + name(thisJoinPointStaticPart));
    }

    before(int x): execution(* Main.c(int)) && args(x) && !(if(x == 1) || execution(* *.d())) {
        System.out.println("c but x != 1: " + x);
    }

    before(): !execution(* Main.*(..)) && within(Main) && !call(* *(..)) && !get(* *) && !preinitialization(*.new()) && !initialization(*.new()) && !staticinitialization(*) {
        System.out.println("remaining kind " + thisJoinPointStaticPart.getKind() + " " + thisJoinPointStaticPart.toShortString());
    }

    static String name(org.aspectj.lang.JoinPoint.StaticPart sp) {
        return sp.getSignature().getName();
    }
}
