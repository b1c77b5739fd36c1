aspect A {
    before(): { }
}
