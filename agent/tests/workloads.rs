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

use std::collections::BTreeMap;
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
        if count_after(&o.stderr, report).is_none_or(|n| n == 0) {
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

/// Writes every file entry of the jar `jar` under `dir`.
fn unpack(jar: &Path, dir: &Path) {
    let a = major_archive::Archive::open(jar).unwrap_or_else(|e| panic!("{}: {e}", jar.display()));
    for (i, e) in a.entries().iter().enumerate() {
        if e.name.ends_with('/') {
            continue;
        }
        let to = dir.join(&e.name);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(&to, a.read(i).unwrap()).unwrap();
    }
}

/// `count signature` lines of `MethodTotals.aj` into a map.
fn totals(file: &Path) -> BTreeMap<String, u64> {
    std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .lines()
        .map(|l| {
            let (n, k) = l.split_once(' ').expect("count and signature");
            (k.to_string(), n.parse().expect("count"))
        })
        .collect()
}

/// The class of a `MethodTotals` signature (`... java.util.HashMap.get(..)`
/// → `java.util.HashMap`).
fn class_of(signature: &str) -> &str {
    let before_args = signature.split('(').next().unwrap_or(signature);
    let name = before_args.rsplit(' ').next().unwrap_or(before_args);
    name.rsplit_once('.').map_or(name, |(c, _)| c)
}

/// The counters of the two modes, per method: xalan run on JDK 17 woven
/// two-phase (image) and under the agent with `MethodTotals.aj` (every
/// execution on the main thread until the shutdown starts, by method). The
/// class path is the workload's jars unpacked into directories at paths of
/// the same length in both modes (the woven jars store their classes where
/// the originals deflate them: reading them runs other zip code), and the
/// woven JDK runs with `-Xshare:off`, as the agent's JVM does. Named
/// categories, each printed with its size:
///
/// * the shutdown, other threads (counted apart by the aspect: the report
///   races the shutdown, which is why a hello world's total varied);
/// * the extra classes of static parts (`C$MajorStatics`, class files
///   before Java 7): the two-phase mode loads them through the application
///   class loader, running its Java code, the agent defines them from the
///   hook (counted apart by the aspect);
/// * methods of classes whose counts differ between two identical agent
///   runs (identity hash codes decide hash-table layouts, HotSpot orders
///   reflected methods by the address of their names).
///
/// Every other method must count the same in both modes, but for a residue
/// no category explains yet, printed and bounded (at most 100 methods and
/// 0.01% of the executions).
#[test]
fn counters_agree_between_modes_on_xalan_jdk17() {
    let Some(home) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    let tmp = tempfile::tempdir().unwrap();
    let prepared = match workloads::prepare(&home, &tmp.path().join("prepared")) {
        Ok(p) => p,
        Err(e) if e.starts_with("workload jars missing") => return skip(&e),
        Err(e) => panic!("{e}"),
    };
    let w = workloads::by_name("xalan").unwrap();
    // The woven JDK at a path as long as the JDK's (java.home), the plain
    // class directories at a path as long as the woven ones.
    let pad = home
        .as_os_str()
        .len()
        .saturating_sub(tmp.path().as_os_str().len() + 1)
        .max(1);
    let woven_dir = tmp.path().join("w".repeat(pad));
    let plain_dir = tmp.path().join("p".repeat(pad)).join("app");
    let plain_cp: Vec<PathBuf> = prepared
        .class_path(&w)
        .iter()
        .map(|jar| {
            let d = plain_dir.join(jar.file_stem().unwrap());
            unpack(jar, &d);
            d
        })
        .collect();
    let aspect = common::here().join("aspects/counting/MethodTotals.aj");
    let (_, woven) = major_weaver::woven_jdk::weave(&major_weaver::woven_jdk::JdkWeaveOptions {
        form: major_weaver::woven_jdk::JdkForm::Image,
        aspects: vec![aspect.clone()],
        jdk: Jdk::at(&home).unwrap(),
        modules: Vec::new(),
        inputs: plain_cp.clone(),
        classpath: Vec::new(),
        output: woven_dir.clone(),
        cache: Some(tmp.path().join("cache")),
        strict: false,
        signed_jars: Default::default(),
        bypass: Default::default(),
    })
    .unwrap_or_else(|e| panic!("major weave --jdk with MethodTotals: {e}"));
    let woven_cp: Vec<PathBuf> = plain_cp
        .iter()
        .map(|d| woven.woven_input(d).expect("every directory is woven"))
        .collect();
    let cp = std::env::join_paths(&plain_cp).unwrap();
    let agent = common::agent_jvm_options(
        &home,
        std::slice::from_ref(&aspect),
        &tmp.path().join("cache"),
        &[],
        &[OsString::from("-cp"), cp],
    );
    let runs = ["t1", "a1", "a2"];
    let outcomes: Vec<(BTreeMap<String, u64>, Outcome)> = runs
        .par_iter()
        .map(|run| {
            let out = tmp.path().join(format!("{run}.txt"));
            let mut opts = vec![OsString::from(format!("-Dtotals.out={}", out.display()))];
            let work = tmp.path().join("runs").join(run);
            let o = if run.starts_with('t') {
                opts.push("-Xshare:off".into());
                opts.extend(woven.java_options(&[]).into_iter().map(OsString::from));
                prepared.run(&w, &woven.java(), &opts, Some(&woven_cp), &work)
            } else {
                opts.extend(agent.iter().cloned());
                prepared.run(&w, &home.join("bin/java"), &opts, Some(&plain_cp), &work)
            }
            .unwrap_or_else(|e| panic!("{e}"));
            assert!(o.success(), "xalan ({run}): {}", o.describe());
            (totals(&out), o)
        })
        .collect();
    let report = |o: &Outcome| -> String {
        o.stderr
            .lines()
            .find(|l| l.starts_with("MethodTotals: "))
            .unwrap_or_else(|| panic!("no MethodTotals report: {}", o.describe()))
            .to_string()
    };
    let static_parts = |o: &Outcome| count_after(&report(o), " in the shutdown, ").unwrap();
    for (run, (_, o)) in runs.iter().zip(&outcomes) {
        eprintln!("xalan, JDK 17, {run}: {}", report(o));
    }
    let (two, a1, a2) = (&outcomes[0].0, &outcomes[1].0, &outcomes[2].0);
    let noisy: std::collections::BTreeSet<&str> = a1
        .keys()
        .chain(a2.keys())
        .filter(|k| a1.get(*k) != a2.get(*k))
        .map(|k| class_of(k))
        .collect();
    let (mut equal, mut varying, mut varying_executions) = (0, 0, 0u64);
    let mut unexplained = Vec::new();
    let keys: std::collections::BTreeSet<&String> = two.keys().chain(a1.keys()).collect();
    for k in keys {
        let (t, a) = (
            two.get(k).copied().unwrap_or(0),
            a1.get(k).copied().unwrap_or(0),
        );
        if t == a {
            equal += 1;
        } else if noisy.contains(class_of(k)) {
            varying += 1;
            varying_executions += t.abs_diff(a);
        } else {
            unexplained.push(format!("{k}: two-phase {t}, agent {a}"));
        }
    }
    eprintln!(
        "xalan, JDK 17: {equal} methods counted the same by both modes; apart: \
         {} and {} executions for the extra classes of static parts (two-phase, agent); \
         {varying} methods ({varying_executions} executions) of {} classes whose counts vary \
         between identical runs; {} other differences",
        static_parts(&outcomes[0].1),
        static_parts(&outcomes[1].1),
        noisy.len(),
        unexplained.len()
    );
    // What no category explains: measured and bounded (on this machine 28
    // methods, under 1,000 of 117 M executions: class-file reads, MethodType
    // interning, array growth), never silent.
    let residue: u64 = unexplained
        .iter()
        .filter_map(|l| {
            let (t, a) = l.rsplit_once(", agent ")?;
            Some(
                t.rsplit_once("two-phase ")?
                    .1
                    .parse::<u64>()
                    .ok()?
                    .abs_diff(a.parse().ok()?),
            )
        })
        .sum();
    let total: u64 = two.values().sum();
    eprintln!(
        "xalan, JDK 17: {} methods ({residue} executions of {total}) differ in no category:\n  {}",
        unexplained.len(),
        unexplained.join("\n  ")
    );
    assert!(
        unexplained.len() <= 100 && residue * 10_000 <= total,
        "{} methods ({residue} executions of {total}) count differently in the two modes:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
    assert!(equal > 3000, "only {equal} methods compared");
    assert!(static_parts(&outcomes[0].1) > 0);
}
