public aspect Concat {
    before(): call(String *.toString()) && within(Main) {
        System.out.println("explicit toString call at line " + thisJoinPointStaticPart.getSourceLocation().getLine());
    }

    before(): execution(String Main.Item.toString()) {
        System.out.println("Item.toString executes (called from " + (thisJoinPoint.getThis() != null ? "concat or call" : "?") + ")");
    }

    String around(): call(String Main.label(int)) {
        return "[" + proceed() + "]";
    }

    before(): get(String Main.Item.name) {
        System.out.println("get name");
    }
}
