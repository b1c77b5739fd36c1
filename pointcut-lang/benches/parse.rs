//! Parsing and checking a generated 2,000-line aspect: `cargo bench -p
//! major-pointcut-lang --bench parse`. Prints the best of N runs against the 20 ms
//! target of issue 3.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use major_pointcut_lang::{compile, SourceFile};

/// An aspect of about `lines` lines mixing every kind of member.
fn generate(lines: usize) -> String {
    let mut s = String::from(
        "package bench.aspects;\n\nimport java.util.*;\nimport java.util.concurrent.atomic.AtomicLong;\n\n\
         public aspect Generated {\n    private static final Map<String, AtomicLong> counts = new HashMap<>();\n\n",
    );
    let mut i = 0;
    while s.lines().count() < lines {
        let _ = write!(
            s,
            "    /** Group {i}. */
    pointcut exec{i}(Object self, int n): execution(public * com.acme.pkg{i}..*Service+.handle*(int, ..))
        && this(self) && args(n, ..) && !within(Generated);
    pointcut calls{i}(): call(* java.util.List+.add*(..)) || call(java.util.HashMap.new(..))
        || get(static * com.acme.pkg{i}.*.*) || set(!final int *..*.count*);

    before(Object self, int n): exec{i}(self, n) && if(n > {i}) {{
        String key = \"exec{i}\" + n; // {{ not a block }}
        counts.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
        if (self == null) {{ throw new IllegalStateException(\"no self {{\"); }}
    }}

    Object around(): calls{i}() && cflow(execution(* com.acme..*.main(String[]))) {{
        long t = System.nanoTime();
        try {{
            return proceed();
        }} finally {{
            char c = '}}';
            record(\"calls{i}\", System.nanoTime() - t, c);
        }}
    }}

    after() throwing(RuntimeException e): exec{i}(*, *) && @annotation(Deprecated) {{
        System.err.println(\"\"\"
            failed: {{ %s }}
            \"\"\".formatted(e));
    }}

    private static void helper{i}(List<Map<String, int[]>> xs) {{
        for (Map<String, int[]> m : xs) {{ m.clear(); }}
    }}

"
        );
        i += 1;
    }
    s.push_str(
        "    private static void record(String k, long t, char c) { counts.get(k); }\n\n    \
         declare warning: call(* java.util.Vector.*(..)): \"Vector is slow\";\n}\n",
    );
    s
}

fn main() {
    let text = generate(2000);
    let lines = text.lines().count();
    let runs = 30;
    let mut best = Duration::MAX;
    let mut advice = 0;
    for _ in 0..runs {
        let src = SourceFile::new("Generated.aj", text.clone());
        let t = Instant::now();
        let program = compile(vec![src]).unwrap_or_else(|e| panic!("{}", e.render()));
        let took = t.elapsed();
        best = best.min(took);
        advice = program
            .aspects
            .iter()
            .map(|a| a.advice.len())
            .sum::<usize>();
    }
    let ms = best.as_secs_f64() * 1e3;
    println!(
        "parse+check {lines} lines ({} KiB, {advice} advice): best of {runs} = {ms:.2} ms; target 20 ms: {}",
        text.len() / 1024,
        if ms < 20.0 { "OK" } else { "MISSED" }
    );
}
