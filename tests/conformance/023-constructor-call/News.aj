public aspect News {
    Object around(): call(Main.Widget.new(..)) {
        Object w = proceed();
        System.out.println("around got " + w);
        return w;
    }

    before(String label): call(Main.Widget.new(String)) && args(label) {
        System.out.println("about to construct with " + label);
    }

    after() returning(Object o): call(*.new(..)) && within(Main) {
        System.out.println("constructed " + o + " at " + thisJoinPointStaticPart.toShortString());
    }
}
