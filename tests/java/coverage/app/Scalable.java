package app;

interface Scalable {
    double base();

    default double scaled(double factor) {
        return base() * factor;
    }
}
