public aspect Plus {
    before(): execution(double Main.Rect+.area()) {
        System.out.println("  Rect+ area in " + thisJoinPointStaticPart.getSignature().getDeclaringType().getName());
    }

    before(): execution(* Main.Shape+.*(..)) {
        System.out.println("  Shape+ " + thisJoinPointStaticPart.toShortString());
    }

    before(): call(java.util.List+.new(..)) {
        System.out.println("new List+ " + thisJoinPointStaticPart.toShortString());
    }

    before(): call(* java.util.Collection+.size()) {
        System.out.println("Collection+.size " + thisJoinPointStaticPart.toShortString());
    }

    before(): execution(* *(java.util.List+)) {
        System.out.println("takes a List+ " + thisJoinPointStaticPart.toShortString());
    }
}
