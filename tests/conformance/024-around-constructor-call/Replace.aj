public aspect Replace {
    Main.Circle around(): call(Main.Circle.new()) && withincode(* Main.make()) {
        System.out.println("replacing a Circle with a BigCircle");
        return new Main.BigCircle();
    }
}
