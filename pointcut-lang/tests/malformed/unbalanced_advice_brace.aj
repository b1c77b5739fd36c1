aspect Tracer {
    before(): execution(* *(..)) {
        if (Tracer.enabled) {
            System.out.println("enter");
    }

    after(): execution(* *(..)) {
        System.out.println("leave");
    }
}
