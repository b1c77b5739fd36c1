aspect Points {
    private int Point.moves = 0;
}
