aspect Tracer {
    before(): call(foo(..)) {
    }
}
