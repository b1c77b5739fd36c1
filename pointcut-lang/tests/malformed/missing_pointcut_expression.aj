aspect Tracer {
    pointcut traced();

    before(): traced() {
    }
}
