public aspect {
    before(): call(* *(..)) {
    }
}
