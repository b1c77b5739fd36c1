public aspect ThrowsClause {
    before(): execution(* Main.*(..) throws java.io.IOException) {
        print("throws IOException", thisJoinPointStaticPart);
    }

    before(): execution(* Main.*(..) throws *Exception, *Exception) {
        print("throws two", thisJoinPointStaticPart);
    }

    before(): execution(* Main.*(..) throws RuntimeException+) {
        print("throws a RuntimeException+", thisJoinPointStaticPart);
    }

    before(): execution(* Main.*(..) throws !java.io.IOException) {
        print("throws something other than IOException", thisJoinPointStaticPart);
    }

    before(): execution(* Main.*(..)) && !execution(* *(..) throws *) {
        print("declares nothing", thisJoinPointStaticPart);
    }

    private static void print(String what, org.aspectj.lang.JoinPoint.StaticPart sp) {
        System.out.println(what + ": " + sp.getSignature().getName());
    }
}
