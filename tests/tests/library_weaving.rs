//! Real libraries woven by major, judged by HotSpot and by ajc.
//!
//! * `woven_libraries_link_under_verifier`: guava and commons-lang3, each woven
//!   with `aspects/ObjectTracker.aj`, `aspects/ExecutionCounter.aj` and the
//!   diagnostic `tests/java/guava-diff/SignatureCounter.aj`; every
//!   class of every output is loaded and linked under `java -Xverify:all` by the
//!   LinkAll harness. No VerifyError, no ClassFormatError, and no class may
//!   fail to link that does not also fail in the unwoven jar (optional
//!   dependencies that are not installed).
//! * `guava_program_same_under_major_and_ajc`: `tests/java/guava-diff/GuavaDiff.java`,
//!   a deterministic program using guava, runs against guava woven by major and
//!   by ajc 1.9.5 with ObjectTracker, ExecutionCounter and the diagnostic
//!   `tests/java/guava-diff/SignatureCounter.aj` (the same join points, counted
//!   per join point). Its stdout must equal the unwoven program's, and the
//!   advice counts (allocations, executions, and the per-join-point counts) must
//!   be the same for both weavers. Without ajc, the major half still runs and
//!   the ajc half prints `SKIP:` with the reason.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use major_tests::conformance::{ajc_available, ajc_command, run_java, ASPECTJRT};
use major_tests::{jdk17, linkall, run_linkall_verbose, skip, LinkResult};
use major_weaver::jdk::Jdk;
use major_weaver::weave_run::{run, WeaveOptions, WeaveReport};
use rayon::prelude::*;

/// The aspects every library is woven with: the real ObjectTracker and
/// ExecutionCounter (`aspects/<name>.aj`), and the diagnostic SignatureCounter,
/// which advises the same join points through `thisJoinPointStaticPart` (static
/// parts as constant `invokedynamic` sites: these libraries are Java 8 class
/// files).
const ASPECTS: [&str; 3] = ["ObjectTracker", "ExecutionCounter", "SignatureCounter"];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn guava_diff_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("java/guava-diff")
}

/// The aspect file for a name: `aspects/<name>.aj`, or the diagnostic aspect.
fn aspect_file(name: &str) -> PathBuf {
    if name == "SignatureCounter" {
        guava_diff_dir().join("SignatureCounter.aj")
    } else {
        repo_root().join("aspects").join(format!("{name}.aj"))
    }
}

/// `/usr/share/java/<name>.jar`, if installed.
fn library(name: &str) -> Option<PathBuf> {
    let p = PathBuf::from(format!("/usr/share/java/{name}.jar"));
    std::fs::canonicalize(p).ok().filter(|p| p.is_file())
}

/// Weaves `jar` with one aspect by major (in process) into `out`.
fn major_weave(jdk: &Jdk, jar: &Path, aspect: &str, out: &Path) -> Result<WeaveReport, String> {
    let opts = WeaveOptions {
        aspects: vec![aspect_file(aspect)],
        inputs: vec![jar.to_path_buf()],
        output: out.to_path_buf(),
        classpath: Vec::new(),
        jdk: jdk.clone(),
        bundle_runtime: true,
        strict: false,
        full_coverage: false,
        bypass: Default::default(),
        cache: None,
        jars: Default::default(),
        modules: Vec::new(),
        class_records: true,
    };
    let report = run(&opts).map_err(|e| format!("major weave failed: {e}"))?;
    if !report.unsupported.is_empty() {
        return Err(format!(
            "major did not weave some advice: {:?}",
            report.unsupported
        ));
    }
    if report.woven == 0 {
        return Err(format!("major wove none of {} classes", report.classes));
    }
    Ok(report)
}

fn report_line(r: &WeaveReport) -> String {
    let kinds: Vec<String> = r.advised.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let mut s = format!(
        "woven {} of {} classes; advised {}",
        r.woven,
        r.classes,
        kinds.join(", ")
    );
    if !r.skipped_methods.is_empty() {
        s.push_str(&format!(
            "; {} methods left unwoven: {}",
            r.skipped_methods.len(),
            r.skipped_methods.join("; ")
        ));
    }
    s
}

/// Weaves `jar` with one aspect by ajc 1.9.5 into `out`; `work` is its working
/// directory (ajc drops `ajcore.*.txt` dumps there).
fn ajc_weave(jar: &Path, aspect: &str, out: &Path, work: &Path) -> Result<(), String> {
    let o = ajc_command()
        .current_dir(work)
        .args(["-8", "-Xlint:ignore", "-nowarn", "-inpath"])
        .arg(jar)
        .args(["-cp", ASPECTJRT, "-outjar"])
        .arg(out)
        .arg(aspect_file(aspect))
        .output()
        .map_err(|e| format!("running ajc: {e}"))?;
    if o.status.success() && out.is_file() {
        Ok(())
    } else {
        Err(format!(
            "ajc failed ({}):\n{}{}",
            o.status,
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ))
    }
}

// ---------------------------------------------------------------------------
// a. Every woven class links under -Xverify:all.

fn link_line(r: &LinkResult) -> String {
    format!(
        "linked {}, verify errors {}, format errors {}, other errors {}",
        r.linked, r.verify_errors, r.format_errors, r.other_errors
    )
}

/// A weave's report and what LinkAll made of its output.
type WovenAndLinked = Result<(WeaveReport, LinkResult), String>;

#[test]
fn woven_libraries_link_under_verifier() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    let jdk = Jdk::at(&home).expect("JDK 17");
    let java = home.join("bin/java");
    let harness = linkall(&home);
    let mut libs = Vec::new();
    for (name, package) in [
        ("guava", "libguava-java"),
        ("commons-lang3", "libcommons-lang3-java"),
    ] {
        match library(name) {
            Some(p) => libs.push((name, p)),
            None => skip(&format!(
                "{name}: /usr/share/java/{name}.jar not installed (Debian package {package})"
            )),
        }
    }
    if libs.is_empty() {
        return skip("neither guava nor commons-lang3 is installed");
    }
    let tmp = tempfile::tempdir().unwrap();

    // The unwoven jars, for the failures that have nothing to do with weaving.
    let unwoven: BTreeMap<&str, LinkResult> = libs
        .par_iter()
        .map(|(name, jar)| {
            let r = run_linkall_verbose(&java, &harness, &[], &[jar.as_path()], "jar");
            (*name, r)
        })
        .collect();

    let jobs: Vec<(&str, &Path, &str)> = libs
        .iter()
        .flat_map(|(n, j)| ASPECTS.iter().map(move |a| (*n, j.as_path(), *a)))
        .collect();
    let results: Vec<(String, WovenAndLinked)> = jobs
        .par_iter()
        .map(|&(name, jar, aspect)| {
            let label = format!("{name} + {aspect}");
            let out = tmp.path().join(format!("{name}-{aspect}.jar"));
            let r = major_weave(&jdk, jar, aspect, &out).map(|report| {
                let link = run_linkall_verbose(&java, &harness, &[], &[out.as_path()], "jar");
                (report, link)
            });
            (label, r)
        })
        .collect();

    let mut problems = Vec::new();
    for (name, r) in &unwoven {
        eprintln!("{name} (unwoven): {}", link_line(r));
        for line in r.failures().values() {
            eprintln!("    {line}");
        }
        if r.verify_errors + r.format_errors > 0 {
            problems.push(format!(
                "{name}: the UNWOVEN jar fails to verify:\n{}",
                r.output
            ));
        }
    }
    for ((name, _, _), (label, r)) in jobs.iter().zip(&results) {
        let (report, link) = match r {
            Ok(x) => x,
            Err(e) => {
                problems.push(format!("{label}: {e}"));
                continue;
            }
        };
        let base = &unwoven[name];
        eprintln!("{label}: {}; {}", report_line(report), link_line(link));
        let base_failures = base.failures();
        let new_failures: Vec<String> = link
            .failures()
            .into_iter()
            .filter(|(class, _)| !base_failures.contains_key(class))
            .map(|(_, line)| line)
            .collect();
        if link.verify_errors > 0 || link.format_errors > 0 || !new_failures.is_empty() {
            problems.push(format!(
                "{label}: {}; classes that fail only when woven:\n  {}",
                link_line(link),
                new_failures.join("\n  ")
            ));
        }
        // The woven jar holds every class of the input plus the aspect and the
        // runtime classes.
        if link.linked <= base.linked {
            problems.push(format!(
                "{label}: only {} classes linked, the unwoven jar links {}",
                link.linked, base.linked
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

// ---------------------------------------------------------------------------
// b. The guava program, woven by major and by ajc.

/// What one run of the woven program gave.
struct ProgramRun {
    stdout: String,
    /// ObjectTracker's allocations, ExecutionCounter's executions, or the sum
    /// of SignatureCounter's counts.
    count: u64,
    /// SignatureCounter's count per join point (empty for the other aspects).
    per_join_point: BTreeMap<String, u64>,
}

/// Reads what an aspect printed to stderr at shutdown.
fn parse_counts(aspect: &str, stderr: &str) -> Result<(u64, BTreeMap<String, u64>), String> {
    let number_after = |prefix: &str| {
        stderr.lines().find_map(|l| {
            l.strip_prefix(prefix)?
                .split_whitespace()
                .next()?
                .parse::<u64>()
                .ok()
        })
    };
    match aspect {
        "ObjectTracker" => number_after("ObjectTracker: ").map(|n| (n, BTreeMap::new())),
        "ExecutionCounter" => number_after("ExecutionCounter: ").map(|n| (n, BTreeMap::new())),
        _ => {
            let mut map = BTreeMap::new();
            for l in stderr.lines() {
                if let Some((n, jp)) = l.strip_prefix("SIG ").and_then(|r| r.split_once(' ')) {
                    if let Ok(n) = n.parse::<u64>() {
                        *map.entry(jp.to_string()).or_insert(0) += n;
                    }
                }
            }
            (!map.is_empty()).then(|| (map.values().sum(), map))
        }
    }
    .ok_or_else(|| {
        format!(
            "no {aspect} report on stderr:\n{}",
            stderr.lines().take(30).collect::<Vec<_>>().join("\n")
        )
    })
}

/// Runs GuavaDiff with `classpath`; the program must succeed.
fn run_program(classpath: &[&Path], aspect: &str) -> Result<ProgramRun, String> {
    let (stdout, stderr, status) = run_java(classpath, "GuavaDiff");
    if !status.success() {
        return Err(format!(
            "GuavaDiff exited with {status}; stderr:\n{}",
            stderr.lines().take(30).collect::<Vec<_>>().join("\n")
        ));
    }
    let (count, per_join_point) = parse_counts(aspect, &stderr)?;
    Ok(ProgramRun {
        stdout,
        count,
        per_join_point,
    })
}

/// Join points whose counts differ, largest difference first.
fn count_differences(major: &BTreeMap<String, u64>, ajc: &BTreeMap<String, u64>) -> Vec<String> {
    let mut diffs: Vec<(u64, String)> = major
        .keys()
        .chain(ajc.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter_map(|jp| {
            let (m, a) = (
                major.get(jp).copied().unwrap_or(0),
                ajc.get(jp).copied().unwrap_or(0),
            );
            (m != a).then(|| (m.abs_diff(a), format!("major {m:>7}  ajc {a:>7}  {jp}")))
        })
        .collect();
    diffs.sort_by(|x, y| y.0.cmp(&x.0).then_with(|| x.1.cmp(&y.1)));
    diffs.into_iter().map(|(_, s)| s).collect()
}

fn first_line_difference(expected: &str, actual: &str) -> String {
    major_tests::conformance::first_difference(expected, actual)
}

#[test]
fn guava_program_same_under_major_and_ajc() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    let Some(guava) = library("guava") else {
        return skip("/usr/share/java/guava.jar not installed (Debian package libguava-java)");
    };
    let jdk = Jdk::at(&home).expect("JDK 17");
    let tmp = tempfile::tempdir().unwrap();

    // The program, compiled against guava for Java 8 (ajc 1.9.5 reads up to 13).
    let prog = tmp.path().join("prog");
    std::fs::create_dir_all(&prog).unwrap();
    let out = Command::new(home.join("bin/javac"))
        .args(["--release", "8", "-g", "-nowarn", "-encoding", "UTF-8"])
        .arg("-cp")
        .arg(&guava)
        .arg("-d")
        .arg(&prog)
        .arg(guava_diff_dir().join("GuavaDiff.java"))
        .output()
        .expect("run javac");
    assert!(
        out.status.success(),
        "javac GuavaDiff.java failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let (plain, stderr, status) = run_java(&[&prog, &guava], "GuavaDiff");
    assert!(status.success(), "unwoven GuavaDiff failed:\n{stderr}");
    assert!(
        plain.lines().count() > 200,
        "unwoven GuavaDiff printed too little:\n{plain}"
    );

    let with_ajc = ajc_available();
    if !with_ajc {
        skip(&format!(
            "ajc half of the guava differential: ajc 1.9.5 is not installed \
             (Debian package aspectj; {ASPECTJRT}); the major half still runs"
        ));
    }
    let aspects = ASPECTS;
    let weavers: &[&str] = if with_ajc {
        &["major", "ajc"]
    } else {
        &["major"]
    };
    let jobs: Vec<(&str, &str)> = weavers
        .iter()
        .flat_map(|w| aspects.iter().map(move |a| (*w, *a)))
        .collect();
    let runs: BTreeMap<(&str, &str), Result<ProgramRun, String>> = jobs
        .par_iter()
        .map(|&(weaver, aspect)| {
            let woven = tmp.path().join(format!("guava-{aspect}-{weaver}.jar"));
            let r = if weaver == "major" {
                major_weave(&jdk, &guava, aspect, &woven).and_then(|report| {
                    eprintln!("guava + {aspect} (major): {}", report_line(&report));
                    run_program(&[&prog, &woven], aspect)
                })
            } else {
                let work = tmp.path().join(format!("ajc-{aspect}"));
                std::fs::create_dir_all(&work).unwrap();
                ajc_weave(&guava, aspect, &woven, &work)
                    .and_then(|()| run_program(&[&prog, &woven, Path::new(ASPECTJRT)], aspect))
            };
            ((weaver, aspect), r)
        })
        .collect();

    let mut problems = Vec::new();
    for ((weaver, aspect), r) in &runs {
        let label = format!("GuavaDiff on guava + {aspect} woven by {weaver}");
        match r {
            Err(e) => problems.push(format!("{label}: {e}")),
            Ok(run) => {
                eprintln!("{label}: count {}", run.count);
                if run.stdout != plain {
                    problems.push(format!(
                        "{label}: stdout differs from the unwoven program's: {}",
                        first_line_difference(&plain, &run.stdout)
                    ));
                }
                // GuavaDiff makes tens of thousands of allocations in guava.
                if run.count < 10_000 {
                    problems.push(format!("{label}: implausibly low count {}", run.count));
                }
            }
        }
    }
    if with_ajc {
        for aspect in aspects {
            let (Some(Ok(m)), Some(Ok(a))) =
                (runs.get(&("major", aspect)), runs.get(&("ajc", aspect)))
            else {
                continue; // already reported
            };
            if m.count != a.count {
                problems.push(format!(
                    "guava + {aspect}: major counts {}, ajc {} (see the SignatureCounter \
                     comparison for the join points that differ)",
                    m.count, a.count
                ));
            }
            let diffs = count_differences(&m.per_join_point, &a.per_join_point);
            if !diffs.is_empty() {
                problems.push(format!(
                    "guava + {aspect}: {} join points counted differently by major and ajc \
                     (of {} / {}):\n  {}",
                    diffs.len(),
                    m.per_join_point.len(),
                    a.per_join_point.len(),
                    diffs
                        .iter()
                        .take(60)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("\n  ")
                ));
            } else if !m.per_join_point.is_empty() {
                eprintln!(
                    "guava + {aspect}: the same count at each of {} join points",
                    m.per_join_point.len()
                );
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The comparison helpers can fail: they see a missing, an extra and a changed
/// count, and the harness's failure lines.
#[test]
fn comparison_helpers_see_differences() {
    let stderr = "noise\nSIG 3 execution(a)\nSIG 2 call(b)\nObjectTracker: 12 allocations, 3 still reachable\n";
    let (n, map) = parse_counts("SignatureCounter", stderr).unwrap();
    assert_eq!(n, 5);
    assert_eq!(parse_counts("ObjectTracker", stderr).unwrap().0, 12);
    assert!(parse_counts("ExecutionCounter", stderr).is_err());
    let mut other = map.clone();
    assert!(count_differences(&map, &other).is_empty());
    other.insert("execution(a)".into(), 4);
    other.remove("call(b)");
    other.insert("execution(c)".into(), 1);
    let d = count_differences(&map, &other);
    assert_eq!(d.len(), 3, "{d:?}");
    assert!(d[0].contains("call(b)"), "largest difference first: {d:?}");

    let r = LinkResult {
        output: "VerifyError a.B: Bad type on operand stack\nother c.D: java.lang.NoClassDefFoundError: x/Y\nlinked 1 verify-errors 1 format-errors 0 other-errors 1 skipped 0\n".into(),
        ..Default::default()
    };
    let f = r.failures();
    assert_eq!(f.keys().collect::<Vec<_>>(), ["a.B", "c.D"]);
}
