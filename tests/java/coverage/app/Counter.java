package app;

class Counter {
    private int n;

    int value() {
        return n;
    }

    class Inner {
        void bump() {
            n++;
        }
    }
}
