//! Malformed aspects: each must fail with a diagnostic that names the file, line
//! and column, underlines the span and says what was expected; the rendered
//! diagnostics are snapshots under `tests/snapshots/malformed/` (BLESS=1 to update).

mod common;

use major_pointcut_lang::{compile, SourceFile};

#[test]
fn every_malformed_input_has_a_diagnostic() {
    let mut paths: Vec<_> = std::fs::read_dir(common::tests_dir("malformed"))
        .expect("malformed directory")
        .map(|e| e.expect("entry").path())
        .collect();
    paths.sort();
    assert!(paths.len() >= 30, "only {} malformed inputs", paths.len());
    let mut failures = Vec::new();
    for path in &paths {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(path).expect("read");
        let src = SourceFile::new(format!("malformed/{file}"), text);
        let diags = match compile(vec![src]) {
            Ok(_) => {
                failures.push(format!("{file}: accepted, but it is malformed"));
                continue;
            }
            Err(d) => d,
        };
        for d in &diags.0 {
            assert!(
                d.line_col().is_some(),
                "{file}: diagnostic without a position"
            );
            assert!(
                !d.label.is_empty(),
                "{file}: diagnostic without a label: {}",
                d.message
            );
        }
        let stem = file.replace('.', "_");
        if let Err(e) = common::check_snapshot(&format!("malformed/{stem}"), &diags.render()) {
            failures.push(e);
        }
    }
    common::report(failures);
}
