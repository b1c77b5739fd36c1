public aspect Args {
    int around(int x): call(int Main.Sub.helper(int)) && args(x) {
        System.out.println("  around helper(" + x + ") at " + thisJoinPointStaticPart.getSourceLocation().getLine());
        return proceed(x * 10);
    }

    String around(Main.Calc c, int n): call(String Main.Calc.label(int)) && target(c) && args(n) {
        System.out.println("  around label(" + n + ")");
        return proceed(c, n + 1) + "!";
    }

    Object around(): call(String String.valueOf(long)) && withincode(Main.Sub.new(..)) {
        System.out.println("  around valueOf, this " + thisJoinPoint.getThis());
        return "v" + proceed();
    }

    before(Main.Sub s): call(int Main.Sub.helper(int)) && this(s) {
        System.out.println("  helper called with this bound");
    }

    before(): call(int Main.Sub.helper(int)) && !this(Object) {
        System.out.println("  helper called without this");
    }
}
