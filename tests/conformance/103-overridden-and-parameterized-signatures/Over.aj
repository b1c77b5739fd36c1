public aspect Over {
    before(): execution(Main.Base Main.Base+.copy()) { System.out.println("x:Base Base+.copy " + thisJoinPointStaticPart.getSignature().toLongString()); }
    before(): execution(Main.Sub Main.Base+.copy()) { System.out.println("x:Sub Base+.copy " + thisJoinPointStaticPart.getSignature().toLongString()); }
    before(): call(Main.Base Main.Base.copy()) { System.out.println("c:Base Base.copy " + thisJoinPointStaticPart.getSignature().toLongString()); }
    before(): execution(* java.util.function.Function.apply(..)) { System.out.println("x:Function.apply " + thisJoinPointStaticPart.getSignature().toLongString()); }
    before(): execution(* java.util.function.Function.apply(Object)) { System.out.println("x:Function.apply(Object) " + thisJoinPointStaticPart.getSignature()); }
    before(): execution(* java.util.function.Function.apply(Integer)) { System.out.println("x:Function.apply(Integer) " + thisJoinPointStaticPart.getSignature()); }
    before(): call(* Main.Box.put(Integer)) { System.out.println("c:Box.put(Integer) " + thisJoinPointStaticPart.getSignature().toLongString()); }
    before(): call(* Main.Box.put(Object)) { System.out.println("c:Box.put(Object) " + thisJoinPointStaticPart.getSignature().toLongString()); }
    before(): call(* Main.IntBox.put(..)) { System.out.println("c:IntBox.put " + thisJoinPointStaticPart.getSignature().toLongString()); }
    before(): call(Integer Main.Box.get()) { System.out.println("c:Integer Box.get " + thisJoinPointStaticPart.getSignature().toLongString()); }
    before(): execution(* Main.Box.put(Object)) { System.out.println("x:Box.put(Object) " + thisJoinPointStaticPart.getSignature().toLongString()); }
}
