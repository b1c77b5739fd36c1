public class Main {
    static void task(String who) {
        System.out.println("  task by " + who);
    }

    static void spawn() throws InterruptedException {
        task("spawner");
        Thread t = new Thread(() -> task("child thread"));
        t.start();
        t.join();
    }

    public static void main(String[] args) throws InterruptedException {
        spawn();
        task("main");
    }
}
