package workloads;

/**
 * A deterministic pseudo-random generator (SplitMix64) and word lists for the
 * input generators: the same seed gives the same sequence on every JDK.
 */
public final class Rng {
    private long state;

    /** A generator starting from {@code seed}. */
    public Rng(long seed) {
        this.state = seed;
    }

    /** The next 64 random bits. */
    public long next() {
        long z = (state += 0x9E3779B97F4A7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** A number in [0, bound). */
    public int below(int bound) {
        return (int) Long.remainderUnsigned(next(), bound);
    }

    /** A number in [lo, hi]. */
    public int between(int lo, int hi) {
        return lo + below(hi - lo + 1);
    }

    /** One of {@code items}. */
    public <T> T pick(T[] items) {
        return items[below(items.length)];
    }

    /** A word skewed towards the start of {@link #WORDS} (roughly Zipf-like). */
    public String word() {
        int a = below(WORDS.length);
        int b = below(WORDS.length);
        return WORDS[Math.min(a, b)];
    }

    /** {@code n} words separated by single spaces. */
    public String words(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sb.append(' ');
            }
            sb.append(word());
        }
        return sb.toString();
    }

    /** A capitalised word. */
    public String name() {
        String w = pick(WORDS);
        return Character.toUpperCase(w.charAt(0)) + w.substring(1);
    }

    /** Plain lower-case English words. */
    public static final String[] WORDS = {
        "the", "river", "stone", "light", "house", "garden", "winter", "market", "silver", "window",
        "forest", "engine", "letter", "number", "mountain", "harbor", "island", "paper", "signal", "bridge",
        "castle", "thunder", "valley", "mirror", "candle", "anchor", "circle", "desert", "feather", "glacier",
        "hammer", "jungle", "kettle", "ladder", "meadow", "needle", "orchard", "pepper", "quarry", "ribbon",
        "saddle", "tunnel", "velvet", "wander", "yellow", "zephyr", "amber", "basket", "cobalt", "dragon",
        "ember", "falcon", "granite", "hollow", "indigo", "jasper", "kernel", "lantern", "marble", "nectar",
        "oyster", "pebble", "quiver", "raven", "sparrow", "timber", "umber", "violet", "walnut", "willow",
        "alpha", "beacon", "cedar", "delta", "echo", "fjord", "grove", "heron", "ivory", "juniper",
        "kayak", "lotus", "maple", "nimbus", "onyx", "prairie", "quartz", "reef", "sable", "tundra",
        "upland", "vortex", "wharf", "yarrow", "zenith", "acorn", "bramble", "cinder", "dune", "estuary",
    };
}
