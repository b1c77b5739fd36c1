//! Feeds arbitrary bytes through the whole class-file engine; see
//! `major_classfile::selfcheck::check_bytes` for the property.
//!
//! Run from `classfile/` (needs a nightly toolchain and `cargo install cargo-fuzz`):
//!
//! ```text
//! mkdir -p fuzz/corpus/class_roundtrip && cp tests/data/*.class fuzz/corpus/class_roundtrip/
//! cargo +nightly fuzz run class_roundtrip -- -max_total_time=600
//! ```

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    major_classfile::selfcheck::check_bytes(data);
});
