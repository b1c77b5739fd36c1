public aspect Ctx {
    pointcut request(String r): execution(void Main.handle(String)) && args(r);

    before(String r): execution(* Main.*(..)) && cflowbelow(request(r)) {
        System.out.println("  " + thisJoinPointStaticPart.getSignature().getName() + " serving " + r);
    }

    before(): execution(void Main.validate()) && !cflow(request(*)) {
        System.out.println("  validate outside any request");
    }
}
