//! A table of pointcut expressions covering every designator and pattern form; the
//! snapshot holds the AST of each, in the canonical text form of `display.rs`.

mod common;

use major_pointcut_lang::{parse_pointcut, SourceFile};

#[test]
fn corpus_asts() {
    let text = std::fs::read_to_string(common::tests_dir("corpus/pointcuts.txt")).expect("corpus");
    let mut out = String::new();
    let mut count = 0;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        count += 1;
        let src = SourceFile::new("corpus", line);
        match parse_pointcut(&src) {
            Ok(pc) => {
                // Spans cover the whole expression.
                assert_eq!(
                    (pc.span.start, pc.span.end),
                    (0, line.len()),
                    "span of {line}"
                );
                out.push_str(&format!("{line}\n  => {pc}\n"));
            }
            Err(e) => panic!("corpus entry does not parse: {line}\n{}", e.render()),
        }
    }
    assert!(count >= 100, "only {count} corpus entries");
    common::assert_snapshot("pointcuts", &out);
}
