//! Per-method execution counts held against an independent oracle: the
//! JVMTI agent `tests/jvmti/method_counter.c` counts every `MethodEntry`
//! (after boot, outside the bypass) while a woven counter
//! (`tests/java/fullcov/ExecutionCounts.aj` and a concrete sub-aspect)
//! counts the executions its advice sees, in the same run; the oracle has
//! the counter take its snapshot when it stops counting. [`compare_counts`]
//! holds the two against each other per method: every difference must fall
//! into a named category, each reported with its size.
//!
//! Used by the two-phase tests (`tests/tests/full_coverage.rs`, a woven JDK)
//! and the single-phase ones (`agent/tests/oracle.rs`, the agent weaving as
//! classes load), which differ in one category: classes defined at run time
//! that the class file load hook sees (proxies, a custom loader's classes)
//! are woven by the agent, so only hidden classes remain uncovered there
//! ([`RunTimeClasses`]).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use major_archive::Archive;
use major_weaver::weave::bypass::BYPASS;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Builds the JVMTI oracle (`tests/jvmti/method_counter.c`); `None` (after
/// printing why) without a C compiler or the JDK's headers.
pub fn build_oracle(home: &Path, dir: &Path) -> Option<PathBuf> {
    let include = home.join("include");
    if !include.join("jvmti.h").is_file() {
        eprintln!("SKIP: {} has no include/jvmti.h", home.display());
        return None;
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let lib = dir.join("libmethod_counter.so");
    let o = Command::new(&cc)
        .args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", include.display()))
        .arg(format!("-I{}", include.join("linux").display()))
        .arg("-o")
        .arg(&lib)
        .arg(repo().join("tests/jvmti/method_counter.c"))
        .output();
    match o {
        Ok(o) if o.status.success() => Some(lib),
        Ok(o) => panic!("{cc}: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => {
            eprintln!("SKIP: no C compiler ({cc}: {e})");
            None
        }
    }
}

/// `count class.nameDescriptor` lines into a map.
pub fn counts(file: &Path) -> BTreeMap<String, u64> {
    std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .lines()
        .map(|l| {
            let (n, k) = l.split_once(' ').expect("count and method");
            (k.to_string(), n.parse().expect("count"))
        })
        .collect()
}

/// What the oracle and the woven counter counted in one run.
pub struct Counted {
    /// The oracle's `MethodEntry` counts, by `class.nameDescriptor`.
    pub oracle: BTreeMap<String, u64>,
    /// The woven counter's executions, by `class.nameDescriptor`.
    pub major: BTreeMap<String, u64>,
    /// The woven counter's executions before the oracle started counting.
    pub early: u64,
    /// The woven counter's executions on threads the JVM attaches itself
    /// (their constructor runs on them before JVMTI knows them: the oracle
    /// gets no events).
    pub attaching: u64,
}

/// Runs `java` of `home` with the oracle (`oracle`, counting methods of
/// classes under `prefix`, bypass=1, snapshot of `ExecutionCounts`), then
/// `options` (a woven JDK's, or the single-phase agent's), then `args` (class
/// path, main class and its arguments), the counter writing into `d`; the
/// run must succeed. Returns the two counts and the program's stdout.
pub fn count_both(
    home: &Path,
    oracle: &Path,
    prefix: &str,
    options: &[OsString],
    args: &[OsString],
    d: &Path,
) -> (Counted, String) {
    let (oracle_file, major_file) = (d.join("oracle.txt"), d.join("major.txt"));
    let o = Command::new(home.join("bin/java"))
        .arg(format!(
            "-agentpath:{}=out={},prefix={prefix},bypass=1,snapshot=major/aspects/ExecutionCounts",
            oracle.display(),
            oracle_file.display()
        ))
        .arg(format!("-Dcounter.out={}", major_file.display()))
        .args(options)
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{args:?} under the oracle: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let counted = Counted {
        oracle: counts(&oracle_file),
        major: counts(&major_file)
            .into_iter()
            .filter(|(k, _)| k.starts_with(prefix))
            .collect(),
        early: counts(&PathBuf::from(format!("{}.early", major_file.display())))
            .values()
            .sum(),
        attaching: counts(&PathBuf::from(format!(
            "{}.attaching",
            major_file.display()
        )))
        .values()
        .sum(),
    };
    (counted, String::from_utf8_lossy(&o.stdout).into_owned())
}

/// Access flags of every method of the classes of `archive` whose name
/// starts with `prefix` (a jmod's, a directory's or an image's), by
/// `class.nameDescriptor`.
pub fn access_flags(archive: &Archive, prefix: &str) -> BTreeMap<String, u32> {
    let mut access = BTreeMap::new();
    for (i, e) in archive.entries().iter().enumerate() {
        let Some(name) = e.class_name() else {
            continue;
        };
        // An image's entries are /module/pkg/Class.class.
        let name = match name.strip_prefix('/') {
            Some(n) => n.split_once('/').map_or(n, |(_, rest)| rest),
            None => name,
        };
        if !name.starts_with(prefix) || name.ends_with("module-info") {
            continue;
        }
        let bytes = archive.read(i).unwrap();
        let class = major_classfile::ClassFile::parse(&bytes).unwrap();
        let name = class.name().unwrap().into_owned();
        for m in &class.methods {
            let key = format!(
                "{name}.{}{}",
                class.member_name(m).unwrap(),
                class.member_descriptor(m).unwrap()
            );
            let intrinsic =
                major_classfile::annotations::annotation_types(&m.attributes, &class.pool)
                    .unwrap()
                    .iter()
                    .any(|a| a.ends_with("IntrinsicCandidate"));
            access.insert(
                key,
                u32::from(m.access) | if intrinsic { INTRINSIC } else { 0 },
            );
        }
    }
    access
}

/// A pseudo access flag of [`access_flags`]: the method is annotated
/// `@IntrinsicCandidate`.
pub const INTRINSIC: u32 = 0x1_0000;

/// The oracle's and the counter's counts held against each other.
pub struct Comparison {
    /// Named categories of differences: (methods, executions).
    pub categories: BTreeMap<&'static str, (usize, u64)>,
    /// Differences in no category.
    pub unexplained: Vec<String>,
    /// Methods the oracle saw executed (major's own classes aside).
    pub executed: usize,
    /// Of those, the methods the counter saw.
    pub seen: usize,
    /// The oracle's executions, all methods.
    pub executions: u64,
    /// The counter's executions before the oracle started counting.
    pub early: u64,
    /// The counter's executions on threads the JVM attaches itself.
    pub attaching: u64,
}

/// Which classes defined at run time (in no archive) a weave covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunTimeClasses {
    /// None (the two-phase mode weaves only what is on disk): their
    /// methods' executions are a category.
    NotWoven,
    /// Those the class file load hook sees (the single-phase agent): only
    /// hidden classes (lambda proxies, lambda forms: the JVM never hands
    /// them to the hook; the oracle names them `Class.0x<address>`) are a
    /// category; a proxy's or a custom loader's class must count exactly.
    Woven,
}

/// Whether the oracle's key `class.nameDescriptor` is a method of a hidden
/// class (JVMTI's signature of one ends in `.0x<address>`).
pub fn is_hidden(key: &str) -> bool {
    key.split_once('.')
        .is_some_and(|(_, rest)| rest.starts_with("0x"))
        || key.contains("/0x")
}

impl Comparison {
    /// Prints the counts and each category's size, headed by `what`.
    pub fn print(&self, what: &str) {
        eprintln!(
            "{what}: the oracle counted {} methods ({} executions); major's counter saw {} of them ({:.1}%); {} executions before the oracle started",
            self.executed,
            self.executions,
            self.seen,
            100.0 * self.seen as f64 / self.executed.max(1) as f64,
            self.early
        );
        for (c, (n, diff)) in &self.categories {
            eprintln!("  difference: {c}: {n} methods, {diff} executions");
        }
        eprintln!(
            "  apart: {} executions on threads the JVM attaches itself (no JVMTI events)",
            self.attaching
        );
    }
}

/// Compares per method; a difference is explained by a category: major's
/// extra classes and the weaver's own classes (never woven), static
/// initializers (not in the pointcuts), native and bridge methods (no
/// bytecode or no join points), methods the weave left unwoven, classes that
/// are in no archive (generated at run time: lambda proxies, lambda forms,
/// reflection accessors), and the classes a full-coverage weave leaves out
/// (`java.lang.Object`, `jdk.internal.misc.VM`, the module `Builder`).
/// With [`RunTimeClasses::Woven`] the classes in no archive are a category
/// only if they are hidden.
pub fn compare_counts(
    c: &Counted,
    access: &BTreeMap<String, u32>,
    left_unwoven: &[String],
    run_time: RunTimeClasses,
) -> Comparison {
    let mut categories: BTreeMap<&'static str, (usize, u64)> = Default::default();
    let mut unexplained = Vec::new();
    let keys: std::collections::BTreeSet<&String> = c.oracle.keys().chain(c.major.keys()).collect();
    for k in keys {
        let (o, m) = (
            c.oracle.get(k).copied().unwrap_or(0),
            c.major.get(k).copied().unwrap_or(0),
        );
        if o == m {
            continue;
        }
        let flags = access.get(k).copied();
        let (class, method) = k.split_once('.').unwrap_or((k.as_str(), ""));
        let category = if class.ends_with("$MajorStatics")
            || class.starts_with("major/")
            || class.starts_with("org/aspectj/")
            || class == BYPASS
        {
            Some("major's own classes (runtime, aspects, extra classes)")
        } else if method.starts_with("<clinit>") {
            Some("static initializers (not in the pointcut)")
        } else if m == 0 && flags.is_some_and(|f| f & 0x0100 != 0) {
            Some("native methods")
        } else if m == 0 && flags.is_some_and(|f| f & 0x0040 != 0) {
            Some("bridge methods (no join points)")
        } else if m == 0 && flags.is_some_and(|f| f & INTRINSIC != 0) {
            Some("@IntrinsicCandidate methods (execution not woven: the JIT replaces them)")
        } else if m == 0 && flags.is_none() && run_time == RunTimeClasses::NotWoven {
            Some("classes generated at run time (in no archive)")
        } else if m == 0 && flags.is_none() && is_hidden(k) {
            Some("hidden classes (lambda proxies, lambda forms: never handed to the hook)")
        } else if m == 0
            && matches!(
                class,
                "java/lang/Object" | "jdk/internal/misc/VM" | "jdk/internal/module/Builder"
            )
        {
            Some("classes full coverage never weaves (Object, VM, Builder)")
        } else if m == 0
            && left_unwoven.iter().any(|l| {
                l.contains(class) && l.contains(&method[..method.find('(').unwrap_or(method.len())])
            })
        {
            Some("methods left unwoven (named by the weave)")
        } else {
            None
        };
        match category {
            Some(cat) => {
                let e = categories.entry(cat).or_default();
                e.0 += 1;
                e.1 += o.abs_diff(m);
            }
            None => unexplained.push(format!("{k}: oracle {o}, major {m}")),
        }
    }
    let own = |k: &String| {
        k.contains("$MajorStatics")
            || k.starts_with("major/")
            || k.starts_with("org/aspectj/")
            || k.starts_with(&format!("{BYPASS}."))
    };
    let executed = c.oracle.keys().filter(|k| !own(k)).count();
    let seen = c
        .oracle
        .keys()
        .filter(|k| !own(k) && c.major.contains_key(*k))
        .count();
    Comparison {
        categories,
        unexplained,
        executed,
        seen,
        executions: c.oracle.values().sum(),
        early: c.early,
        attaching: c.attaching,
    }
}
