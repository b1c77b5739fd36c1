//! The property the fuzz target (`fuzz/fuzz_targets/parse.rs`) and the smoke test
//! (`tests/fuzz_smoke.rs`) check: whatever the input, parsing, checking and
//! rendering diagnostics return normally, and every diagnostic span lies inside the
//! text it points into.

use crate::{compile, display, parse_pointcut, SourceFile};

/// Runs every entry point over `input` as a `.aj` file, an annotation-style `.java`
/// file and a pointcut string. Panics (the failure the fuzzer looks for) if a span
/// points outside its source.
pub fn property(input: &str) {
    for name in ["fuzz.aj", "Fuzz.java"] {
        let src = SourceFile::new(name, input);
        match compile(vec![src.clone()]) {
            Ok(program) => {
                let _ = display::dump_program(&program);
            }
            Err(diags) => {
                for d in &diags.0 {
                    assert!(
                        d.span.start <= d.span.end && d.span.end <= input.len(),
                        "span {:?} outside the input ({} bytes): {}",
                        d.span,
                        input.len(),
                        d.message
                    );
                }
                let _ = diags.render();
            }
        }
    }
    let src = SourceFile::new("pointcut", input);
    match parse_pointcut(&src) {
        Ok(pc) => {
            let _ = pc.to_string();
        }
        Err(diags) => {
            let _ = diags.render();
        }
    }
}
