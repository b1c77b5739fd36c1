public aspect Twice {
    int around(): call(int Main.next()) {
        int a = proceed();
        int b = proceed();
        return a + b;
    }

    void around(String s): execution(void Main.log(String)) && args(s) {
        proceed(s + "#1");
        proceed(s + "#2");
    }
}
