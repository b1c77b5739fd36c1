public aspect FieldWatch {
    before(Main.Counter c, Object v): set(* Main.Counter.*) && !set(static * *) && target(c) && args(v) {
        System.out.println("instance set " + thisJoinPointStaticPart.getSignature().getName() + " of " + c.name + " <- " + v);
    }

    before(Object v): set(static * Main.Counter.*) && args(v) {
        System.out.println("static set " + thisJoinPointStaticPart.getSignature().getName() + " <- " + v
            + " target=" + thisJoinPoint.getTarget());
    }

    after(Main.Counter c) returning(long v): get(long Main.Counter.total) && target(c) {
        System.out.println("read total of " + c.name + " = " + v);
    }

    int around(): get(static int Main.Counter.instances) && withincode(void Main.Counter.add(long)) {
        return proceed() * 10;
    }
}
