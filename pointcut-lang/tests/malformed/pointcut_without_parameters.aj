aspect A {
    pointcut p: call(* *(..));
}
