public aspect Handlers {
    before(Exception e): handler(Exception+) && args(e) && within(Main) {
        System.out.println("handler " + thisJoinPointStaticPart.toShortString() + " for " + e.getClass().getSimpleName()
            + " line " + thisJoinPointStaticPart.getSourceLocation().getLine());
    }

    before(): handler(java.io.IOException) {
        System.out.println("exactly IOException: " + thisJoinPoint.getSignature().getName()
            + " kind " + thisJoinPoint.getKind());
    }
}
