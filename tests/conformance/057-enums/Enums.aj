public aspect Enums {
    before(): execution(Main.Color.new(..)) {
        System.out.println("  enum constructor " + thisJoinPointStaticPart.toLongString() + " args " + java.util.Arrays.toString(thisJoinPoint.getArgs()));
    }

    before(): staticinitialization(Main.Color) || staticinitialization(Main.Op) {
        System.out.println("  static init " + thisJoinPointStaticPart.getSignature().getDeclaringType().getName());
    }

    before(): call(* Main.Color.values()) || call(* Main.Color.valueOf(String)) || call(* Main.Color.ordinal()) {
        System.out.println("  " + thisJoinPointStaticPart.toShortString());
    }

    after() returning(String s): execution(String Main.describe(Main.Color)) {
        System.out.println("  describe -> " + s);
    }

    int around(int a, int b): execution(int Main.Op+.apply(int, int)) && args(a, b) {
        int r = proceed(a, b);
        System.out.println("  " + thisJoinPointStaticPart.getSignature().getDeclaringType().getSuperclass().getSimpleName()
            + " apply(" + a + ", " + b + ") = " + r);
        return r;
    }
}
