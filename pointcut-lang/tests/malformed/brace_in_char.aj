aspect Tracer {
    char open = '{';
    before(): execution(* *(..)) {
        char close = '}';
        System.out.println(close);
}
