//! `cargo +nightly fuzz run parse` (from pointcut-lang/): any input, as an `.aj`
//! file, an annotation-style `.java` file and a pointcut string, parses, checks and
//! renders its diagnostics without panicking. `tests/fuzz_smoke.rs` runs the same
//! property under `cargo test`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        major_pointcut_lang::fuzz::property(text);
    }
});
