aspect Loop {
    pointcut a(): b() && within(Foo);
    pointcut b(): a();

    before(): a() {
    }
}
