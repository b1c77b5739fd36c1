public aspect Resources {
    before(Throwable t): handler(Throwable) && args(t) && within(Main) {
        System.out.println("  synthetic handler sees " + t.getMessage() + " in " + thisEnclosingJoinPointStaticPart.toShortString());
    }

    before(): call(void Main.Res.close()) {
        System.out.println("  call close at line " + thisJoinPointStaticPart.getSourceLocation().getLine());
    }

    before(): call(void Throwable.addSuppressed(Throwable)) {
        System.out.println("  addSuppressed");
    }
}
