package app;

import java.util.*;
import java.util.concurrent.*;

/** A small program with threads, run woven by the single-phase agent. */
public class Main {
    static int work(int seed) {
        List<Integer> l = new ArrayList<>();
        for (int i = 0; i < 1000; i++) l.add((i * 31 + seed) % 97);
        Collections.sort(l);
        Map<Integer, Integer> m = new HashMap<>();
        for (int x : l) m.merge(x, 1, Integer::sum);
        return m.size() * 1000 + l.get(500);
    }

    public static void main(String[] args) throws Exception {
        System.out.println("hello, world");
        if (args.length > 0 && args[0].equals("exit")) {
            System.exit(Integer.parseInt(args[1]));
        }
        List<Thread> ts = new ArrayList<>();
        int[] results = new int[4];
        for (int t = 0; t < 4; t++) {
            final int k = t;
            Thread th = new Thread(() -> results[k] = work(k));
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) th.join();
        System.out.println("threads: " + Arrays.toString(results));
        ExecutorService ex = Executors.newFixedThreadPool(3);
        List<Future<Integer>> fs = new ArrayList<>();
        for (int t = 0; t < 6; t++) { final int k = t; fs.add(ex.submit(() -> work(10 + k))); }
        long sum = 0;
        for (Future<Integer> f : fs) sum += f.get();
        ex.shutdown();
        System.out.println("pool: " + sum);
        StringBuilder sb = new StringBuilder();
        for (String s : "the quick brown fox".split(" ")) sb.append(s.toUpperCase().hashCode()).append(';');
        System.out.println(sb);
    }
}
