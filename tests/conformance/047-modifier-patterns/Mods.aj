public aspect Mods {
    before(): execution(public static * Main.*(..)) {
        print("public static", thisJoinPointStaticPart);
    }

    before(): execution(private * Main.*(..)) {
        print("private", thisJoinPointStaticPart);
    }

    before(): execution(!private !public * Main.*(..)) {
        print("neither private nor public", thisJoinPointStaticPart);
    }

    before(): execution(final * Main.*(..)) {
        print("final", thisJoinPointStaticPart);
    }

    before(): execution(synchronized * *(..)) && within(Main) {
        print("synchronized", thisJoinPointStaticPart);
    }

    before(): execution(!static * Main.*(..)) {
        print("instance", thisJoinPointStaticPart);
    }

    private static void print(String what, org.aspectj.lang.JoinPoint.StaticPart sp) {
        System.out.println(what + ": " + sp.getSignature().getName());
    }
}
