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
        woven_jdk: major_weaver::woven_jdk_cache::WovenJdkMode::Off,
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

/// The JVM options that run a program under the agent, as `major run
/// --aspect` passes them (`-agentpath:...`, and the `--patch-module` of the
/// added classes): [`agent_command`]'s arguments before `args` (the class
/// path the aspects are compiled against, as `-cp DIR`).
pub fn agent_jvm_options(
    jdk: &Path,
    aspects: &[PathBuf],
    cache: &Path,
    extra: &[String],
    args: &[OsString],
) -> Vec<OsString> {
    let c = agent_command(jdk, aspects, cache, extra, args);
    let all: Vec<OsString> = c.get_args().map(OsString::from).collect();
    all[..all.len() - args.len()].to_vec()
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

/// Class files by name from a class path (directories and jars, the first
/// holding a class wins, as the application class loader finds it), then
/// from a run-time image (`lib/modules`).
pub struct ClassSource {
    archives: Vec<major_archive::Archive>,
    image: Option<major_archive::RuntimeImage>,
}

impl ClassSource {
    /// The classes of `class_path`, then of the image at `modules` (if any).
    pub fn new(class_path: &[PathBuf], modules: Option<&Path>) -> ClassSource {
        ClassSource {
            archives: class_path
                .iter()
                .map(|p| {
                    major_archive::Archive::open(p)
                        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
                })
                .collect(),
            image: modules.map(|m| {
                major_archive::RuntimeImage::open(m)
                    .unwrap_or_else(|e| panic!("{}: {e}", m.display()))
            }),
        }
    }

    /// The class file of `name` (internal form), if the class path or the
    /// image holds it.
    pub fn read(&self, name: &str) -> Option<Vec<u8>> {
        let entry = format!("{name}.class");
        for a in &self.archives {
            if let Some(i) = a.find(&entry) {
                return Some(
                    a.read(i)
                        .unwrap_or_else(|e| panic!("{}: {entry}: {e}", a.path().display()))
                        .into_owned(),
                );
            }
        }
        self.image
            .as_ref()?
            .read_class(name)
            .ok()
            .flatten()
            .map(|b| b.into_owned())
    }
}

/// How the classes an agent run dumped (`dump=DIR`: `DIR/seen.txt`, the
/// woven classes, `DIR/added/`) compare with a two-phase weave.
#[derive(Debug, Default)]
pub struct Agreement {
    /// Classes both modes wove, byte for byte the same.
    pub same_woven: usize,
    /// Classes both left alone.
    pub same_plain: usize,
    /// Classes the weave adds to `java.base`, the same in both.
    pub added: usize,
    /// Classes the agent saw that no archive holds (defined at run time),
    /// not compared.
    pub run_time: usize,
    /// Every difference, one line each, naming the class.
    pub differ: Vec<String>,
}

/// Holds every class the agent saw (`dump`) against the two-phase weave
/// (`two_phase`: its woven class path and image) and the unwoven classes
/// (`plain`): a class the agent wove must be byte-identical to the
/// two-phase mode's, a class it left alone must be left alone there, and the
/// classes added to `java.base` must be the same (`added_image`: the woven
/// image that holds them).
pub fn agreement(
    dump: &Path,
    two_phase: &ClassSource,
    plain: &ClassSource,
    added_image: &ClassSource,
) -> Agreement {
    let mut a = Agreement::default();
    let seen = std::fs::read_to_string(dump.join("seen.txt"))
        .unwrap_or_else(|e| panic!("{}: {e}", dump.join("seen.txt").display()));
    let added_dir = dump.join("added");
    let mut names: Vec<&str> = seen.lines().filter(|l| !l.is_empty()).collect();
    names.dedup();
    for name in names {
        let Some(two) = two_phase.read(name) else {
            if !added_dir.join(format!("{name}.class")).is_file() {
                a.run_time += 1;
            }
            continue; // defined at run time, or an added class (below)
        };
        match std::fs::read(dump.join(format!("{name}.class"))) {
            Ok(single) if single == two => a.same_woven += 1,
            Ok(_) => a.differ.push(format!("{name}: woven differently")),
            Err(_) => match plain.read(name) {
                Some(p) if p == two => a.same_plain += 1,
                Some(_) => a.differ.push(format!("{name}: woven by two-phase only")),
                None if added_dir.join(format!("{name}.class")).is_file() => {}
                None => a
                    .differ
                    .push(format!("{name}: in the two-phase weave only")),
            },
        }
    }
    if added_dir.is_dir() {
        for entry in walk(&added_dir) {
            let rel = entry.strip_prefix(&added_dir).unwrap();
            let name = rel.to_string_lossy().trim_end_matches(".class").to_string();
            match added_image.read(&name) {
                Some(two) if two == std::fs::read(&entry).unwrap() => a.added += 1,
                Some(_) => a.differ.push(format!("{name}: added differently")),
                None => a.differ.push(format!(
                    "{name}: added by the agent, not by the two-phase weave"
                )),
            }
        }
    }
    a
}
