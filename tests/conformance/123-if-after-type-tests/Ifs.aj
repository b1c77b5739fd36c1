public aspect Ifs {
    before(Main.E e): call(void Main.take(Object)) && args(e) && if(e.ok()) {
        System.out.println("  args then if: " + e);
    }

    before(Main.E e): if(e.ok()) && call(void Main.take(Object)) && args(e) {
        System.out.println("  if then args: " + e);
    }

    before(): call(void Main.take(Object)) && if(Main.probe("unbound")) && args(Main.F) {
        System.out.println("  an F");
    }

    before(Main.E e, Main t): call(void Main.work(..)) && target(t) && args(e, int) && if(e.ok() && t != null) {
        System.out.println("  target and args then if: " + e);
    }

    before(Main.E e): execution(void Main.work(..)) && args(e, ..) && if(!e.ok() || Main.probe("execution " + e)) {
        System.out.println("  execution with " + e);
    }
}
