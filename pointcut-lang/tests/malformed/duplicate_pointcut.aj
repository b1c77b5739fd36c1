aspect Tracer {
    pointcut traced(): execution(* *(..));
    pointcut traced(): call(* *(..));
}
