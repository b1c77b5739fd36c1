aspect Tracer {
    before(): execution(* *(..)) && @withn(Marker) {
    }
}
