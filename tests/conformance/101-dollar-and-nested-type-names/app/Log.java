package app;
public class Log {
    private static final StringBuilder SB = new StringBuilder();
    public static void add(String s) { SB.append(' ').append(s); }
    public static String take() { String s = SB.toString(); SB.setLength(0); return s; }
}
