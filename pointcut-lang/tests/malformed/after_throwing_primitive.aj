aspect Errors {
    after() throwing(int code): execution(* *(..)) {
    }
}
