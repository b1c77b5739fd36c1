//! The real-program workloads (`tests/workloads`, `major_tests::workloads`):
//! javac, xalan, h2, hsqldb, lucene 4.10 and antlr4, each run unwoven on
//! JDK 17 and on JDK 25, twice: plainly and under `-Xverify:all`. Both runs
//! must succeed with the same digest of their results, and that digest
//! must equal the one recorded for the JDK in `tests/workloads/digests.toml`
//! (so a nondeterministic workload or a changed environment is caught).
//! `MAJOR_BLESS=1` records the digests instead of comparing them.
//!
//! Then woven: the whole JDK (every module, `major weave --jdk`) and the
//! workloads' jars woven with full coverage must give the recorded results
//! too, on JDK 17 and on JDK 25 (xalan, antlr4 and lucene with ObjectTracker
//! and `tests/workloads/aspects/WorkloadProfiler.aj` woven together; every
//! aspect and workload in the ignored `woven_workloads_report`).

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
            let a = run_ok(&prepared, w, &java, &[], "plain");
            let v = run_ok(&prepared, w, &java, &["-Xverify:all"], "verify-all");
            eprintln!(
                "JDK {} {}: {:.2} s, -Xverify:all {:.2} s; {} files; {}",
                prepared.feature,
                w.name,
                a.elapsed.as_secs_f64(),
                v.elapsed.as_secs_f64(),
                a.files,
                a.stdout.trim_end().replace('\n', " | ")
            );
            assert_eq!(
                a.digest,
                v.digest,
                "workload {} gave other results in a second run, under -Xverify:all, on JDK {}:\n{}\n{}",
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

// ---------------------------------------------------------------------------
// Woven runs: the whole JDK (every module, `major weave --jdk`) woven with
// full coverage together with every workload's jars (driver and libraries),
// in one weave per aspect set, run with the woven JDK's options
// (`WovenJdk::java_options`, what `major run` passes) and the woven jars on
// the class path.
// ---------------------------------------------------------------------------

mod woven {
    use std::ffi::OsString;
    use std::path::{Path, PathBuf};

    use major_tests::workloads::{self, Prepared, Workload};
    use major_weaver::jdk::Jdk;
    pub use major_weaver::weave::bypass::BypassForm;
    use major_weaver::weave_run::WeaveReport;
    use major_weaver::woven_jdk::{self, JdkWeaveOptions, WovenJdk};

    /// A JDK and every workload's jars woven with the aspects into `dir`.
    pub struct Woven {
        /// The woven JDK (patches, woven inputs, options).
        pub jdk: WovenJdk,
        /// What the weave did.
        pub report: WeaveReport,
    }

    /// Weaves the JDK at `home` (every module of its run-time image) and the
    /// class path of every workload with `aspects` into `dir`.
    pub fn weave(
        home: &Path,
        p: &Prepared,
        aspects: &[PathBuf],
        bypass: BypassForm,
        dir: &Path,
    ) -> Result<Woven, String> {
        let mut inputs: Vec<PathBuf> = Vec::new();
        for w in workloads::all() {
            for j in p.class_path(&w) {
                if !inputs.contains(&j) {
                    inputs.push(j);
                }
            }
        }
        let (report, jdk) = woven_jdk::weave(&JdkWeaveOptions {
            form: Default::default(),
            aspects: aspects.to_vec(),
            jdk: Jdk::at(home).ok_or_else(|| format!("no JDK at {}", home.display()))?,
            modules: Vec::new(),
            inputs,
            classpath: Vec::new(),
            output: dir.to_path_buf(),
            cache: None,
            strict: false,
            signed_jars: Default::default(),
            bypass,
        })
        .map_err(|e| format!("weaving the JDK and the workloads with {aspects:?}: {e}"))?;
        Ok(Woven { jdk, report })
    }

    impl Woven {
        /// The JVM options that run on the woven JDK (its patches).
        pub fn jvm_options(&self) -> Vec<OsString> {
            self.jdk
                .java_options(&[])
                .into_iter()
                .map(OsString::from)
                .collect()
        }

        /// The woven replacement of [`Prepared::class_path`] of `w`.
        pub fn class_path(&self, p: &Prepared, w: &Workload) -> Vec<PathBuf> {
            p.class_path(w)
                .iter()
                .map(|j| {
                    self.jdk
                        .woven_input(j)
                        .expect("every workload jar is woven")
                })
                .collect()
        }

        /// The `java` that runs the woven JDK.
        pub fn java(&self) -> PathBuf {
            self.jdk.java()
        }
    }
}

/// Weaves JDK 17 (or 25, if `MAJOR_WORKLOAD_JDK=25`) and every workload
/// with each aspect named in
/// `MAJOR_WORKLOAD_ASPECTS` (comma-separated paths relative to the
/// repository, each optionally followed by `:duplicate` or `:guards`, the
/// bypass form; default: ExecutionCounter, ObjectTracker and
/// tests/workloads/aspects/WorkloadProfiler.aj) and runs every workload
/// (or those in `MAJOR_WORKLOADS`) woven, printing which give the recorded
/// results. A report, not a check: `cargo test --release -p major-tests
/// --test workloads -- --ignored --nocapture`.
#[test]
#[ignore = "a report of woven runs, minutes long: run with --ignored"]
fn woven_workloads_report() {
    let jdk = std::env::var("MAJOR_WORKLOAD_JDK").unwrap_or_else(|_| "17".to_string());
    let Some(home) = (if jdk == "25" { jdk25() } else { jdk17() }) else {
        return skip(&format!("no JDK {jdk}"));
    };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let aspects = std::env::var("MAJOR_WORKLOAD_ASPECTS").unwrap_or_else(|_| {
        "aspects/ExecutionCounter.aj,aspects/ObjectTracker.aj,\
         tests/workloads/aspects/WorkloadProfiler.aj"
            .to_string()
    });
    let only = std::env::var("MAJOR_WORKLOADS").ok();
    let keep = std::env::var_os("MAJOR_WORKLOAD_KEEP").map(std::path::PathBuf::from);
    let tmp = tempfile::tempdir().unwrap();
    let base = keep.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    let prepared = match workloads::prepare(&home, &base.join("prepared")) {
        Ok(p) => p,
        Err(e) if e.starts_with("workload jars missing") => return skip(&e),
        Err(e) => panic!("{e}"),
    };
    let recorded = Digests::load(&Digests::path()).unwrap();
    let runs: usize = std::env::var("MAJOR_WORKLOAD_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(1);
    let chosen: Vec<Workload> = workloads::all()
        .into_iter()
        .filter(|w| {
            only.as_deref()
                .is_none_or(|o| o.split(',').any(|x| x == w.name))
        })
        .collect();
    // Every aspect woven first; then the runs interleaved (plain, then each
    // woven JDK, run after run), so that a change in the machine's load
    // touches the baseline and the woven runs alike. Best of
    // `MAJOR_WORKLOAD_RUNS` (default 1) each.
    let mut table = Vec::new();
    let mut configs: Vec<(String, woven::Woven)> = Vec::new();
    for entry in aspects.split(',') {
        // `path` or `path:duplicate` (the bypass form; default guards).
        let (aspect, bypass) = match entry.split_once(':') {
            Some((a, "duplicate")) => (a, woven::BypassForm::Duplicate),
            Some((a, "guards")) | Some((a, "")) => (a, woven::BypassForm::Guards),
            Some((_, f)) => panic!("{entry}: unknown bypass form {f} (guards, duplicate)"),
            None => (entry, woven::BypassForm::Guards),
        };
        let stem = Path::new(aspect)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let name = match bypass {
            woven::BypassForm::Duplicate => format!("{stem}-duplicate"),
            woven::BypassForm::Guards => stem,
        };
        let out = base.join(format!("woven-{name}"));
        let _ = std::fs::remove_dir_all(&out);
        let start = std::time::Instant::now();
        match woven::weave(&home, &prepared, &[repo.join(aspect)], bypass, &out) {
            Ok(w) => {
                eprintln!(
                    "{name}: woven {} of {} classes in {:.1} s; lib/modules {} bytes",
                    w.report.woven,
                    w.report.classes,
                    start.elapsed().as_secs_f64(),
                    std::fs::metadata(w.jdk.java_home.join("lib/modules")).map_or(0, |m| m.len())
                );
                configs.push((name, w));
            }
            Err(e) => table.push(format!("{name}: weave failed: {e}")),
        }
    }
    // Per configuration (plain first), per workload: the best run.
    let mut best: Vec<Vec<Option<Outcome>>> = vec![vec![None; chosen.len()]; configs.len() + 1];
    for (wi, w) in chosen.iter().enumerate() {
        for i in 0..runs {
            for c in 0..=configs.len() {
                let label = if c == 0 {
                    "plain"
                } else {
                    configs[c - 1].0.as_str()
                };
                let work = base
                    .join("runs")
                    .join(label)
                    .join(format!("{}-{i}", w.name));
                let _ = std::fs::remove_dir_all(&work);
                let o = if c == 0 {
                    prepared.run(w, &home.join("bin/java"), &[], None, &work)
                } else {
                    let woven = &configs[c - 1].1;
                    let cp = woven.class_path(&prepared, w);
                    prepared.run(w, &woven.java(), &woven.jvm_options(), Some(&cp), &work)
                }
                .unwrap_or_else(|e| panic!("{e}"));
                if c == 0 {
                    assert!(o.success(), "{}", o.describe());
                }
                let slot = &mut best[c][wi];
                if slot.as_ref().is_none_or(|b| o.elapsed < b.elapsed) {
                    *slot = Some(o);
                }
            }
        }
        let plain = best[0][wi].as_ref().expect("a plain run");
        eprintln!(
            "plain {}: {:.2} s, CPU {:.2} s",
            w.name,
            plain.elapsed.as_secs_f64(),
            plain.cpu.as_secs_f64()
        );
    }
    for (c, (name, _)) in configs.iter().enumerate() {
        let mut ratios = Vec::new();
        let mut cpu_ratios = Vec::new();
        for (wi, w) in chosen.iter().enumerate() {
            let plain = best[0][wi].as_ref().expect("a plain run");
            let o = best[c + 1][wi].as_ref().expect("a woven run");
            let ratio = o.elapsed.as_secs_f64() / plain.elapsed.as_secs_f64();
            ratios.push(ratio);
            let cpu_ratio = o.cpu.as_secs_f64() / plain.cpu.as_secs_f64();
            cpu_ratios.push(cpu_ratio);
            let verdict = if !o.success() {
                format!("FAILED\n{}", o.describe())
            } else if recorded.get(prepared.feature, w.name) == Some(o.digest.as_str()) {
                "identical".to_string()
            } else {
                format!("DIFFERENT results\n{}", o.describe())
            };
            let last = o
                .stderr
                .lines()
                .rev()
                .find(|l| l.contains(':'))
                .unwrap_or("");
            table.push(format!(
                "{name} {}: {:.2} s ({ratio:.2}x), CPU {:.2} s ({cpu_ratio:.2}x), {verdict} [{last}]",
                w.name,
                o.elapsed.as_secs_f64(),
                o.cpu.as_secs_f64()
            ));
        }
        let geomean =
            |r: &[f64]| (r.iter().map(|r| r.ln()).sum::<f64>() / r.len().max(1) as f64).exp();
        table.push(format!(
            "{name}: geometric mean {:.2}x the unwoven run time, {:.2}x its CPU time",
            geomean(&ratios),
            geomean(&cpu_ratios)
        ));
    }
    eprintln!("\n{}", table.join("\n"));
}

/// The number in `text` right after the first `<prefix>` (e.g. the count in
/// `ObjectTracker: 1234 allocations`).
fn count_after(text: &str, prefix: &str) -> Option<u64> {
    let at = text.find(prefix)? + prefix.len();
    text[at..].split_whitespace().next()?.parse().ok()
}

/// The whole JDK and the workloads' jars woven with full coverage with
/// ObjectTracker and WorkloadProfiler together (cflow, around with proceed,
/// thisJoinPoint): xalan, antlr4 and lucene give their recorded results, and
/// both aspects' advice ran. (ExecutionCounter, and the slower workloads, are
/// in [`woven_workloads_report`]: minutes, too slow here.)
#[test]
fn woven_jdk17_xalan_antlr4_lucene_give_the_recorded_results() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    woven_workloads_give_the_recorded_results(&home, 17);
}

/// The same on JDK 25.
#[test]
fn woven_jdk25_xalan_antlr4_lucene_give_the_recorded_results() {
    let Some(home) = jdk25() else {
        return skip("no JDK 25 (/usr/lib/jvm/temurin-25-jdk-amd64)");
    };
    woven_workloads_give_the_recorded_results(&home, 25);
}

fn woven_workloads_give_the_recorded_results(home: &Path, feature: u32) {
    let tmp = tempfile::tempdir().unwrap();
    let prepared = match workloads::prepare(home, &tmp.path().join("prepared")) {
        Ok(p) => p,
        Err(e) if e.starts_with("workload jars missing") => return skip(&e),
        Err(e) => panic!("{e}"),
    };
    let recorded = Digests::load(&Digests::path()).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let aspects = [
        repo.join("aspects/ObjectTracker.aj"),
        repo.join("tests/workloads/aspects/WorkloadProfiler.aj"),
    ];
    let woven = woven::weave(
        home,
        &prepared,
        &aspects,
        woven::BypassForm::Guards,
        &tmp.path().join("woven"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let chosen: Vec<Workload> = ["xalan", "antlr4", "lucene"]
        .iter()
        .map(|n| workloads::by_name(n).unwrap())
        .collect();
    chosen.par_iter().for_each(|w| {
        let work = tmp.path().join("runs").join(w.name);
        let cp = woven.class_path(&prepared, w);
        let o = prepared
            .run(w, &woven.java(), &woven.jvm_options(), Some(&cp), &work)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(o.success(), "{} woven: {}", w.name, o.describe());
        assert_eq!(
            Some(o.digest.as_str()),
            recorded.get(feature, w.name),
            "{} woven (JDK {feature}) gave other results than unwoven: {}",
            w.name,
            o.describe()
        );
        for report in ["ObjectTracker: ", "WorkloadProfiler: "] {
            assert!(
                count_after(&o.stderr, report).is_some_and(|n| n > 0),
                "{} woven: no `{report}N` report with N > 0: {}",
                w.name,
                o.describe()
            );
        }
        let reports: Vec<&str> = o
            .stderr
            .lines()
            .filter(|l| l.starts_with("ObjectTracker: ") || l.starts_with("WorkloadProfiler: "))
            .collect();
        eprintln!(
            "JDK {feature}: {} woven: {:.1} s, as recorded; {}",
            w.name,
            o.elapsed.as_secs_f64(),
            reports.join("; ")
        );
    });
}
