public aspect Init {
    before(): initialization(Main.Base+.new(..)) {
        System.out.println("before " + thisJoinPointStaticPart.toLongString());
    }

    after() returning: initialization(Main.Base+.new(..)) {
        System.out.println("after " + thisJoinPointStaticPart.toShortString());
    }

    before(): preinitialization(Main.Base+.new(..)) {
        System.out.println("  pre " + thisJoinPointStaticPart.toShortString() + " args " + java.util.Arrays.toString(thisJoinPoint.getArgs()));
    }

    before(): execution(Main.Base+.new(..)) {
        System.out.println("  exec " + thisJoinPointStaticPart.toShortString());
    }
}
