package app;
public class Main {
    public static void main(String[] args) {
        Outer.o(); System.out.println("Outer.o:" + Log.take());
        Outer.Inner.i(); System.out.println("Outer.Inner.i:" + Log.take());
        Outer.Inner.Deep.d(); System.out.println("Outer.Inner.Deep.d:" + Log.take());
        OuterX.x(); System.out.println("OuterX.x:" + Log.take());
        Outer$Dollar.y(); System.out.println("Outer$Dollar.y:" + Log.take());
    }
}
class Outer {
    static void o() {}
    static class Inner {
        static void i() {}
        static class Deep { static void d() {} }
    }
}
class OuterX { static void x() {} }
class Outer$Dollar { static void y() {} }
