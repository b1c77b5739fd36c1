/**
 * Threads: 4 workers (a Thread subclass) each compute fib(12), and 3
 * threads run a Runnable that computes fib(5); all joined.
 */
public class CctThreads {
    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static class Worker extends Thread {
        volatile int result;

        @Override
        public void run() {
            result = fib(12);
        }
    }

    static class Task implements Runnable {
        @Override
        public void run() {
            if (fib(5) != 5) {
                throw new AssertionError();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Worker[] workers = new Worker[4];
        for (int i = 0; i < workers.length; i++) {
            workers[i] = new Worker();
            workers[i].start();
        }
        Thread[] tasks = new Thread[3];
        for (int i = 0; i < tasks.length; i++) {
            tasks[i] = new Thread(new Task());
            tasks[i].start();
        }
        for (Worker w : workers) {
            w.join();
            if (w.result != 144) {
                throw new AssertionError(w.result);
            }
        }
        for (Thread t : tasks) {
            t.join();
        }
    }
}
