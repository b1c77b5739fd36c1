aspect Tracer {
    before(): execution(* *(..)] {
    }
}
