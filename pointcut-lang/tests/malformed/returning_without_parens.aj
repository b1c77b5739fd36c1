aspect A {
    after() returning Object o: call(* *(..)) { }
}
