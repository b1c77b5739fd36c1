public aspect Both {
    int around(int x): call(int Main.Calculator.twice(int)) && args(x) {
        System.out.println("call: before proceed, x=" + x);
        int r = proceed(x + 1);
        System.out.println("call: after proceed, r=" + r);
        return r + 1000;
    }

    int around(int x): execution(int Main.Calculator.twice(int)) && args(x) {
        System.out.println("  execution: before proceed, x=" + x);
        int r = proceed(x);
        System.out.println("  execution: after proceed, r=" + r);
        return r + 100;
    }
}
