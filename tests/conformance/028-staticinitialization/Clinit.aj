public aspect Clinit {
    before(): staticinitialization(Main) || staticinitialization(Main.*) {
        System.out.println("before " + thisJoinPointStaticPart.toShortString());
    }

    after() returning: staticinitialization(Main.Config) {
        System.out.println("after " + thisJoinPointStaticPart.toLongString());
    }
}
