//! Snapshot files with a bless switch: `BLESS=1 cargo test -p major-pointcut-lang`
//! rewrites every snapshot under `tests/snapshots/` from the current output; review
//! the diff with git.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

/// The repository's `aspects/` directory.
pub fn aspects_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../aspects")
}

/// `tests/<rel>` of this crate.
pub fn tests_dir(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(rel)
}

fn blessing() -> bool {
    std::env::var_os("BLESS").is_some_and(|v| v != "0")
}

/// Compares `actual` with `tests/snapshots/<name>.snap`; returns a description of
/// the difference (or writes the file when blessing).
pub fn check_snapshot(name: &str, actual: &str) -> Result<(), String> {
    let path = tests_dir("snapshots").join(format!("{name}.snap"));
    let expected = fs::read_to_string(&path).ok();
    if expected.as_deref() == Some(actual) {
        return Ok(());
    }
    if blessing() {
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).expect("create snapshot directory");
        }
        fs::write(&path, actual).expect("write snapshot");
        return Ok(());
    }
    let Some(expected) = expected else {
        return Err(format!(
            "{name}: no snapshot at {} (run with BLESS=1)",
            path.display()
        ));
    };
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let line = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    Err(format!(
        "{name}: snapshot differs at line {}\n  expected: {}\n  actual:   {}\n(run with BLESS=1 to accept)",
        line + 1,
        e.get(line).unwrap_or(&"<end>"),
        a.get(line).unwrap_or(&"<end>")
    ))
}

/// Like [`check_snapshot`] but panics on a difference.
pub fn assert_snapshot(name: &str, actual: &str) {
    if let Err(e) = check_snapshot(name, actual) {
        panic!("{e}");
    }
}

/// Panics listing every failure, if any.
pub fn report(failures: Vec<String>) {
    if !failures.is_empty() {
        panic!(
            "{} snapshot(s) differ:\n{}",
            failures.len(),
            failures.join("\n\n")
        );
    }
}
