public aspect Lambdas {
    before(): execution(* Main.lambda$*(..)) {
        System.out.println("  lambda body " + thisJoinPointStaticPart.getSignature().toLongString());
    }

    before(): call(int Main.twice(int)) {
        System.out.println("  call twice in " + thisEnclosingJoinPointStaticPart.getSignature().getName());
    }

    before(): execution(int Main.twice(int)) {
        System.out.println("  execution of twice");
    }
}
