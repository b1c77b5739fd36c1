public aspect Prims {
    after() returning(int i): call(int Main.*()) {
        System.out.println("int " + i + " from " + thisJoinPointStaticPart.getSignature().getName());
    }

    after() returning(long l): call(long Main.*()) {
        System.out.println("long " + l + " from " + thisJoinPointStaticPart.getSignature().getName());
    }

    after() returning(double d): call(double Main.*()) {
        System.out.println("double " + d + " from " + thisJoinPointStaticPart.getSignature().getName());
    }

    after() returning(boolean b): call(boolean Main.*()) {
        System.out.println("boolean " + b + " from " + thisJoinPointStaticPart.getSignature().getName());
    }

    after() returning(Object o): call(* Main.*()) && within(Main) {
        String type = o == null ? "null" : o.getClass().getSimpleName();
        System.out.println("object " + o + " (" + type + ") from " + thisJoinPointStaticPart.getSignature().getName());
    }
}
