aspect Tracer {
    abstract pointcut scope();
}
