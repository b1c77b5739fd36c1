aspect Tracer {
    before(): execution(* *(..)) {
        System.out.println("}");
        if (true) {
            System.out.println("{ not a block");
    }
}
