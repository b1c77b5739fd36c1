aspect A {
    declare precedence A, B;
}
