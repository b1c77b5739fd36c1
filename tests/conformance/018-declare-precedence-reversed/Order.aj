public aspect Order {
    declare precedence: Log*, *;
}
