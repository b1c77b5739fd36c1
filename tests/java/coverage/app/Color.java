package app;

enum Color {
    RED(0xff0000), GREEN(0x00ff00);

    private final int rgb;

    Color(int rgb) {
        this.rgb = rgb;
    }

    int rgb() {
        return rgb;
    }
}
