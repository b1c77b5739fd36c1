public aspect Tracer {
    before(): execution(* Main.*(..)) {
        System.out.println("before " + thisJoinPointStaticPart.toShortString());
    }
}
