//! The `major` command's library: everything that needs both the class-file
//! engine and the archive layer.
//!
//! * [`profile`]: calling-context profiles (the CCT profiler's raw profile) and
//!   their outputs: folded stacks, flame graph, speedscope JSON, summary;
//! * [`incremental`]: incremental weaving of class directories (state kept in
//!   the output, classes re-woven when what they depend on changed);
//! * [`index`]: the class-hierarchy index over inputs plus a JDK, which answers
//!   the frame computation's "common super class" question with a cache;
//! * [`check`]: round-trip and re-frame whole archives (`major check`);
//! * [`weave_run`]: `major weave`; [`outputs`]: one output, or one per input; [`demo`]: `major demo`, the built-in example;
//! * [`jdk`]: finding a JDK and its run-time image; [`woven_jdk`]: `major weave --jdk`
//!   and `major run`, a JDK woven with full coverage and the options to run on it;
//! * [`load_time`]: the same weave one class at a time, for the single-phase
//!   JVMTI agent;
//! * [`report`]: errors that name archive, entry, class, method and offset, and
//!   what the weave found per class and per advice; [`report_json`]: the
//!   machine-readable report (`--report json`); [`progress`]: the progress bar.

#![warn(missing_docs)]

pub mod allocator;
pub mod aspects;
pub mod check;
pub mod demo;
pub mod hex;
pub mod incremental;
pub mod index;
pub mod jdk;
pub mod jdk_home;
pub mod later;
pub mod load_time;
pub mod modules;
pub mod outputs;
pub mod pool;
pub mod profile;
pub mod profile_run;
pub mod progress;
pub mod report;
pub mod report_json;
pub mod runtime;
pub mod signed;
pub mod weave;
pub mod weave_run;
pub mod woven_jdk;
pub mod woven_jdk_cache;
