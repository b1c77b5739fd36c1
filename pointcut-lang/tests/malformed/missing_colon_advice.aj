aspect Tracer {
    before() execution(* *(..)) {
        System.out.println("enter");
    }
}
