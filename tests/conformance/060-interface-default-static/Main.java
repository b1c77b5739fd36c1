public class Main {
    interface Named {
        String name();

        default String greeting() {
            return "Hello, " + name() + decorate();
        }

        static String decorate() {
            return "!";
        }

        private String secret() {
            return "secret of " + name();
        }

        default String reveal() {
            return secret();
        }
    }

    static class Person implements Named {
        public String name() {
            return "Ann";
        }
    }

    static class Robot implements Named {
        public String name() {
            return "R2";
        }

        @Override
        public String greeting() {
            return "BEEP " + Named.super.greeting();
        }
    }

    public static void main(String[] args) {
        Named[] all = {new Person(), new Robot()};
        for (Named n : all) {
            System.out.println(n.greeting());
        }
        System.out.println(Named.decorate());
        System.out.println(all[0].reveal());
    }
}
