aspect Tracer {
    before(): execution(* *(..)) && if() {
    }
}
