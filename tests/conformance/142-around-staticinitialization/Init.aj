public aspect Init {
    void around(): staticinitialization(Main.Run) {
        System.out.println("before " + thisJoinPointStaticPart);
        proceed();
        System.out.println("after " + thisJoinPointStaticPart);
    }

    void around(): staticinitialization(Main.Skip) {
        System.out.println("skipping " + thisJoinPointStaticPart.getSignature().getDeclaringType().getSimpleName());
    }

    void around(): staticinitialization(Main.NoInit) {
        System.out.println("around " + thisJoinPointStaticPart);
        proceed();
    }
}
