public class Main {
    static class AppException extends Exception {
        AppException(String m) {
            super(m);
        }
    }

    static int parse(String s) throws AppException {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new AppException("bad number: " + s);
        }
    }

    static int safeParse(String s) {
        try {
            return parse(s);
        } catch (AppException e) {
            System.out.println("  safeParse caught " + e.getMessage());
            return -1;
        } finally {
            System.out.println("  safeParse finally");
        }
    }

    public static void main(String[] args) {
        System.out.println(safeParse("12"));
        System.out.println(safeParse("zz"));
        try {
            System.out.println(parse("q"));
        } catch (AppException e) {
            System.out.println("main caught " + e.getMessage());
        }
    }
}
