aspect Tracer {
    pointcut withInt(int i): args(i, ..);

    before(String s): withInt(s) {
    }
}
