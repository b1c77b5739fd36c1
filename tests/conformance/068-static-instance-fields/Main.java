public class Main {
    static class Counter {
        static int instances;
        static String lastName;
        long total;
        double average;
        String name;

        Counter(String name) {
            this.name = name;
            instances++;
            lastName = name;
        }

        void add(long v) {
            total += v;
            average = total / (double) instances;
        }
    }

    public static void main(String[] args) {
        Counter a = new Counter("a");
        Counter b = new Counter("b");
        a.add(10);
        b.add(5);
        System.out.println(Counter.instances + " " + Counter.lastName + " " + a.total + " " + a.average + " " + b.average);
    }
}
