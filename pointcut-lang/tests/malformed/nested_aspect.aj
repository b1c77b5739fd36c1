aspect Outer {
    static aspect Inner {
        before(): call(* *(..)) {
        }
    }
}
