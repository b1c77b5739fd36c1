aspect Tracer {
    String json = """
        { "unbalanced": [
        """;
    before(): execution(* *(..)) {
        System.out.println(json);
}
