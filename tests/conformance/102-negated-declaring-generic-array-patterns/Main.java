import java.util.*;
public class Main {
    static class Base { void m() { } }
    static class Sub extends Base { void m() { } }
    static class Other { void m() { } }
    static void nums(List<? extends Number> l) { }
    static void strs(List<String> l) { }
    static void raw(List l) { }
    static void sup(List<? super Integer> l) { }
    static void any(List<?> l) { }
    public static void main(String[] args) {
        new Base().m(); new Sub().m(); new Other().m();
        nums(new ArrayList<Integer>()); strs(new ArrayList<String>()); raw(new ArrayList()); sup(new ArrayList<Number>()); any(new ArrayList<Object>());
        int[] a = new int[3]; String[] s = new String[2]; int[][] mm = new int[2][3];
        System.out.println(a.length + s.length + mm.length);
    }
}
