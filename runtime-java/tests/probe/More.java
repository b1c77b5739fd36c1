package probe;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

public class More {
    static Object created;

    static {
        try {
            created = Class.forName("no.such.Type");
        } catch (ClassNotFoundException e) {
            created = "none";
        }
    }

    char[][] grid = {{'a'}};
    Mid.Leaf[] leaves;

    More(Object... parts) throws IOException, InterruptedException {
        try {
            leaves = new Mid.Leaf[parts.length];
        } catch (RuntimeException e) {
            leaves = null;
        }
    }

    public static void main(String[] args) throws Exception {
        More m = new More("p", 2);
        Mid.Leaf.go(m.leaves);
        Map<String, Integer> map = new HashMap<String, Integer>();
        map.put("k", 1);
        Map.Entry<String, Integer> e = map.entrySet().iterator().next();
        String key = e.getKey();
        Comparable<String> c = key;
        int cmp = c.compareTo("j");
        char first = m.grid[0][0];
        Mid.Leaf.count += cmp + first;
    }

    static class Mid {
        static class Leaf {
            static long count;

            static void go(Leaf... leaves) {
            }
        }
    }
}
