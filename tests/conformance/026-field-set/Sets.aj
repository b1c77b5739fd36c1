public aspect Sets {
    before(Object v): set(* Main.*) && args(v) {
        String shown = v instanceof int[] ? "int[" + ((int[]) v).length + "]" : String.valueOf(v);
        System.out.println("set " + thisJoinPointStaticPart.getSignature().getName() + " <- " + shown
            + " (" + thisJoinPointStaticPart.getKind() + ", line " + thisJoinPointStaticPart.getSourceLocation().getLine() + ")");
    }

    void around(String s): set(String Main.name) && args(s) {
        if (s == null) {
            System.out.println("refusing to set name to null");
            return;
        }
        proceed(s.toUpperCase());
    }
}
