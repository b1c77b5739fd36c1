public class Main {
    static void a() { }
    static void b() { }
    static void c(int x) { }
    void d() { }

    public static void main(String[] args) {
        a();
        b();
        c(1);
        c(2);
        new Main().d();
    }
}
