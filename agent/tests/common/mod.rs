//! Helpers of the agent's tests: the agent library and the `major` binary
//! cargo built, the `java` command with the agent, the agent's summary lines.
#![allow(dead_code)] // Each test binary uses a part.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use major_weaver::jdk::Jdk;
use major_weaver::load_time::{AgentRun, AGENT_LIBRARY};
use major_weaver::weave::bypass::BypassForm;

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `agent/tests`.
pub fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// The agent library cargo built for this test (`target/<profile>/deps`,
/// or its parent).
pub fn agent_library() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary");
    let deps = exe.parent().expect("deps dir");
    for dir in [deps, deps.parent().unwrap_or(deps)] {
        let lib = dir.join(AGENT_LIBRARY);
        if lib.is_file() {
            return lib;
        }
    }
    panic!("{AGENT_LIBRARY} not found beside {}", exe.display());
}

/// The `major` binary built beside the agent (`cargo test --workspace`,
/// `cargo build`), if there is one.
pub fn major_binary() -> Option<PathBuf> {
    let lib = agent_library();
    let beside = lib.with_file_name("major");
    let up = lib.parent().and_then(Path::parent).map(|d| d.join("major"));
    [Some(beside), up]
        .into_iter()
        .flatten()
        .find(|p| p.is_file())
}

/// The `java` command with the agent weaving `aspects` (aspect cache
/// `cache`, verbose), then `args`; `extra` agent options are appended
/// (`no-class-cache`, `class-cache=DIR`, `fatal`, `dump=DIR`).
pub fn agent_command(
    jdk: &Path,
    aspects: &[PathBuf],
    cache: &Path,
    extra: &[String],
    args: &[OsString],
) -> Command {
    agent_command_with(jdk, aspects, BypassForm::default(), cache, extra, args)
}

/// [`agent_command`] with the bypass checks in the form `bypass`.
pub fn agent_command_with(
    jdk: &Path,
    aspects: &[PathBuf],
    bypass: BypassForm,
    cache: &Path,
    extra: &[String],
    args: &[OsString],
) -> Command {
    let c = AgentRun {
        aspects: aspects.to_vec(),
        jdk: Jdk::at(jdk).expect("a JDK"),
        cache: Some(cache.to_path_buf()),
        agent: agent_library(),
        verbose: true,
        bypass,
        no_class_cache: false,
        fatal: false,
    }
    .command(args)
    .unwrap_or_else(|e| panic!("preparing the agent run: {e}"));
    let mut a: Vec<OsString> = c.get_args().map(OsString::from).collect();
    for x in extra {
        a[0].push(format!(",{x}"));
    }
    let mut out = Command::new(c.get_program());
    out.args(&a);
    out
}

/// The strings as arguments.
pub fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// Runs `c`, which must succeed.
pub fn run(mut c: Command) -> Output {
    let o = c.output().expect("start java");
    if !o.status.success() {
        panic!(
            "{:?} failed ({}):\n{}",
            c,
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
    }
    o
}

/// `java` of `jdk` with `args`, no agent.
pub fn plain_java(jdk: &Path, args: &[OsString]) -> Command {
    let mut c = Command::new(jdk.join("bin/java"));
    c.args(args);
    c
}

/// Bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Compiles the test program `app.Main` into `dir/classes` with `jdk`'s javac.
pub fn compile_program(jdk: &Path, dir: &Path) -> PathBuf {
    let classes = dir.join("classes");
    major_tests::javac(jdk, "17", &classes, &[here().join("java/app/Main.java")]);
    classes
}

/// The agent's summary line: (seen, woven, failed).
pub fn summary(stderr: &str) -> (usize, usize, usize) {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("major agent: ") && l.contains(" classes seen, "))
        .unwrap_or_else(|| panic!("no agent summary in:\n{stderr}"));
    let n: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    (n[0], n[1], n[2])
}

/// The counts of the agent's class cache line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheCounts {
    /// Hits of woven classes.
    pub woven: u64,
    /// Hits of the "unchanged" marker.
    pub unchanged: u64,
    /// Misses.
    pub misses: u64,
    /// Damaged entries (among the misses).
    pub damaged: u64,
    /// Entries stored.
    pub stored: u64,
}

/// The agent's class cache line for the cache in `dir`.
pub fn cache_counts(stderr: &str, dir: &Path) -> CacheCounts {
    let prefix = format!("major agent: class cache {}: ", dir.display());
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line in:\n{stderr}"));
    let number_before = |word: &str| -> u64 {
        line.split_once(word)
            .and_then(|(a, _)| {
                a.split(|c: char| !c.is_ascii_digit())
                    .rfind(|s| !s.is_empty())
            })
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    CacheCounts {
        woven: number_before(" woven,"),
        unchanged: number_before(" unchanged)"),
        misses: number_before(" misses"),
        damaged: number_before(" damaged)"),
        stored: number_before(" stored"),
    }
}

/// The number a line `<prefix> N ...` of `stderr` gives.
pub fn count(stderr: &str, prefix: &str) -> u64 {
    let line = stderr
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line in:\n{stderr}"));
    line[prefix.len()..]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in `{line}`"))
}

/// Every file below `dir`, sorted.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
