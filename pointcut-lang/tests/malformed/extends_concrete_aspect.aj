aspect Base {
    pointcut scope(): within(com.acme..*);
}

aspect Derived extends Base {
}
