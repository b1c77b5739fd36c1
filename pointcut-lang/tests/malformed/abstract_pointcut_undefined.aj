abstract aspect Base {
    abstract pointcut scope();

    before(): scope() && execution(* *(..)) {
    }
}

aspect Concrete extends Base {
}
