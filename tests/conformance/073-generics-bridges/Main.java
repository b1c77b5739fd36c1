import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

public class Main {
    static class Box<T> {
        private T value;

        void put(T v) {
            value = v;
        }

        T get() {
            return value;
        }
    }

    static class IntBox extends Box<Integer> {
        @Override
        void put(Integer v) {
            super.put(v + 1);
        }
    }

    static class Version implements Comparable<Version> {
        final int n;

        Version(int n) {
            this.n = n;
        }

        @Override
        public int compareTo(Version o) {
            return Integer.compare(n, o.n);
        }

        @Override
        public String toString() {
            return "v" + n;
        }
    }

    static <T extends Comparable<T>> T max(List<T> items) {
        return Collections.max(items);
    }

    public static void main(String[] args) {
        Box<Integer> b = new IntBox();
        b.put(41);
        System.out.println(b.get());
        List<Version> vs = new ArrayList<>();
        vs.add(new Version(2));
        vs.add(new Version(3));
        vs.add(new Version(1));
        System.out.println(max(vs));
    }
}
