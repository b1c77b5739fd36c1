import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

public class Main {
    static class Box<T> {
        T value;

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

        @Override
        Integer get() {
            return super.get() * 10;
        }
    }

    static class Name implements Comparable<Name> {
        final String s;

        Name(String s) {
            this.s = s;
        }

        @Override
        public int compareTo(Name o) {
            return s.compareTo(o.s);
        }

        @Override
        public String toString() {
            return s;
        }
    }

    interface Maker {
        Object make();
    }

    static class StringMaker implements Maker {
        @Override
        public String make() {
            return "made";
        }
    }

    public static void main(String[] args) {
        Box<Integer> b = new IntBox();
        b.put(4);
        System.out.println(b.get());
        List<Name> names = new ArrayList<>();
        names.add(new Name("b"));
        names.add(new Name("a"));
        Collections.sort(names);
        System.out.println(names);
        Maker m = new StringMaker();
        System.out.println(m.make());
    }
}
