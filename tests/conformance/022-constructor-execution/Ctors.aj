public aspect Ctors {
    before(): execution(Main.Point.new(..)) {
        System.out.println("before " + thisJoinPointStaticPart.toLongString());
    }

    before(int x, int y): execution(Main.Point.new(int, int)) && args(x, y) {
        System.out.println("  args " + x + " " + y);
    }

    after() returning: execution(*.new(..)) && !within(Ctors) {
        System.out.println("after returning " + thisJoinPointStaticPart.toShortString() + " this=" + thisJoinPoint.getThis().getClass().getName());
    }
}
