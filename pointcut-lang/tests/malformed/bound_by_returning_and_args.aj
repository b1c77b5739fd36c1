aspect Tracker {
    after() returning(Object o): call(* *(..)) && args(o) {
    }
}
