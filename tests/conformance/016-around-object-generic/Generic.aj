public aspect Generic {
    Object around(): execution(* Main.*(..)) && !execution(* Main.main(..)) {
        Object r = proceed();
        String type = r == null ? "null" : r.getClass().getSimpleName();
        System.out.println("  " + thisJoinPointStaticPart.getSignature().getName() + " returned " + r + " (" + type + ")");
        if (r instanceof Integer) {
            return ((Integer) r) + 1;
        }
        return r;
    }
}
