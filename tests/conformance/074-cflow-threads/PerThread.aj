public aspect PerThread {
    before(String who): execution(void Main.task(String)) && args(who) && cflow(execution(void Main.spawn())) {
        System.out.println("in cflow of spawn: " + who);
    }

    before(String who): execution(void Main.task(String)) && args(who) && !cflow(execution(void Main.spawn())) {
        System.out.println("not in cflow of spawn: " + who);
    }
}
