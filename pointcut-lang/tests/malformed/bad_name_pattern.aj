aspect Tracer {
    before(): call(* java..(..)) {
    }
}
