aspect Tracker {
    before(int self): execution(* *(..)) && this(self) {
    }
}
