aspect Rules {
    declare warning: call(* *(..)) && args(int): "calls with an int";
}
