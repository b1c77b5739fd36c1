public aspect Watch {
    before(): adviceexecution() && !within(Watch) {
        System.out.println("advice " + thisJoinPointStaticPart.getSignature());
    }

    after() returning(String s): execution(String LogAspect.describe()) {
        System.out.println("described " + s);
    }
}
