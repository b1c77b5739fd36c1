aspect Timing {
    before(): execution(* *(..)) {
        proceed();
    }
}
