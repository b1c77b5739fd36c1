package workloads.lucene;

import java.io.File;
import java.nio.file.Path;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.IntField;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LogDocMergePolicy;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.index.Term;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.NumericRangeQuery;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.WildcardQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.Version;
import workloads.Results;

/**
 * Indexes the generated corpus with Lucene 4.10 into {@code index/} of the
 * work directory (FSDirectory, one indexing thread, serial merges, so the
 * index and its document numbers are the same every run), then runs term,
 * phrase, boolean, prefix, wildcard, numeric range and parsed queries, scored
 * and sorted, writing the hits to {@code out/hits.txt}.
 */
public final class Main {
    private Main() {}

    /** {@code Main INPUT_DIR}. */
    public static void main(String[] args) throws Exception {
        Path in = Path.of(args[0]);
        Analyzer analyzer = new StandardAnalyzer();
        int docs = 0;
        try (Directory dir = FSDirectory.open(new File("index"))) {
            IndexWriterConfig config = new IndexWriterConfig(Version.LUCENE_4_10_4, analyzer);
            config.setMergeScheduler(new SerialMergeScheduler());
            LogDocMergePolicy merges = new LogDocMergePolicy();
            merges.setMergeFactor(5);
            config.setMergePolicy(merges);
            config.setMaxBufferedDocs(700);
            try (IndexWriter w = new IndexWriter(dir, config)) {
                for (String line : Results.read(in, "docs.tsv").split("\n")) {
                    String[] f = line.split("\t");
                    Document d = new Document();
                    d.add(new StringField("id", f[0], Field.Store.YES));
                    d.add(new SortedDocValuesField("id", new BytesRef(f[0])));
                    d.add(new StringField("category", f[1], Field.Store.YES));
                    int year = Integer.parseInt(f[2]);
                    d.add(new IntField("year", year, Field.Store.YES));
                    d.add(new NumericDocValuesField("year", year));
                    d.add(new TextField("title", f[3], Field.Store.YES));
                    d.add(new TextField("body", f[4], Field.Store.NO));
                    w.addDocument(d);
                    docs++;
                }
                w.commit();
                w.deleteDocuments(new Term("category", "food"), new Term("id", "doc7"));
                w.forceMerge(2);
                w.commit();
            }
            StringBuilder out = new StringBuilder();
            try (DirectoryReader reader = DirectoryReader.open(dir)) {
                IndexSearcher s = new IndexSearcher(reader);
                out.append("docs ").append(reader.numDocs()).append(" max ").append(reader.maxDoc())
                        .append(" segments ").append(reader.leaves().size()).append('\n');
                QueryParser qp = new QueryParser("body", analyzer);
                PhraseQuery phrase = new PhraseQuery();
                phrase.add(new Term("body", "river"));
                phrase.add(new Term("body", "stone"));
                PhraseQuery sloppy = new PhraseQuery();
                sloppy.add(new Term("body", "light"));
                sloppy.add(new Term("body", "house"));
                sloppy.setSlop(3);
                BooleanQuery bool = new BooleanQuery();
                bool.add(new TermQuery(new Term("body", "garden")), BooleanClause.Occur.MUST);
                bool.add(new TermQuery(new Term("title", "winter")), BooleanClause.Occur.SHOULD);
                bool.add(new TermQuery(new Term("category", "sport")), BooleanClause.Occur.MUST_NOT);
                Query[] queries = {
                    new TermQuery(new Term("body", "mountain")),
                    phrase,
                    sloppy,
                    bool,
                    new PrefixQuery(new Term("title", "gla")),
                    new WildcardQuery(new Term("body", "m?r*e")),
                    NumericRangeQuery.newIntRange("year", 2001, 2003, true, false),
                    qp.parse("title:(castle OR bridge) AND body:\"silver window\"~2 -category:news"),
                    qp.parse("harbor^3 island zephyr~1"),
                };
                Sort byYear = new Sort(new SortField("year", SortField.Type.INT, true),
                        new SortField("id", SortField.Type.STRING));
                for (Query q : queries) {
                    TopDocs top = s.search(q, 15);
                    out.append("query ").append(q).append(" hits ").append(top.totalHits).append('\n');
                    for (ScoreDoc sd : top.scoreDocs) {
                        Document d = s.doc(sd.doc);
                        out.append("  ").append(d.get("id")).append(' ').append(sd.score).append(' ')
                                .append(d.get("year")).append(' ').append(d.get("title")).append('\n');
                    }
                    TopDocs sorted = s.search(q, 10, byYear);
                    out.append(" sorted by year, id:");
                    for (ScoreDoc sd : sorted.scoreDocs) {
                        out.append(' ').append(s.doc(sd.doc).get("id"));
                    }
                    out.append('\n');
                }
            }
            Results.write("hits.txt", out);
        }
        System.out.println("lucene: indexed " + docs + " documents, hits written");
    }
}
