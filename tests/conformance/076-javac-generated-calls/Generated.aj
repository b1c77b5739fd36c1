public aspect Generated {
    before(): (call(* String.hashCode()) || call(* String.equals(Object))) && withincode(* Main.classify(..)) {
        System.out.println("  string switch: " + thisJoinPointStaticPart.toShortString());
    }

    before(): (call(* Integer.valueOf(int)) || call(* Integer.intValue())) && within(Main) {
        System.out.println("  boxing: " + thisJoinPointStaticPart.toShortString() + " line " + thisJoinPointStaticPart.getSourceLocation().getLine());
    }

    before(): call(* java.util.Iterator.*(..)) && within(Main) {
        System.out.println("  for-each: " + thisJoinPointStaticPart.toShortString());
    }
}
