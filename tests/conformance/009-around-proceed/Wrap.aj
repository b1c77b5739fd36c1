public aspect Wrap {
    String around(): execution(String Main.describe(int)) {
        System.out.println("enter " + thisJoinPoint.toShortString());
        String r = proceed();
        System.out.println("leave with " + r);
        return r;
    }
}
