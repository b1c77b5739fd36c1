public aspect Clone {
    before(): call(* *.clone()) && within(Main) {
        System.out.println("clone call " + thisJoinPointStaticPart.getSignature().toLongString()
            + " on " + thisJoinPoint.getTarget().getClass().getSimpleName());
    }

    before(): call(* java.util.Arrays.*(..)) && within(Main) {
        System.out.println("Arrays call " + thisJoinPointStaticPart.toShortString());
    }

    after() returning(int[] a): get(static int[] Main.data) {
        System.out.println("read data of length " + a.length);
    }
}
