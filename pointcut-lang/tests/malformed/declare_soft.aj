aspect Softening {
    declare soft: java.io.IOException: execution(* *(..));
}
