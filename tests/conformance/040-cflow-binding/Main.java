public class Main {
    static void handle(String request) {
        validate();
        store(request.length());
    }

    static void validate() {
        System.out.println("    validate");
    }

    static void store(int size) {
        System.out.println("    store " + size);
    }

    public static void main(String[] args) {
        handle("req-1");
        handle("request-2");
        validate();
    }
}
