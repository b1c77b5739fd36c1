aspect Tracer {
    pointcut traced(): execution(* *(..));

    before(): trace() {
    }
}
