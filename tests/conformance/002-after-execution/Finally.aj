public aspect Finally {
    after(): execution(static * Main.divide(..)) || execution(static void Main.check(boolean)) {
        System.out.println("after " + thisJoinPointStaticPart.toShortString());
    }
}
