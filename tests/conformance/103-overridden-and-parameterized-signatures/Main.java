import java.util.function.Function;
public class Main {
    static class Base { Base copy() { return new Base(); } }
    static class Sub extends Base { @Override Sub copy() { return new Sub(); } }
    static class Doubler implements Function<Integer, Integer> {
        public Integer apply(Integer x) { return 2 * x; }
    }
    static class Box<T> { T v; void put(T t) { v = t; } T get() { return v; } }
    static class IntBox extends Box<Integer> { }
    public static void main(String[] args) {
        new Base().copy();
        Base b = new Sub();
        b.copy();
        new Sub().copy();
        System.out.println(new Doubler().apply(21));
        IntBox ib = new IntBox();
        ib.put(4);
        Box<String> sb = new Box<>();
        sb.put("s");
        System.out.println(ib.get() + sb.get());
    }
}
