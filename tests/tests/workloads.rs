//! The real-program workloads (`tests/workloads`, `major_tests::workloads`):
//! javac, xalan, h2, hsqldb, lucene 4.10 and antlr4, each run unwoven on
//! JDK 17 and on JDK 25, twice and once more under `-Xverify:all`. The three
//! runs must succeed with the same digest of their results, and that digest
//! must equal the one recorded for the JDK in `tests/workloads/digests.toml`
//! (so a nondeterministic workload or a changed environment is caught).
//! `MAJOR_BLESS=1` records the digests instead of comparing them.

use std::ffi::OsString;
use std::path::Path;
use std::sync::Mutex;

use major_tests::workloads::{self, Digests, Outcome, Prepared, Workload};
use major_tests::{jdk17, jdk25, skip};
use rayon::prelude::*;

/// Serialises rewriting the digests file (the JDK tests run in parallel).
static DIGESTS_FILE: Mutex<()> = Mutex::new(());

fn bless() -> bool {
    std::env::var_os("MAJOR_BLESS").is_some_and(|v| v == "1")
}

/// Runs `w` in a fresh work directory `name` under the prepared directory,
/// asserting it succeeded.
fn run_ok(p: &Prepared, w: &Workload, java: &Path, opts: &[&str], name: &str) -> Outcome {
    let work = p.dir.join("runs").join(w.name).join(name);
    let opts: Vec<OsString> = opts.iter().map(OsString::from).collect();
    let o = p
        .run(w, java, &opts, None, &work)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        o.success(),
        "workload {} ({name}) on JDK {} failed: {}",
        w.name,
        p.feature,
        o.describe()
    );
    o
}

/// Prepares the workloads with the JDK at `home` and checks every one.
fn unwoven_runs_match_each_other_and_the_record(home: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let prepared = match workloads::prepare(home, dir.path()) {
        Ok(p) => p,
        Err(e) if e.starts_with("workload jars missing") => return skip(&e),
        Err(e) => panic!("{e}"),
    };
    let java = home.join("bin/java");
    let digests: Vec<(Workload, String)> = workloads::all()
        .par_iter()
        .map(|w| {
            let a = run_ok(&prepared, w, &java, &[], "first");
            let b = run_ok(&prepared, w, &java, &[], "second");
            let v = run_ok(&prepared, w, &java, &["-Xverify:all"], "verify-all");
            eprintln!(
                "JDK {} {}: {:.2} s, {:.2} s, -Xverify:all {:.2} s; {} files; {}",
                prepared.feature,
                w.name,
                a.elapsed.as_secs_f64(),
                b.elapsed.as_secs_f64(),
                v.elapsed.as_secs_f64(),
                a.files,
                a.stdout.trim_end().replace('\n', " | ")
            );
            assert_eq!(
                a.digest,
                b.digest,
                "workload {} gave different results in two runs on JDK {}:\n{}\n{}",
                w.name,
                prepared.feature,
                a.describe(),
                b.describe()
            );
            assert_eq!(
                a.digest,
                v.digest,
                "workload {} gave other results under -Xverify:all on JDK {}:\n{}\n{}",
                w.name,
                prepared.feature,
                a.describe(),
                v.describe()
            );
            (*w, a.digest)
        })
        .collect();
    let path = Digests::path();
    let _lock = DIGESTS_FILE.lock().unwrap_or_else(|e| e.into_inner());
    let mut recorded = Digests::load(&path).unwrap_or_else(|e| panic!("{e}"));
    if bless() {
        for (w, d) in &digests {
            recorded.set(prepared.feature, w.name, d);
        }
        recorded.save(&path).unwrap_or_else(|e| panic!("{e}"));
        eprintln!(
            "recorded JDK {} digests in {}",
            prepared.feature,
            path.display()
        );
        return;
    }
    let wrong: Vec<String> = digests
        .iter()
        .filter_map(|(w, d)| match recorded.get(prepared.feature, w.name) {
            Some(r) if r == d => None,
            Some(r) => Some(format!("{}: recorded {r}, now {d}", w.name)),
            None => Some(format!("{}: nothing recorded, now {d}", w.name)),
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "workload results on JDK {} differ from {} (if the change is intended, \
         rerun with MAJOR_BLESS=1):\n{}",
        prepared.feature,
        path.display(),
        wrong.join("\n")
    );
}

#[test]
fn workloads_on_jdk17_are_deterministic_and_as_recorded() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17 at /usr/lib/jvm/java-17-openjdk-amd64");
    };
    unwoven_runs_match_each_other_and_the_record(&home);
}

#[test]
fn workloads_on_jdk25_are_deterministic_and_as_recorded() {
    let Some(home) = jdk25() else {
        return skip("no JDK 25 at /usr/lib/jvm/temurin-25-jdk-amd64");
    };
    unwoven_runs_match_each_other_and_the_record(&home);
}
