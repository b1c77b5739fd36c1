aspect Timing {
    int around(int n): execution(int *.fib(int)) && args(n) {
        return proceed();
    }
}
