public aspect Layers {
    String around(String s): execution(String Main.work(String)) && args(s) {
        System.out.println("outer in " + s);
        String r = proceed(s + "1");
        System.out.println("outer out " + r);
        return "<" + r + ">";
    }

    String around(String s): execution(String Main.work(String)) && args(s) {
        System.out.println("  middle in " + s);
        String r = proceed(s + "2");
        System.out.println("  middle out " + r);
        return "[" + r + "]";
    }

    String around(String s): execution(String Main.work(String)) && args(s) {
        System.out.println("    inner in " + s);
        String r = proceed(s + "3");
        System.out.println("    inner out " + r);
        return "(" + r + ")";
    }
}
