public aspect Chains {
    void around(): execution(Main.Vehicle+.new(..)) {
        System.out.println("  > " + thisJoinPointStaticPart.toShortString());
        proceed();
        System.out.println("  < " + thisJoinPointStaticPart.toShortString());
    }

    before(): call(Main.Vehicle+.new(..)) {
        System.out.println("call " + thisJoinPointStaticPart.toShortString());
    }

    after(Main.Vehicle v) returning: initialization(Main.Vehicle+.new(..)) && this(v) {
        System.out.println("initialized " + v.getClass().getSimpleName() + " via " + thisJoinPointStaticPart.toShortString() + " kind=" + v.kind);
    }
}
