aspect Tracer {
    /* tracing of every execution
    before(): execution(* *(..)) {
        System.out.println("enter");
    }
}
