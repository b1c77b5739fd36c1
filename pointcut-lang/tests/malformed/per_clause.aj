aspect Counter perthis(execution(* *(..))) {
    int count;
}
