public class Main {
    static class Store {
        private final java.util.Map<String, Integer> data = new java.util.TreeMap<>();

        void put(String key, int value) {
            data.put(key, value);
        }

        Integer get(String key) {
            return data.get(key);
        }
    }

    public static void main(String[] args) {
        Store s = new Store();
        s.put("a", 1);
        s.put("b", 2);
        System.out.println(s.get("a") + " " + s.get("z"));
    }
}
