//! What a resident weaver would save: `major weave`'s incremental update of a
//! jar, run again and again in one process, each run after an edit of the
//! input (`bench/README.md`, incremental weaving, session 27). No state is
//! kept between the runs but what the process itself keeps (its heap, its
//! thread pool, the files it mapped): a lower bound on what a weaver that
//! stays resident between builds saves, an upper bound on what it costs.
//!
//!     cargo run --release -p major-weaver --example resident_update -- \
//!         ASPECT.aj IN.jar OUT.jar CACHE_DIR RUNS A.jar B.jar
//!
//! Before each weave, A.jar and B.jar (two versions of the input, e.g. one
//! class changed) are copied over IN.jar in turn, in this process (a child
//! process would make the weave pay for the copy-on-write faults of its
//! fork); each run prints its wall time and its `--timings` laps. With
//! PAUSE_MS set, the process sleeps that long before each run, as a
//! resident weaver idles between builds (measured: 100 ms idle makes a
//! one-class update of guava's jar 2-3 ms slower, caches gone cold).
use major_weaver::weave_run::{self, JarOptions, WeaveOptions};
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [aspect, input, out, cache, runs, a, b] = &args[..] else {
        eprintln!("usage: resident_update ASPECT IN OUT CACHE_DIR RUNS A B");
        std::process::exit(2);
    };
    let Ok(runs) = runs.parse::<usize>() else {
        eprintln!("RUNS must be a number");
        std::process::exit(2);
    };
    let opts = WeaveOptions {
        aspects: vec![PathBuf::from(aspect)],
        inputs: vec![PathBuf::from(input)],
        output: PathBuf::from(out),
        classpath: vec![],
        jdk: major_weaver::jdk::Jdk::locate().unwrap_or_else(|e| panic!("{e}")),
        bundle_runtime: true,
        strict: false,
        full_coverage: false,
        bypass: Default::default(),
        modules: vec![],
        class_records: false,
        cache: Some(PathBuf::from(cache)),
        jars: JarOptions {
            runtime_jar: None,
            signed_jars: Default::default(),
        },
    };
    for run in 0..runs {
        let version = if run % 2 == 0 { a } else { b };
        std::fs::copy(version, input).unwrap_or_else(|e| panic!("{version}: {e}"));
        if let Some(ms) = std::env::var("PAUSE_MS").ok().and_then(|v| v.parse().ok()) {
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
        let t = Instant::now();
        let report = weave_run::run(&opts).unwrap_or_else(|e| panic!("{e}"));
        let laps: Vec<String> = report
            .timings
            .iter()
            .map(|(phase, d)| format!("{phase} {:.2}", d.as_secs_f64() * 1e3))
            .collect();
        println!(
            "run {run}: {:.2} ms ({}; ms: {})",
            t.elapsed().as_secs_f64() * 1e3,
            if report.incremental.is_some() {
                "update"
            } else {
                "full weave"
            },
            laps.join(", ")
        );
    }
}
