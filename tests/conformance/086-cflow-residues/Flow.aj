public aspect Flow {
    // A cflow whose entry has a runtime test (this(Special)) and binds a value.
    before(Main.Worker w, int d): execution(void Main.Worker.leaf(int)) && args(d)
            && cflow(execution(* Main.Worker.run*(..)) && this(w) && this(Main.Special)) {
        System.out.println("  in a Special's run: " + w.name + ", leaf depth " + d);
    }

    // cflowbelow nested in cflow, and a runtime test inside the cflow.
    before(int d): execution(void Main.Worker.leaf(int)) && args(d)
            && cflow(execution(void Main.Worker.run(int)) && !this(Main.Special) && cflowbelow(execution(void Main.Worker.step(int)))) {
        System.out.println("  nested flow, leaf depth " + d);
    }

    // The flow is left when the join point throws.
    after() throwing(IllegalStateException e): execution(void Main.fail()) && cflow(execution(void Main.Special.runAndFail())) {
        System.out.println("  fail() threw in runAndFail: " + e.getMessage());
    }

    before(): execution(void Main.Worker.leaf(int)) && !cflow(execution(* Main.Worker.run*(..))) {
        System.out.println("  leaf outside any run");
    }
}
