aspect Rules {
    declare warning: call(* java.util.Vector.*(..)) "Vector is slow";
}
