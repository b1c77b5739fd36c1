public aspect Failing {
    after() throwing(NumberFormatException e): staticinitialization(Main.Broken) {
        System.out.println("static initializer of Broken threw " + e.getClass().getSimpleName());
    }

    after() returning: staticinitialization(Main.Broken) {
        System.out.println("never");
    }

    before(): staticinitialization(Main.Broken) {
        System.out.println("initializing Broken");
    }
}
