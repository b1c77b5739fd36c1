//! The six real-program workloads (`tests/workloads`: javac, xalan, h2,
//! hsqldb, lucene 4.10, antlr4) under the single-phase agent, on JDK 17 and
//! JDK 25, every class woven as the JVM loads it:
//!
//! * with ObjectTracker and `WorkloadProfiler.aj` together (`thisJoinPoint`,
//!   `around` with `proceed`, `cflow`), and with ExecutionCounter, each
//!   workload gives the results recorded from its unwoven runs
//!   (`tests/workloads/digests.toml`), every aspect reports a count N > 0,
//!   and no class fails to weave;
//! * every class the agent wove for a workload is byte for byte the class
//!   the two-phase mode (`major weave --jdk`, image form, the JDK and every
//!   workload's jars) wrote for it, every class it left alone was left alone
//!   there, and the classes added to `java.base` are the same.
//!
//! ExecutionCounter runs apart: woven together with ObjectTracker (in either
//! mode) the VM does not start (see the lead's report). The runs of one
//! aspect set share one aspect cache and so one cache of woven classes;
//! each workload's class path is part of the cache's key, so the JDK's
//! classes are woven once per workload (about a second of a run of 5–30 s).

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use common::{agreement, repo, summary, ClassSource};
use major_tests::workloads::{self, Digests, Outcome, Prepared, Workload};
use major_tests::{jdk17, jdk25, skip};
use major_weaver::jdk::Jdk;
use rayon::prelude::*;

/// Aspects run together under the agent, and the reports they print.
struct AspectSet {
    /// A short name, for the cache and work directories.
    name: &'static str,
    /// The aspect files, relative to the repository.
    aspects: &'static [&'static str],
    /// The prefix of each aspect's report line (`ObjectTracker: N ...`).
    reports: &'static [&'static str],
}

/// The aspect sets; the first one's woven classes are held against the
/// two-phase mode's.
const SETS: &[AspectSet] = &[
    AspectSet {
        name: "tracker-profiler",
        aspects: &[
            "aspects/ObjectTracker.aj",
            "tests/workloads/aspects/WorkloadProfiler.aj",
        ],
        reports: &["ObjectTracker: ", "WorkloadProfiler: "],
    },
    AspectSet {
        name: "counter",
        aspects: &["aspects/ExecutionCounter.aj"],
        reports: &["ExecutionCounter: "],
    },
];

/// The number right after the first `prefix` in `text`.
fn count_after(text: &str, prefix: &str) -> Option<u64> {
    let at = text.find(prefix)? + prefix.len();
    text[at..].split_whitespace().next()?.parse().ok()
}

/// Runs `w` under the agent with the aspects of `set` (aspect cache
/// `cache`, the woven classes dumped into `dump` if given) in the work
/// directory `work`.
fn run_under_agent(
    p: &Prepared,
    w: &Workload,
    set: &AspectSet,
    cache: &Path,
    dump: Option<&Path>,
    work: &Path,
) -> Outcome {
    let aspects: Vec<PathBuf> = set.aspects.iter().map(|a| repo().join(a)).collect();
    let cp = std::env::join_paths(p.class_path(w)).unwrap();
    let extra: Vec<String> = dump
        .map(|d| format!("dump={}", d.display()))
        .into_iter()
        .collect();
    // The agent's options, made as `major run` makes them (which compiles
    // the aspects against the workload's class path).
    let agent = common::agent_jvm_options(
        &p.jdk_home,
        &aspects,
        cache,
        &extra,
        &[OsString::from("-cp"), cp],
    );
    p.run(w, &p.jdk_home.join("bin/java"), &agent, None, work)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// What is wrong with an agent run of `w` with `set` (nothing: empty).
fn check_run(
    p: &Prepared,
    w: &Workload,
    set: &AspectSet,
    o: &Outcome,
    recorded: &Digests,
) -> Vec<String> {
    let what = format!("{} with {} on JDK {}", w.name, set.name, p.feature);
    if !o.success() {
        return vec![format!("{what} failed: {}", o.describe())];
    }
    let mut wrong = Vec::new();
    if recorded.get(p.feature, w.name) != Some(o.digest.as_str()) {
        wrong.push(format!(
            "{what} gave other results than unwoven (recorded {:?}): {}",
            recorded.get(p.feature, w.name),
            o.describe()
        ));
    }
    for report in set.reports {
        if !count_after(&o.stderr, report).is_some_and(|n| n > 0) {
            wrong.push(format!(
                "{what}: no `{report}N` report with N > 0: {}",
                o.describe()
            ));
        }
    }
    let (seen, woven, failed) = summary(&o.stderr);
    if failed > 0 || woven < 500 || seen < woven {
        wrong.push(format!(
            "{what}: {seen} classes seen, {woven} woven, {failed} failed: {}",
            o.describe()
        ));
    }
    if o.stderr.contains("the hook never saw (") {
        wrong.push(format!(
            "{what}: classes other than hidden ones never seen: {}",
            o.describe()
        ));
    }
    wrong
}

/// Every workload under the agent with every aspect set on the JDK at
/// `home`, then the first set's woven classes against the two-phase mode's.
fn workloads_under_the_agent(home: &Path) {
    let tmp = tempfile::tempdir().unwrap();
    let prepared = match workloads::prepare(home, &tmp.path().join("prepared")) {
        Ok(p) => p,
        Err(e) if e.starts_with("workload jars missing") => return skip(&e),
        Err(e) => panic!("{e}"),
    };
    let recorded = Digests::load(&Digests::path()).unwrap_or_else(|e| panic!("{e}"));
    let runs: Vec<(usize, Workload)> = (0..SETS.len())
        .flat_map(|s| workloads::all().into_iter().map(move |w| (s, w)))
        .collect();
    let dump = |w: &Workload| tmp.path().join("dump").join(w.name);
    let outcomes: Vec<(usize, Workload, Outcome)> = runs
        .par_iter()
        .map(|&(s, w)| {
            let set = &SETS[s];
            let o = run_under_agent(
                &prepared,
                &w,
                set,
                &tmp.path().join(format!("cache-{}", set.name)),
                (s == 0).then(|| dump(&w)).as_deref(),
                &tmp.path().join("runs").join(set.name).join(w.name),
            );
            (s, w, o)
        })
        .collect();
    let mut wrong = Vec::new();
    for (s, w, o) in &outcomes {
        let set = &SETS[*s];
        let problems = check_run(&prepared, w, set, o, &recorded);
        let reports: Vec<&str> = o
            .stderr
            .lines()
            .filter(|l| set.reports.iter().any(|r| l.starts_with(r)))
            .collect();
        let classes = o
            .stderr
            .lines()
            .find(|l| l.contains(" classes seen, "))
            .unwrap_or("");
        eprintln!(
            "JDK {} {} with {}: {:.1} s, {}; {}; {classes}",
            prepared.feature,
            w.name,
            set.name,
            o.elapsed.as_secs_f64(),
            if problems.is_empty() {
                "as recorded"
            } else {
                "WRONG"
            },
            reports.join("; ")
        );
        wrong.extend(problems);
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));

    // The two-phase mode with the first set: the whole JDK and every
    // workload's jars, woven into an image.
    let set = &SETS[0];
    let woven_dir = tmp.path().join("two-phase");
    let mut inputs: Vec<PathBuf> = Vec::new();
    for w in workloads::all() {
        for j in prepared.class_path(&w) {
            if !inputs.contains(&j) {
                inputs.push(j);
            }
        }
    }
    let start = std::time::Instant::now();
    let (report, woven) =
        major_weaver::woven_jdk::weave(&major_weaver::woven_jdk::JdkWeaveOptions {
            form: major_weaver::woven_jdk::JdkForm::Image,
            aspects: set.aspects.iter().map(|a| repo().join(a)).collect(),
            jdk: Jdk::at(home).unwrap(),
            modules: Vec::new(),
            inputs,
            classpath: Vec::new(),
            output: woven_dir.clone(),
            cache: Some(tmp.path().join(format!("cache-{}", set.name))),
            strict: false,
            signed_jars: Default::default(),
            bypass: Default::default(),
        })
        .unwrap_or_else(|e| panic!("major weave --jdk with {}: {e}", set.name));
    eprintln!(
        "JDK {}: two-phase weave of the JDK and the workloads with {}: {} of {} classes woven in {:.1} s",
        prepared.feature,
        set.name,
        report.woven,
        report.classes,
        start.elapsed().as_secs_f64()
    );
    let woven_modules = woven_dir.join("lib/modules");
    let added = ClassSource::new(&[], Some(&woven_modules));
    let mut differ = Vec::new();
    for w in workloads::all() {
        let cp = prepared.class_path(&w);
        let woven_cp: Vec<PathBuf> = cp
            .iter()
            .map(|j| woven.woven_input(j).expect("every workload jar is woven"))
            .collect();
        let a = agreement(
            &dump(&w),
            &ClassSource::new(&woven_cp, Some(&woven_modules)),
            &ClassSource::new(&cp, Some(&home.join("lib/modules"))),
            &added,
        );
        eprintln!(
            "JDK {} {}: {} classes woven identically by both modes, {} left alone by both, \
             {} added classes identical, {} defined at run time (not compared), {} differences",
            prepared.feature,
            w.name,
            a.same_woven,
            a.same_plain,
            a.added,
            a.run_time,
            a.differ.len()
        );
        if a.same_woven < 500 || a.added < 10 {
            differ.push(format!(
                "{}: only {} classes woven identically, {} added",
                w.name, a.same_woven, a.added
            ));
        }
        differ.extend(a.differ.iter().take(50).map(|d| format!("{}: {d}", w.name)));
    }
    assert!(
        differ.is_empty(),
        "the agent and the two-phase mode differ on JDK {}:\n{}",
        prepared.feature,
        differ.join("\n")
    );
}

#[test]
fn workloads_under_the_agent_on_jdk17_as_recorded_and_as_two_phase() {
    let Some(home) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    workloads_under_the_agent(&home);
}

#[test]
fn workloads_under_the_agent_on_jdk25_as_recorded_and_as_two_phase() {
    let Some(home) = jdk25() else {
        return skip("JDK 25 is not installed");
    };
    workloads_under_the_agent(&home);
}
