public aspect Returns {
    int around(): execution(int Main.i()) { return proceed() + 10; }
    long around(): execution(long Main.l()) { return proceed() * 1000000000000L; }
    double around(): execution(double Main.d()) { return proceed() / 2; }
    float around(): execution(float Main.f()) { return -proceed(); }
    boolean around(): execution(boolean Main.z()) { return !proceed(); }
    byte around(): execution(byte Main.b()) { return (byte) (proceed() + 1); }

    void around(): execution(void Main.v()) {
        System.out.println("  around v: before");
        proceed();
        System.out.println("  around v: after");
    }

    int[] around(): execution(int[] Main.ints()) {
        int[] a = proceed();
        a[0] = 100;
        return a;
    }

    String[][] around(): execution(String[][] Main.grid()) {
        String[][] g = proceed();
        return new String[][] {g[1], g[0]};
    }

    Object around(): execution(* Main.obj()) {
        Object o = proceed();
        return o + "!";
    }
}
