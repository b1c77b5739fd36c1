public aspect Nulls {
    before(Main.Node n): call(String Main.Node.name()) && target(n) {
        System.out.println("  target bound: " + (n == null ? "null" : n.name));
    }

    before(Object o): call(String Main.Node.name()) && target(o) {
        System.out.println("  target(Object) bound: " + (o == null ? "null" : "a Node"));
    }

    before(Main.Special sp): call(String Main.Node.name()) && target(sp) {
        System.out.println("  target(Special) needs a run-time test, which null fails: " + sp.name);
    }

    before(): call(String Main.Node.name()) {
        System.out.println("  call (target is null: " + (thisJoinPoint.getTarget() == null) + ")");
    }

    after() throwing(NullPointerException e): call(String Main.Node.name()) {
        System.out.println("  the call threw an NPE");
    }

    before(Object v): set(Main.Node Main.Node.next) && args(v) {
        System.out.println("  args(Object) matches a null value: " + v);
    }

    before(Main.Node v): set(Main.Node Main.Node.next) && args(v) {
        System.out.println("  args(Node) with null: " + v);
    }
}
