public aspect Records {
    before(int x, int y): execution(Main.Point.new(int, int)) && args(x, y) {
        System.out.println("  new Point(" + x + ", " + y + ")");
    }

    after() returning(int v): execution(int Main.Point.*()) {
        System.out.println("  " + thisJoinPointStaticPart.toShortString() + " -> " + v);
    }

    before(): get(int Main.Point.*) && withincode(int Main.Point.sum()) {
        System.out.println("  " + thisJoinPointStaticPart.toShortString());
    }

    String around(): execution(String Main.Point.toString()) {
        return "<" + proceed() + ">";
    }

    after() returning(boolean b): call(boolean Main.Point.equals(Object)) {
        System.out.println("  equals -> " + b);
    }

    after() throwing(IllegalArgumentException e): execution(Main.Point.new(..)) {
        System.out.println("  constructor threw " + e.getMessage());
    }
}
