public aspect Scopes {
    before(): call(int Main.inc(int)) && withincode(* Main.main(..)) {
        System.out.println("  withincode(main): " + thisEnclosingJoinPointStaticPart.getSignature().getName());
    }

    before(): call(int Main.inc(int)) && within(Main) {
        System.out.println("  within(Main): " + thisEnclosingJoinPointStaticPart.getSignature().getName());
    }

    before(): call(int Main.inc(int)) && within(Main.*) {
        System.out.println("  within(Main.*): " + thisEnclosingJoinPointStaticPart.getSignature().getName());
    }

    before(): call(int Main.inc(int)) && withincode(* Main.lambda$*(..)) {
        System.out.println("  withincode(lambda$*): " + thisEnclosingJoinPointStaticPart.getSignature().getName());
    }
}
