public aspect Concrete extends Base {
    pointcut scope(): execution(void Main.step());

    before(): scope() {
        System.out.println("  Concrete before");
    }

    after(): scope() {
        System.out.println("  Concrete after");
    }
}
