//! The conformance suite woven by major: every case in `tests/conformance` is
//! compiled with javac, woven with `major weave`, run under `-Xverify:all`, and
//! its output compared with the expected output (which `conformance_ajc.rs`
//! checks against ajc). A case whose aspects use something the weaver reports as
//! not supported yet is listed as pending, with the weaver's reason; every other
//! case must pass.

use std::path::Path;

use major_tests::conformance::{compile_program, first_difference, load_cases, run_java, Case};
use major_tests::{jdk17, skip};
use major_weaver::jdk::Jdk;
use major_weaver::weave_run::{run, WeaveOptions};
use rayon::prelude::*;

enum Outcome {
    Pass,
    Pending(String),
    Fail(String),
}

fn run_case(case: &Case, jdk: &Jdk) -> Outcome {
    let work = tempfile::tempdir().unwrap();
    let classes = work.path().join("classes");
    std::fs::create_dir_all(&classes).unwrap();
    if let Err(e) = compile_program(case, &classes) {
        return Outcome::Fail(e);
    }
    let woven = work.path().join("woven");
    let opts = WeaveOptions {
        aspects: case.aspects.clone(),
        inputs: vec![classes],
        output: woven.clone(),
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
    let report = match run(&opts) {
        Ok(r) => r,
        Err(e) => return Outcome::Fail(format!("major weave failed: {e}")),
    };
    if !report.unsupported.is_empty() {
        let why: Vec<String> = report
            .unsupported
            .iter()
            .map(|(a, w)| format!("{a}: {w}"))
            .collect();
        return Outcome::Pending(why.join("; "));
    }
    let (stdout, stderr, status) = run_java(&[&woven], &case.main);
    let expected = case.expected();
    if stdout == expected && (status.success() || expected_failure(case)) {
        Outcome::Pass
    } else {
        Outcome::Fail(format!(
            "exit {status}; {}\nstderr:\n{}",
            first_difference(&expected, &stdout),
            stderr.lines().take(15).collect::<Vec<_>>().join("\n")
        ))
    }
}

/// The cases listed in `tests/conformance/major-pending.toml`, with reasons.
fn known_pending() -> std::collections::BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/major-pending.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let value: toml::Value =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    value
        .get("pending")
        .and_then(|p| p.as_table())
        .map(|t| {
            t.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// Cases whose program is meant to end with an uncaught exception.
fn expected_failure(case: &Case) -> bool {
    case.dir.join("expect-failure").exists()
}

#[test]
fn conformance_cases_woven_by_major() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    let jdk = Jdk::at(&home).expect("JDK 17");
    let cases = load_cases();
    if std::env::var_os("MAJOR_CASES").is_none() {
        assert!(cases.len() >= 60, "only {} cases", cases.len());
    }
    let results: Vec<(String, Outcome)> = cases
        .par_iter()
        .map(|c| (c.name.clone(), run_case(c, &jdk)))
        .collect();
    let listed = known_pending();
    let (mut pass, mut pending, mut failed) = (0, Vec::new(), Vec::new());
    for (name, o) in &results {
        match (o, listed.get(name)) {
            (Outcome::Pass, None) => pass += 1,
            (Outcome::Pass, Some(_)) => failed.push(format!(
                "{name}: passes now; remove it from tests/conformance/major-pending.toml"
            )),
            (Outcome::Pending(why), _) => pending.push(format!("{name}: {why}")),
            (Outcome::Fail(_), Some(why)) => {
                pending.push(format!("{name}: {why} (major-pending.toml)"))
            }
            (Outcome::Fail(why), None) => failed.push(format!("{name}: {why}")),
        }
    }
    eprintln!(
        "conformance (major): {pass} passed, {} pending, {} failed of {}",
        pending.len(),
        failed.len(),
        results.len()
    );
    for p in &pending {
        eprintln!("  PENDING {p}");
    }
    for f in &failed {
        eprintln!("  FAILED {f}");
    }
    assert!(
        failed.is_empty(),
        "{} conformance cases failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
