public aspect Below {
    pointcut factExec(): execution(int Main.fact(int));

    before(int n): factExec() && args(n) && !cflowbelow(factExec()) {
        System.out.println("outermost fact(" + n + ")");
    }

    before(int n): factExec() && args(n) && cflowbelow(factExec()) {
        System.out.println("  recursive fact(" + n + ")");
    }

    after(int n) returning(int r): factExec() && args(n) && if(n == 2) && cflowbelow(execution(* Main.main(..))) {
        System.out.println("  fact(2) under main returns " + r);
    }

    after(int n) returning(int r): factExec() && args(n) && !cflowbelow(factExec()) {
        System.out.println("outermost returns " + r);
    }
}
