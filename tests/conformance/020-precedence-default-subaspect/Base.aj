public abstract aspect Base {
    abstract pointcut scope();

    before(): scope() {
        System.out.println("Base before (" + getClass().getSimpleName() + ")");
    }

    after(): scope() {
        System.out.println("Base after (" + getClass().getSimpleName() + ")");
    }
}
