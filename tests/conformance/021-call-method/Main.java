public class Main {
    static int helper(int x) {
        return x + 1;
    }

    int instance(String s) {
        return s.length();
    }

    public static void main(String[] args) {
        int a = helper(1);
        int b = new Main().instance("four");
        String up = "abc".toUpperCase();
        StringBuilder sb = new StringBuilder();
        sb.append(a).append(',').append(b).append(',').append(up);
        System.out.println(sb.toString());
    }
}
