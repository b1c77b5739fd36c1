public aspect Annos {
    before(): execution(@Traced * *(..)) {
        print("@Traced", thisJoinPointStaticPart);
    }

    before(): execution(@Internal * *(..)) {
        print("@Internal (class retention)", thisJoinPointStaticPart);
    }

    before(): execution(@Traced @Internal * *(..)) {
        print("@Traced and @Internal", thisJoinPointStaticPart);
    }

    before(): execution(!@Traced static * Main.*(..)) && !execution(* main(..)) {
        print("not @Traced", thisJoinPointStaticPart);
    }

    before(): set(@Traced * *) {
        print("@Traced field", thisJoinPointStaticPart);
    }

    before(): execution(* (@Traced *).*(..)) {
        print("in a @Traced type", thisJoinPointStaticPart);
    }

    private static void print(String what, org.aspectj.lang.JoinPoint.StaticPart sp) {
        System.out.println(what + ": " + sp.getSignature().getName());
    }
}
