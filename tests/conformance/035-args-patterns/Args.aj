public aspect Args {
    pointcut m(): execution(static void Main.*(..)) && !execution(* main(..));

    before(): m() && args() {
        System.out.println(name(thisJoinPointStaticPart) + ": args()");
    }

    before(): m() && args(String, ..) {
        System.out.println(name(thisJoinPointStaticPart) + ": args(String, ..)");
    }

    before(): m() && args(.., String) {
        System.out.println(name(thisJoinPointStaticPart) + ": args(.., String)");
    }

    before(): m() && args(*, *) {
        System.out.println(name(thisJoinPointStaticPart) + ": args(*, *)");
    }

    before(): m() && args(int, ..) {
        System.out.println(name(thisJoinPointStaticPart) + ": args(int, ..)");
    }

    before(): m() && args(.., Integer) {
        System.out.println(name(thisJoinPointStaticPart) + ": args(.., Integer)");
    }

    before(): m() && args(..) && !args(Object) {
        System.out.println(name(thisJoinPointStaticPart) + ": !args(Object)");
    }

    static String name(org.aspectj.lang.JoinPoint.StaticPart sp) {
        return sp.getSignature().getName();
    }
}
