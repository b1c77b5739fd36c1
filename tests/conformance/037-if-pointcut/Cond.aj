public aspect Cond {
    pointcut proc(int n): execution(int Main.process(int)) && args(n);

    before(int n): proc(n) && if(n % 2 == 0) {
        System.out.println("even " + n);
    }

    before(): execution(* Main.*(..)) && if(thisJoinPoint.getArgs().length == 1 && thisJoinPoint.getArgs()[0] instanceof Integer && ((Integer) thisJoinPoint.getArgs()[0]) > 4) {
        System.out.println("big arg " + thisJoinPoint.getArgs()[0]);
    }

    before(): execution(* Main.*(..)) && if(false) {
        System.out.println("never");
    }

    after(int n) returning(int r): proc(n) && if(Main.verbose) {
        System.out.println("verbose: process(" + n + ") = " + r);
    }
}
