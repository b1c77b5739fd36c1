aspect Args {
    before(int x): execution(* *(int, int)) && args(x, ..) && args(.., x) {
    }
}
