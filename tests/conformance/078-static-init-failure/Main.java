public class Main {
    static class Broken {
        static final int VALUE = Integer.parseInt("not a number");

        static void touch() {
        }
    }

    public static void main(String[] args) {
        try {
            Broken.touch();
        } catch (ExceptionInInitializerError e) {
            System.out.println("caught ExceptionInInitializerError, cause " + e.getCause().getClass().getSimpleName());
        }
        try {
            Broken.touch();
        } catch (NoClassDefFoundError e) {
            System.out.println("caught NoClassDefFoundError");
        }
    }
}
