aspect A {
    declare foo: call(* *(..));
}
