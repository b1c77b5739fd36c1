aspect Tracer {
    before(): execution(* *(..)) {
        // the closing brace } below is missing
        /* { neither does this one count */
        System.out.println("enter");

    pointcut p(): call(* *(..));
}
