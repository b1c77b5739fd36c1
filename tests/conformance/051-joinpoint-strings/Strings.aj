public aspect Strings {
    before(): within(Main) && !staticinitialization(*) {
        System.out.println(thisJoinPoint.getKind());
        System.out.println("  toString:      " + thisJoinPoint.toString());
        System.out.println("  toShortString: " + thisJoinPoint.toShortString());
        System.out.println("  toLongString:  " + thisJoinPoint.toLongString());
        System.out.println("  signature:     " + thisJoinPoint.getSignature());
        System.out.println("  sig short:     " + thisJoinPoint.getSignature().toShortString());
        System.out.println("  sig long:      " + thisJoinPoint.getSignature().toLongString());
        System.out.println("  name:          " + thisJoinPoint.getSignature().getName());
        System.out.println("  declaring:     " + thisJoinPoint.getSignature().getDeclaringTypeName());
        System.out.println("  modifiers:     " + java.lang.reflect.Modifier.toString(thisJoinPoint.getSignature().getModifiers()));
        System.out.println("  location:      " + thisJoinPoint.getSourceLocation().getFileName() + ":" + thisJoinPoint.getSourceLocation().getLine());
    }
}
