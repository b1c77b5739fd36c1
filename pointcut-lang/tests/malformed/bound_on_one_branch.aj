aspect Tracker {
    before(Object o): call(* *(..)) && this(o) || execution(* *(..)) {
    }
}
