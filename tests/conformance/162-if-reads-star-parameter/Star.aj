public aspect Star {
    pointcut big(int n): execution(* Main.f(int)) && args(n) && if(n > 2);
    pointcut bigAgain(int m): big(m);
    pointcut named(String s): execution(* Main.g(String)) && args(s) && if(s.startsWith("v"));

    before(): big(*) {
        System.out.println("  big(*)");
    }

    before(): execution(* Main.f(int)) && !big(*) {
        System.out.println("  !big(*)");
    }

    before(): bigAgain(*) {
        System.out.println("  bigAgain(*)");
    }

    before(): big(*) || named(*) {
        System.out.println("  big(*) || named(*)");
    }

    before(): cflow(big(*)) && call(* Main.g(String)) {
        System.out.println("  call of g in cflow(big(*))");
    }

    before(int k): big(k) && bigAgain(*) {
        System.out.println("  big(k) && bigAgain(*): " + k);
    }
}
