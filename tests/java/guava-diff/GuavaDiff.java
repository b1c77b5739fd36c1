import com.google.common.base.CaseFormat;
import com.google.common.base.CharMatcher;
import com.google.common.base.Converter;
import com.google.common.base.Joiner;
import com.google.common.base.MoreObjects;
import com.google.common.base.Objects;
import com.google.common.base.Optional;
import com.google.common.base.Preconditions;
import com.google.common.base.Splitter;
import com.google.common.base.Strings;
import com.google.common.base.Throwables;
import com.google.common.cache.CacheBuilder;
import com.google.common.cache.CacheLoader;
import com.google.common.cache.LoadingCache;
import com.google.common.collect.ArrayListMultimap;
import com.google.common.collect.BiMap;
import com.google.common.collect.Collections2;
import com.google.common.collect.ComparisonChain;
import com.google.common.collect.ContiguousSet;
import com.google.common.collect.DiscreteDomain;
import com.google.common.collect.FluentIterable;
import com.google.common.collect.HashBasedTable;
import com.google.common.collect.HashBiMap;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableListMultimap;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableMultiset;
import com.google.common.collect.ImmutableRangeSet;
import com.google.common.collect.ImmutableSet;
import com.google.common.collect.ImmutableSortedMap;
import com.google.common.collect.ImmutableSortedSet;
import com.google.common.collect.ImmutableTable;
import com.google.common.collect.Iterables;
import com.google.common.collect.Iterators;
import com.google.common.collect.LinkedHashMultimap;
import com.google.common.collect.Lists;
import com.google.common.collect.MapDifference;
import com.google.common.collect.Maps;
import com.google.common.collect.MinMaxPriorityQueue;
import com.google.common.collect.Multimap;
import com.google.common.collect.Multimaps;
import com.google.common.collect.Multiset;
import com.google.common.collect.Ordering;
import com.google.common.collect.Range;
import com.google.common.collect.RangeSet;
import com.google.common.collect.Sets;
import com.google.common.collect.Streams;
import com.google.common.collect.Table;
import com.google.common.collect.TreeMultiset;
import com.google.common.collect.TreeRangeMap;
import com.google.common.collect.TreeRangeSet;
import com.google.common.escape.Escaper;
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import com.google.common.hash.HashCode;
import com.google.common.hash.Hasher;
import com.google.common.hash.Hashing;
import com.google.common.html.HtmlEscapers;
import com.google.common.io.BaseEncoding;
import com.google.common.io.ByteStreams;
import com.google.common.io.CharStreams;
import com.google.common.math.BigIntegerMath;
import com.google.common.math.IntMath;
import com.google.common.math.LongMath;
import com.google.common.math.Stats;
import com.google.common.net.HostAndPort;
import com.google.common.net.InetAddresses;
import com.google.common.net.InternetDomainName;
import com.google.common.net.MediaType;
import com.google.common.net.UrlEscapers;
import com.google.common.primitives.Ints;
import com.google.common.primitives.Longs;
import com.google.common.primitives.UnsignedInteger;
import com.google.common.primitives.UnsignedLongs;
import com.google.common.reflect.TypeToken;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.common.util.concurrent.SettableFuture;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;

/**
 * A deterministic program that uses guava substantially (collections, strings,
 * hashing, math, caching, I/O, net, primitives, futures on a direct executor)
 * and prints what it computes. Used by tests/tests/library_weaving.rs: its output
 * must not change when guava is woven (by major or by ajc), and the woven
 * guava's advice counts must be the same for both weavers. Single-threaded,
 * nothing depends on identity hash codes, time or garbage collection.
 */
public class GuavaDiff {
    static final List<String> WORDS = ImmutableList.of(
            "delta", "alpha", "charlie", "bravo", "echo", "foxtrot", "golf", "hotel",
            "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa",
            "alpha", "echo", "kilo", "alpha");

    static void p(String label, Object value) {
        System.out.println(label + ": " + value);
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        for (int r = 0; r < rounds; r++) {
            System.out.println("== round " + r);
            strings(r);
            collections(r);
            multimaps(r);
            ordering(r);
            ranges(r);
            tables(r);
            hashing(r);
            math(r);
            primitives(r);
            io(r);
            net(r);
            cache(r);
            futures(r);
            misc(r);
        }
    }

    static void strings(int r) {
        Splitter comma = Splitter.on(',').trimResults().omitEmptyStrings();
        List<String> parts = comma.splitToList(" a, b ,,c , d" + r + ",, e ");
        p("split", parts);
        p("join", Joiner.on('|').useForNull("-").join(Arrays.asList("x", null, "y", "z" + r)));
        Map<String, String> kv = Splitter.on('&').withKeyValueSeparator('=').split("a=1&b=2&c=" + r);
        p("kv", kv);
        p("mapjoin", Joiner.on(", ").withKeyValueSeparator("->").join(ImmutableSortedMap.copyOf(kv)));
        p("pad", Strings.padStart("7", 4, '0') + Strings.padEnd("ab", 5, '.') + Strings.repeat("xy", r + 1));
        p("prefix", Strings.commonPrefix("interstellar", "internet") + "/" + Strings.commonSuffix("running", "jumping"));
        p("null", Strings.isNullOrEmpty("") + " " + Strings.nullToEmpty(null).length() + " " + Strings.emptyToNull(""));
        p("case", CaseFormat.LOWER_CAMEL.to(CaseFormat.UPPER_UNDERSCORE, "someVariableName" + r)
                + " " + CaseFormat.UPPER_UNDERSCORE.to(CaseFormat.LOWER_HYPHEN, "HELLO_BIG_WORLD"));
        Converter<String, String> conv = CaseFormat.LOWER_HYPHEN.converterTo(CaseFormat.UPPER_CAMEL);
        p("converter", conv.convert("a-b-c") + " " + conv.reverse().convert("DeeEffGee"));
        p("charmatcher", CharMatcher.digit().retainFrom("a1b2c3" + r)
                + " " + CharMatcher.whitespace().collapseFrom("  lots   of  space ", ' ')
                + " " + CharMatcher.anyOf("aeiou").removeFrom("education")
                + " " + CharMatcher.inRange('a', 'f').countIn("abcdefghij"));
        Escaper html = HtmlEscapers.htmlEscaper();
        p("html", html.escape("<a href=\"x\">&'</a>"));
        p("url", UrlEscapers.urlFormParameterEscaper().escape("a b&c=d/é") + " "
                + UrlEscapers.urlPathSegmentEscaper().escape("p q/r"));
        p("tostring", MoreObjects.toStringHelper("Thing").add("a", 1).add("b", "two").omitNullValues().add("c", null).toString());
        p("lenient", Strings.lenientFormat("%s + %s = %s", 1, 2, 3) + " " + Strings.lenientFormat("missing %s"));
    }

    static void collections(int r) {
        ImmutableList<Integer> ints = ImmutableList.of(5, 3, 9, 1, 7 + r, 3);
        p("list", ints + " rev " + ints.reverse() + " sub " + ints.subList(1, 4));
        p("sorted", ImmutableSortedSet.copyOf(ints) + " desc " + ImmutableSortedSet.copyOf(Ordering.natural().reverse(), ints));
        ImmutableSet<String> set = ImmutableSet.copyOf(WORDS);
        p("set", set.size() + " " + set.asList().get(3) + " " + set.contains("lima"));
        ImmutableMap<String, Integer> lengths = Maps.toMap(set, String::length);
        p("tomap", lengths);
        ImmutableMap<Integer, String> byLength = Maps.uniqueIndex(
                ImmutableList.of("a", "bb", "ccc", "dddd" + r), String::length);
        p("uniqueIndex", byLength);
        ImmutableMap.Builder<String, Integer> b = ImmutableMap.builder();
        for (int i = 0; i < 10; i++) b.put("k" + i, i * i + r);
        ImmutableMap<String, Integer> m = b.build();
        p("map", m + " " + m.get("k7") + " " + m.containsValue(81 + r));
        p("filterValues", Maps.filterValues(m, v -> v % 2 == 0));
        p("transformValues", Maps.transformValues(ImmutableSortedMap.copyOf(m), v -> v * 10));
        MapDifference<String, Integer> diff = Maps.difference(m, ImmutableMap.of("k1", 1 + r, "k2", 99, "zz", 0));
        p("difference", diff.entriesInCommon() + " " + diff.entriesDiffering() + " " + diff.entriesOnlyOnRight());
        List<List<Integer>> parts = Lists.partition(Lists.newArrayList(1, 2, 3, 4, 5, 6, 7), 3);
        p("partition", parts);
        p("cartesian", Lists.cartesianProduct(ImmutableList.of(1, 2), ImmutableList.of("a", "b" + r)));
        p("transform", Lists.transform(ints, i -> i * 2));
        p("charlist", Lists.charactersOf("guava" + r));
        Set<String> s1 = ImmutableSet.of("a", "b", "c", "d");
        Set<String> s2 = ImmutableSet.of("c", "d", "e");
        p("sets", Sets.union(s1, s2) + " " + Sets.intersection(s1, s2) + " " + Sets.difference(s1, s2)
                + " " + Sets.symmetricDifference(s1, s2));
        p("powerset", Sets.powerSet(ImmutableSet.of(1, 2, 3)).size() + " " + Sets.combinations(ImmutableSet.of(1, 2, 3, 4), 2));
        p("cartesianSet", Sets.cartesianProduct(ImmutableSet.of(1, 2), ImmutableSet.of(3, 4 + r)));
        Multiset<String> bag = ImmutableMultiset.copyOf(WORDS);
        p("multiset", bag.count("alpha") + " " + bag.elementSet().size() + " " + bag.entrySet().iterator().next());
        TreeMultiset<String> tree = TreeMultiset.create(WORDS);
        p("treemultiset", tree.firstEntry() + " " + tree.lastEntry() + " " + tree.headMultiset("delta", com.google.common.collect.BoundType.OPEN));
        p("iterables", Iterables.getLast(WORDS) + " " + Iterables.frequency(WORDS, "echo") + " "
                + Iterables.toString(Iterables.limit(Iterables.skip(WORDS, 2), 3)) + " "
                + Iterables.getFirst(Iterables.filter(WORDS, w -> w.startsWith("n")), "none"));
        p("iterators", Iterators.toString(Iterators.limit(Iterators.cycle(1, 2, 3), 7 + r)) + " "
                + Iterators.size(Iterators.forArray(1, 2, 3)) + " " + Iterators.getLast(WORDS.iterator()));
        p("concat", ImmutableList.copyOf(Iterables.concat(ImmutableList.of(1), ImmutableList.of(2, 3), ImmutableList.of(4 + r))));
        p("fluent", FluentIterable.from(WORDS).filter(w -> w.length() > 4).transform(String::toUpperCase)
                .limit(5).toSortedList(Ordering.natural()));
        p("collections2", Collections2.permutations(ImmutableList.of(1, 2, 3)).size() + " "
                + Collections2.orderedPermutations(ImmutableList.of("b", "a", "a")));
        BiMap<String, Integer> bimap = HashBiMap.create();
        bimap.put("one", 1);
        bimap.put("two", 2);
        bimap.forcePut("uno", 1);
        p("bimap", ImmutableSortedMap.copyOf(bimap) + " " + bimap.inverse().get(2) + " " + bimap.inverse().get(1));
        MinMaxPriorityQueue<Integer> q = MinMaxPriorityQueue.maximumSize(4).create(ints);
        p("minmax", q.peekFirst() + " " + q.peekLast() + " " + q.size());
        p("streams", Streams.zip(WORDS.stream(), ints.stream(), (w, i) -> w + i).collect(Collectors.toList()));
        p("contiguous", ContiguousSet.create(Range.closedOpen(3, 9 + r), DiscreteDomain.integers()));
        p("immutableCollector", WORDS.stream().filter(w -> w.contains("a"))
                .collect(ImmutableSortedSet.toImmutableSortedSet(Comparator.naturalOrder())));
    }

    static void multimaps(int r) {
        ArrayListMultimap<Integer, String> byLen = ArrayListMultimap.create();
        for (String w : WORDS) byLen.put(w.length(), w);
        p("multimap", ImmutableSortedMap.copyOf(byLen.asMap()) + " " + byLen.size() + " " + byLen.keySet().size());
        ImmutableListMultimap<Character, String> idx = Multimaps.index(WORDS, w -> w.charAt(0));
        p("index", idx.get('a') + " " + idx.keys().count('e') + " " + idx.inverse().get("kilo"));
        LinkedHashMultimap<String, Integer> lhm = LinkedHashMultimap.create();
        for (int i = 0; i < 12; i++) lhm.put("k" + (i % (3 + r)), i);
        p("linkedhash", lhm);
        Multimap<String, Integer> filtered = Multimaps.filterEntries(lhm, e -> e.getValue() % 2 == 1);
        p("filtered", filtered);
        p("invert", Multimaps.invertFrom(lhm, ArrayListMultimap.<Integer, String>create()));
        Multimap<Integer, String> sortedValues = Multimaps.newListMultimap(Maps.newTreeMap(), ArrayList::new);
        sortedValues.putAll(2, ImmutableList.of("b", "a"));
        sortedValues.putAll(1, ImmutableList.of("z"));
        p("custom", sortedValues);
    }

    static void ordering(int r) {
        Ordering<String> byLength = Ordering.natural().onResultOf(String::length);
        Ordering<String> o = byLength.compound(Ordering.natural()).nullsFirst();
        List<String> ws = new ArrayList<>(WORDS);
        ws.add(null);
        p("ordering", o.sortedCopy(ws));
        p("greatest", byLength.greatestOf(WORDS, 3 + r) + " " + Ordering.natural().leastOf(WORDS, 4));
        p("minmax", Ordering.natural().min(WORDS) + " " + Ordering.natural().max(WORDS) + " " + byLength.reverse().isOrdered(ImmutableList.of("ccc", "bb", "a")));
        p("lexicographical", Ordering.<Integer>natural().lexicographical().sortedCopy(
                ImmutableList.of(ImmutableList.of(1, 2), ImmutableList.of(1), ImmutableList.of(0, 9 + r))));
        p("explicit", Ordering.explicit("low", "mid", "high").sortedCopy(ImmutableList.of("high", "low", "mid", "low")));
        int c = ComparisonChain.start().compare("a", "b").compare(1, 1).compareFalseFirst(true, false).result();
        p("chain", c + " " + ComparisonChain.start().compare(2, 2).compare(1.5, 1.5).result());
        p("binarySearch", Ordering.natural().binarySearch(ImmutableList.of(1, 3, 5, 7, 9), 7));
    }

    static void ranges(int r) {
        RangeSet<Integer> rs = TreeRangeSet.create();
        rs.add(Range.closed(1, 10));
        rs.remove(Range.open(3, 5 + r));
        rs.add(Range.closedOpen(11, 15));
        rs.add(Range.closed(15, 20));
        p("rangeset", rs + " " + rs.contains(4) + " " + rs.rangeContaining(12) + " " + rs.complement());
        ImmutableRangeSet<Integer> irs = ImmutableRangeSet.<Integer>builder().add(Range.atLeast(100)).add(Range.lessThan(-5)).build();
        p("immutableRangeSet", irs + " " + irs.span());
        TreeRangeMap<Integer, String> rm = TreeRangeMap.create();
        rm.put(Range.closed(1, 10), "low");
        rm.put(Range.closed(5, 7 + r), "mid");
        rm.put(Range.greaterThan(20), "high");
        p("rangemap", rm + " " + rm.get(6) + " " + rm.get(25) + " " + rm.get(15));
        Range<String> sr = Range.closed("b", "f");
        p("range", sr.contains("cat") + " " + sr.intersection(Range.atMost("d")) + " " + sr.span(Range.singleton("z"))
                + " " + Range.encloseAll(ImmutableList.of(4, 9, -2, 7 + r)));
    }

    static void tables(int r) {
        Table<String, Integer, String> t = HashBasedTable.create();
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 3 + r; j++) {
                t.put("row" + i, j, i + "x" + j);
            }
        }
        p("table", t.size() + " " + t.row("row2") + " " + ImmutableSortedMap.copyOf(t.column(1)) + " " + t.contains("row3", 2));
        ImmutableTable<String, String, Integer> it = ImmutableTable.<String, String, Integer>builder()
                .put("a", "x", 1).put("a", "y", 2).put("b", "x", 3 + r).build();
        p("immutableTable", it + " " + it.columnMap() + " " + it.rowKeySet());
        SortedMap<String, Map<Integer, String>> rows = new java.util.TreeMap<>(t.rowMap());
        p("rowMap", rows.firstKey() + " " + rows.get("row0"));
    }

    static void hashing(int r) {
        String text = "The quick brown fox jumps over the lazy dog " + r;
        p("sha256", Hashing.sha256().hashString(text, StandardCharsets.UTF_8));
        p("murmur3_32", Hashing.murmur3_32_fixed().hashString(text, StandardCharsets.UTF_8));
        p("murmur3_128", Hashing.murmur3_128(42).hashBytes(text.getBytes(StandardCharsets.UTF_8)));
        p("crc32", Hashing.crc32().hashInt(123456 + r) + " adler " + Hashing.adler32().hashLong(987654321L));
        p("sipHash", Hashing.sipHash24().hashString(text, StandardCharsets.UTF_8).asLong());
        p("farm", Hashing.farmHashFingerprint64().hashString(text, StandardCharsets.UTF_8));
        Hasher h = Hashing.md5().newHasher();
        h.putInt(1).putLong(2L).putString("three", StandardCharsets.UTF_8).putBoolean(true).putDouble(4.5);
        p("hasher", h.hash());
        HashCode combined = Hashing.combineOrdered(ImmutableList.of(HashCode.fromInt(1), HashCode.fromInt(2 + r)));
        p("combine", combined + " " + Hashing.consistentHash(combined, 100) + " " + Hashing.consistentHash(123456789L, 37));
        BloomFilter<Integer> bloom = BloomFilter.create(Funnels.integerFunnel(), 1000, 0.01);
        for (int i = 0; i < 500; i += 2) bloom.put(i);
        int fp = 0;
        for (int i = 1; i < 500; i += 2) if (bloom.mightContain(i)) fp++;
        p("bloom", bloom.mightContain(10) + " " + fp + " " + bloom.approximateElementCount());
        p("base64", BaseEncoding.base64().encode(text.getBytes(StandardCharsets.UTF_8)) + " "
                + BaseEncoding.base16().lowerCase().encode(new byte[] {1, 2, (byte) 0xff}) + " "
                + new String(BaseEncoding.base32().decode("MZXW6YTBOI======"), StandardCharsets.US_ASCII));
    }

    static void math(int r) {
        p("intmath", IntMath.gcd(84, 36 + r) + " " + IntMath.log2(1000, RoundingMode.CEILING) + " " + IntMath.pow(3, 7)
                + " " + IntMath.sqrt(99, RoundingMode.FLOOR) + " " + IntMath.binomial(20, 7) + " " + IntMath.isPrime(7919));
        p("longmath", LongMath.factorial(15 + r) + " " + LongMath.checkedMultiply(123456789L, 1000L) + " "
                + LongMath.divide(10, 3, RoundingMode.HALF_UP) + " " + LongMath.mod(-7, 3));
        p("bigint", BigIntegerMath.factorial(30 + r) + " " + BigIntegerMath.sqrt(BigInteger.TEN.pow(21), RoundingMode.FLOOR));
        try {
            IntMath.checkedAdd(Integer.MAX_VALUE, 1 + r);
            p("overflow", "none");
        } catch (ArithmeticException e) {
            p("overflow", e.getMessage());
        }
        Stats st = Stats.of(2, 4, 4, 4, 5, 5, 7, 9 + r);
        p("stats", st.count() + " " + st.mean() + " " + st.populationStandardDeviation() + " " + st.max());
    }

    static void primitives(int r) {
        int[] a = {5, -3, 12 + r, 0, 7};
        p("ints", Ints.max(a) + " " + Ints.min(a) + " " + Ints.join(",", a) + " " + Ints.asList(a).indexOf(0)
                + " " + Ints.tryParse("12x") + " " + Ints.tryParse("-42") + " " + Arrays.toString(Ints.toArray(ImmutableList.of(3, 1, 2))));
        p("longs", Longs.fromByteArray(Longs.toByteArray(0x0102030405060708L + r)) + " " + Longs.lexicographicalComparator().compare(new long[] {1, 2}, new long[] {1, 3}));
        p("unsigned", UnsignedInteger.fromIntBits(-1) + " " + UnsignedLongs.toString(-1L - r) + " " + UnsignedLongs.divide(-1L, 10));
        p("sortDesc", Arrays.toString(sortDesc(a)));
    }

    static int[] sortDesc(int[] a) {
        int[] c = a.clone();
        Ints.sortDescending(c);
        return c;
    }

    static void io(int r) throws IOException {
        String text = "line one\nline two\n\nline four " + r + "\n";
        p("readLines", CharStreams.readLines(new StringReader(text)));
        byte[] bytes = ByteStreams.toByteArray(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
        p("bytes", bytes.length + " " + ByteStreams.limit(new ByteArrayInputStream(bytes), 4).read());
        StringBuilder sb = new StringBuilder();
        CharStreams.copy(new StringReader("copied " + r), sb);
        p("copy", sb);
        p("asCharSource", com.google.common.io.CharSource.wrap(text).lines().filter(l -> !l.isEmpty()).count());
    }

    static void net(int r) {
        HostAndPort hp = HostAndPort.fromString("example.com:80" + r);
        p("hostandport", hp.getHost() + " " + hp.getPort() + " " + HostAndPort.fromString("[::1]").withDefaultPort(443));
        p("inet", InetAddresses.forString("192.168.1." + (10 + r)).getHostAddress() + " " + InetAddresses.isInetAddress("300.1.1.1")
                + " " + InetAddresses.toAddrString(InetAddresses.forString("2001:db8:0:0:0:0:2:1")));
        InternetDomainName dn = InternetDomainName.from("mail.example.co.uk");
        p("domain", dn.topPrivateDomain() + " " + dn.publicSuffix() + " " + dn.parts());
        MediaType mt = MediaType.parse("text/html; charset=utf-8");
        p("mediatype", mt.type() + " " + mt.subtype() + " " + mt.charset().get() + " " + mt.withoutParameters() + " " + MediaType.JSON_UTF_8);
    }

    static void cache(int r) throws ExecutionException {
        final int[] loads = {0};
        LoadingCache<Integer, String> c = CacheBuilder.newBuilder()
                .maximumSize(8)
                .recordStats()
                .build(new CacheLoader<Integer, String>() {
                    @Override
                    public String load(Integer key) {
                        loads[0]++;
                        return "v" + key * key;
                    }
                });
        for (int i = 0; i < 40; i++) c.get(i % (5 + r));
        p("cache", loads[0] + " " + c.size() + " " + c.stats().hitCount() + " " + c.stats().missCount() + " " + c.getIfPresent(3));
        c.invalidateAll();
        p("cache-after", c.size());
    }

    static void futures(int r) throws Exception {
        SettableFuture<Integer> f = SettableFuture.create();
        ListenableFuture<String> g = Futures.transform(f, i -> "got " + i, MoreExecutors.directExecutor());
        ListenableFuture<List<Object>> all = Futures.allAsList(g, Futures.immediateFuture("now" + r));
        f.set(41 + r);
        p("futures", g.get() + " " + all.get() + " " + Futures.getDone(g));
        ListenableFuture<String> failed = Futures.immediateFailedFuture(new IllegalStateException("boom"));
        ListenableFuture<String> recovered = Futures.catching(failed, IllegalStateException.class,
                e -> "recovered " + e.getMessage(), MoreExecutors.directExecutor());
        p("catching", recovered.get());
    }

    static void misc(int r) {
        Optional<String> o = Optional.fromNullable(r % 2 == 0 ? "present" : null);
        p("optional", o.or("absent") + " " + o.transform(String::length) + " " + Optional.absent().isPresent()
                + " " + ImmutableList.copyOf(Optional.presentInstances(ImmutableList.of(Optional.of(1), Optional.absent(), Optional.of(3)))));
        try {
            Preconditions.checkArgument(r < 0, "r must be negative but was %s", r);
        } catch (IllegalArgumentException e) {
            p("checkArgument", e.getMessage());
        }
        try {
            Preconditions.checkElementIndex(5 + r, 3, "idx");
        } catch (IndexOutOfBoundsException e) {
            p("checkElementIndex", e.getMessage());
        }
        try {
            Preconditions.checkNotNull(null, "thing %s is null", "x");
        } catch (NullPointerException e) {
            p("checkNotNull", e.getMessage());
        }
        p("objects", Objects.equal("a", "a") + " " + Objects.equal(null, "a") + " " + MoreObjects.firstNonNull(null, "fallback"));
        Throwable t = new RuntimeException("outer", new IllegalStateException("root " + r));
        p("throwables", Throwables.getRootCause(t).getMessage() + " " + Throwables.getCausalChain(t).size());
        // (not getTypes(): it sorts a HashMap keyed by Class, whose identity hash
        // codes change from run to run, and so would the number of comparisons)
        TypeToken<Map<String, List<Integer>>> tt = new TypeToken<Map<String, List<Integer>>>() {};
        p("typetoken", tt.getType() + " " + tt.getRawType().getName() + " "
                + tt.isSubtypeOf(Map.class) + " " + TypeToken.of(ArrayList.class).isSubtypeOf(Collection.class));
        p("verify", com.google.common.base.Verify.verifyNotNull("ok"));
    }
}
