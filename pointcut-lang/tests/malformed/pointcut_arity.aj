aspect Tracer {
    pointcut traced(): execution(* *(..));

    before(Object o): traced(o) && this(o) {
    }
}
