package workloads.lucene;

import java.io.IOException;
import java.nio.file.Path;
import workloads.Results;
import workloads.Rng;

/**
 * The lucene workload's input: {@code docs.tsv}, a generated corpus (id,
 * category, year, title, body per line).
 */
public final class Input {
    private Input() {}

    /** Number of documents. */
    static final int DOCS = 6000;

    /** Writes {@code docs.tsv} under {@code dir}. */
    public static void generate(Path dir) throws IOException {
        Rng rng = new Rng(4104);
        String[] categories = {"news", "sport", "arts", "science", "travel", "food"};
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < DOCS; i++) {
            sb.append("doc").append(i).append('\t').append(rng.pick(categories)).append('\t')
                    .append(rng.between(1990, 2024)).append('\t').append(rng.words(rng.between(2, 6))).append('\t');
            int sentences = rng.between(2, 8);
            for (int s = 0; s < sentences; s++) {
                String w = rng.words(rng.between(4, 14));
                sb.append(Character.toUpperCase(w.charAt(0))).append(w, 1, w.length()).append(". ");
            }
            sb.append('\n');
        }
        Results.writeInput(dir, "docs.tsv", sb);
    }
}
