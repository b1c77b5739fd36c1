//! Shared helpers of the corpus and end-to-end tests: where the JDKs and jars of
//! this machine are, compiling and running Java, and the HotSpot link harness
//! (`tests/java/LinkAll.java`).
//!
//! A test whose input is missing prints `SKIP: <reason>` and returns; on CI the
//! inputs are installed by `.ci/run`, so skips there are visible in the log.

use std::path::{Path, PathBuf};
use std::process::Command;

pub mod cct_compare;
pub mod conformance;
pub mod method_counts;
pub mod workloads;

/// Prints a skip reason (tests call this and return).
pub fn skip(reason: &str) {
    eprintln!("SKIP: {reason}");
}

/// The JDK 17 home, if installed.
pub fn jdk17() -> Option<PathBuf> {
    let p = PathBuf::from("/usr/lib/jvm/java-17-openjdk-amd64");
    p.join("lib/modules").is_file().then_some(p)
}

/// The JDK 25 home, if installed.
pub fn jdk25() -> Option<PathBuf> {
    let p = PathBuf::from("/usr/lib/jvm/temurin-25-jdk-amd64");
    p.join("lib/modules").is_file().then_some(p)
}

/// Every distinct jar under `/usr/share/java` (symlinks resolved), sorted.
pub fn system_jars() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir("/usr/share/java")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jar"))
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Compiles `sources` with the JDK's `javac` into `out` (`--release` as given).
pub fn javac(jdk: &Path, release: &str, out: &Path, sources: &[PathBuf]) {
    let status = Command::new(jdk.join("bin/javac"))
        .args(["--release", release, "-g", "-d"])
        .arg(out)
        .args(sources)
        .status()
        .expect("run javac");
    assert!(status.success(), "javac failed");
}

/// The compiled LinkAll harness (a class directory), built once per test binary.
pub fn linkall(jdk: &Path) -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("major-linkall-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("java/LinkAll.java");
        javac(jdk, "11", &dir, &[src]);
        dir
    })
    .clone()
}

/// What LinkAll reported.
#[derive(Debug, Default)]
pub struct LinkResult {
    /// Classes loaded and linked.
    pub linked: usize,
    /// VerifyErrors.
    pub verify_errors: usize,
    /// ClassFormatErrors.
    pub format_errors: usize,
    /// Other linkage problems (missing optional dependencies...).
    pub other_errors: usize,
    /// `module-info` and `package-info` entries, which are not classes to link.
    pub skipped: usize,
    /// The harness's whole output.
    pub output: String,
}

impl LinkResult {
    /// The classes that failed to load or link, with the harness's line for
    /// each (`VerifyError <class>: <message>`, `ClassFormatError ...`, and, when
    /// run by [`run_linkall_verbose`], `other <class>: <throwable>`).
    pub fn failures(&self) -> std::collections::BTreeMap<String, String> {
        self.output
            .lines()
            .filter_map(|l| {
                let (kind, rest) = l.split_once(' ')?;
                if !matches!(kind, "VerifyError" | "ClassFormatError" | "other") {
                    return None;
                }
                let (class, _) = rest.split_once(": ").unwrap_or((rest, ""));
                Some((class.to_string(), l.to_string()))
            })
            .collect()
    }
}

/// Runs LinkAll with `java` and the given JVM options and harness arguments.
pub fn run_linkall(
    java: &Path,
    harness: &Path,
    jvm_opts: &[&str],
    args: &[&Path],
    mode: &str,
) -> LinkResult {
    linkall_command(java, harness, jvm_opts, args, mode, false)
}

/// [`run_linkall`] with `LINKALL_VERBOSE` set: every class that fails to link
/// for any reason is named in the output (see [`LinkResult::failures`]).
pub fn run_linkall_verbose(
    java: &Path,
    harness: &Path,
    jvm_opts: &[&str],
    args: &[&Path],
    mode: &str,
) -> LinkResult {
    linkall_command(java, harness, jvm_opts, args, mode, true)
}

fn linkall_command(
    java: &Path,
    harness: &Path,
    jvm_opts: &[&str],
    args: &[&Path],
    mode: &str,
    verbose: bool,
) -> LinkResult {
    let mut cmd = Command::new(java);
    if verbose {
        cmd.env("LINKALL_VERBOSE", "1");
    }
    let out = cmd
        .args(jvm_opts)
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(harness)
        .arg("LinkAll")
        .arg(mode)
        .args(args)
        .output()
        .expect("run java");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let last = text
        .lines()
        .find(|l| l.starts_with("linked "))
        .unwrap_or_else(|| panic!("LinkAll did not finish:\n{text}"));
    let n: Vec<usize> = last
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    LinkResult {
        linked: n[0],
        verify_errors: n[1],
        format_errors: n[2],
        other_errors: n[3],
        skipped: n[4],
        output: text,
    }
}
