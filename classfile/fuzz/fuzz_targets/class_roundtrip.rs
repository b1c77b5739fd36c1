//! Feeds arbitrary bytes through the whole class-file engine; see
//! `major_classfile::selfcheck::check_bytes` for the property.
//!
//! Run from `classfile/`: `cargo +nightly fuzz run class_roundtrip fuzz/seeds`
//! (seed the corpus with `mkdir -p fuzz/seeds && cp tests/data/*.class fuzz/seeds/`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    major_classfile::selfcheck::check_bytes(data);
});
