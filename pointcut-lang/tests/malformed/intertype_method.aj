aspect Points {
    public void Point.moveBy(int dx, int dy) {
        x += dx;
        y += dy;
    }
}
