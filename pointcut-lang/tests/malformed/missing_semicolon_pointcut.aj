aspect Tracer {
    pointcut traced(): execution(* *(..)) && !within(Tracer)

    before(): traced() {
    }
}
