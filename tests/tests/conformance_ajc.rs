//! The conformance suite against AspectJ's ajc: every case with `ajc = true` is
//! compiled, woven by ajc 1.9.5 and run; its stdout must equal the stored
//! `expected.txt`. With `MAJOR_BLESS=1` the stored outputs are rewritten from
//! ajc's instead. `MAJOR_CASES=substr[,substr]` limits the run to some cases.
//!
//! Without ajc (Debian package `aspectj`) the comparison is skipped; the
//! well-formedness test always runs.

use std::time::Instant;

use major_tests::conformance::{
    ajc_available, ajc_output, check_case, first_difference, load_cases, uncovered_features, Case,
    MIN_CASES,
};
use major_tests::skip;
use rayon::prelude::*;

#[test]
fn cases_are_well_formed() {
    let cases = load_cases();
    let mut problems: Vec<String> = cases.iter().flat_map(check_case).collect();
    if std::env::var_os("MAJOR_CASES").is_none() {
        if cases.len() < MIN_CASES {
            problems.push(format!(
                "only {} cases, at least {MIN_CASES} wanted",
                cases.len()
            ));
        }
        for f in uncovered_features(&cases) {
            problems.push(format!("no case covers feature {f:?}"));
        }
    }
    let mut numbers: Vec<&str> = cases.iter().map(|c| &c.name[..3]).collect();
    numbers.sort_unstable();
    for w in numbers.windows(2) {
        if w[0] == w[1] {
            problems.push(format!("case number {} used twice", w[0]));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    eprintln!("{} conformance cases well-formed", cases.len());
}

#[test]
fn expected_outputs_match_ajc() {
    if !ajc_available() {
        skip("ajc not installed (Debian package aspectj)");
        return;
    }
    let bless = std::env::var_os("MAJOR_BLESS").is_some_and(|v| v == "1");
    let cases: Vec<Case> = load_cases().into_iter().filter(|c| c.ajc).collect();
    let start = Instant::now();
    let results: Vec<(&Case, Result<String, String>)> =
        cases.par_iter().map(|c| (c, ajc_output(c))).collect();
    let mut failures = Vec::new();
    let mut blessed = 0;
    for (case, result) in results {
        match result {
            Err(e) => failures.push(e),
            Ok(actual) if bless => {
                let old = std::fs::read_to_string(case.expected_path()).unwrap_or_default();
                if old != actual {
                    std::fs::write(case.expected_path(), &actual).expect("write expected.txt");
                    eprintln!("blessed {}", case.name);
                    blessed += 1;
                }
            }
            Ok(actual) => {
                let expected = case.expected();
                if expected != actual {
                    failures.push(format!(
                        "{}: ajc's output differs from expected.txt at {}",
                        case.name,
                        first_difference(&expected, &actual)
                    ));
                }
            }
        }
    }
    eprintln!(
        "{} cases woven by ajc in {:.1} s{}",
        cases.len(),
        start.elapsed().as_secs_f64(),
        if bless {
            format!(", {blessed} expected outputs rewritten")
        } else {
            String::new()
        }
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
