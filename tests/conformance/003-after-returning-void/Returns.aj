public aspect Returns {
    after() returning: execution(void Main.*()) {
        System.out.println("returned from " + thisJoinPointStaticPart.getSignature().getName());
    }

    after() returning(Object o): call(void Main.increment()) {
        System.out.println("call returned " + o);
    }
}
