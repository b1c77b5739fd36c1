aspect Tracer {
    before(): execution(* *(..)) {
        char c = 'x;
    }
}
