//! The conformance suite (`tests/conformance/<NNN-name>/`): small Java programs
//! with aspects and the exact stdout the woven program prints.
//!
//! Each case directory holds the program (`*.java`, any package layout), its
//! aspects (code style `*.aj`, or annotation style `*Aspect.java`), `expected.txt`
//! and `case.toml`:
//!
//! ```toml
//! description = "what the case shows"
//! main = "Main"                 # class to run
//! aspects = ["Tracer.aj"]       # files given to the weaver; every other .java is the program
//! features = ["before", "execution"]
//! ajc = true                    # false only where ajc 1.9.5 cannot read the program (records)
//! release = "11"                # javac --release for the program
//! ajc_mode = "inpath"           # optional: "inpath" (default) or "source"
//! debug = false                 # optional: javac -g:none instead of -g
//! ```
//!
//! The expected outputs were produced by AspectJ's `ajc` 1.9.5 and are checked
//! against it by `tests/conformance_ajc.rs` wherever `ajc` is installed:
//!
//! * `inpath` mode: the program is compiled by `javac --release <release> -g`,
//!   then `ajc -11 -inpath <classes> -cp aspectjrt.jar -d <woven> <aspects>`
//!   weaves it (annotation-style aspects are given to ajc as `.java` sources
//!   in the same invocation, which compiles them as aspects);
//! * `source` mode: `ajc -11` compiles program and aspects together;
//!
//! and the woven program runs with `java -Xverify:all -cp <woven>:aspectjrt.jar`.
//! The stored `expected.txt` lets the suite run against `major` where ajc is
//! absent (the weaver-side runner uses [`load_cases`], [`compile_program`] and
//! [`run_java`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

use serde::Deserialize;

/// AspectJ's runtime library (Debian package `aspectj`).
pub const ASPECTJRT: &str = "/usr/share/java/aspectjrt.jar";
/// AspectJ's compiler and weaver (Debian package `aspectj`).
pub const ASPECTJTOOLS: &str = "/usr/share/java/aspectjtools.jar";

/// The minimum number of cases the suite must hold.
pub const MIN_CASES: usize = 60;

/// Every feature tag a case may carry; each must be covered by at least one case.
pub const FEATURES: &[&str] = &[
    // advice kinds and their forms
    "before",
    "after",
    "after-returning",
    "after-returning-binding",
    "after-throwing",
    "after-throwing-binding",
    "around",
    "proceed-changed-args",
    "around-no-proceed",
    "proceed-twice",
    "around-nested",
    "declare-precedence",
    "advice-order",
    "annotation-style",
    // designators
    "call",
    "execution",
    "constructor-execution",
    "constructor-call",
    "get",
    "set",
    "staticinitialization",
    "handler",
    "initialization",
    "preinitialization",
    "within",
    "withincode",
    "this",
    "target",
    "args",
    "args-binding",
    "if",
    "cflow",
    "cflowbelow",
    "named-pointcut",
    "named-pointcut-params",
    "abstract-aspect",
    "not",
    "and",
    "or",
    // patterns
    "wildcard",
    "pattern-dotdot",
    "subtype-plus",
    "array-pattern",
    "modifiers-pattern",
    "throws-pattern",
    "annotation-pattern",
    "annotation-binding",
    // reflective context
    "thisJoinPoint",
    "thisJoinPointStaticPart",
    "thisEnclosingJoinPointStaticPart",
    "getArgs",
    "getThis",
    "getTarget",
    "getSignature",
    "getKind",
    "source-location",
    // program features
    "lambda",
    "string-concat",
    "enum",
    "record",
    "inner-class",
    "nested-class",
    "anonymous-class",
    "local-class",
    "default-method",
    "static-interface-method",
    "exception-through-advice",
    "this-call",
    "super-call",
    "synchronized",
    "long-double",
    "array-args",
    "varargs",
    "static-field",
    "instance-field",
    "overriding",
    "generics",
    "packages",
];

/// How the ajc side builds a case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AjcMode {
    /// javac compiles the program; ajc weaves the class files (`-inpath`).
    Inpath,
    /// ajc compiles program and aspects from source.
    Source,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseToml {
    description: String,
    main: String,
    aspects: Vec<String>,
    features: Vec<String>,
    ajc: bool,
    release: String,
    ajc_mode: Option<AjcMode>,
    debug: Option<bool>,
}

/// One conformance case.
#[derive(Clone, Debug)]
pub struct Case {
    /// The directory name (`NNN-short-name`).
    pub name: String,
    /// The case directory.
    pub dir: PathBuf,
    /// What the case shows.
    pub description: String,
    /// The class to run (binary name, e.g. `Main` or `app.Main`).
    pub main: String,
    /// The aspect files given to the weaver, in `case.toml` order.
    pub aspects: Vec<PathBuf>,
    /// Every other `.java` file under the case directory, sorted.
    pub program_sources: Vec<PathBuf>,
    /// `javac --release` for the program.
    pub release: String,
    /// Whether javac compiles the program with debug information (`-g`, the
    /// default) or without any (`-g:none`: no source file, lines or names).
    pub debug: bool,
    /// Whether ajc 1.9.5 can check the expected output.
    pub ajc: bool,
    /// How the ajc side builds the case.
    pub ajc_mode: AjcMode,
    /// Feature tags (see [`FEATURES`]).
    pub features: Vec<String>,
}

impl Case {
    /// The stored expected stdout.
    pub fn expected_path(&self) -> PathBuf {
        self.dir.join("expected.txt")
    }

    /// The stored expected stdout, read.
    pub fn expected(&self) -> String {
        std::fs::read_to_string(self.expected_path())
            .unwrap_or_else(|e| panic!("{}: reading expected.txt: {e}", self.name))
    }

    /// Code-style aspects (`.aj`).
    pub fn code_style_aspects(&self) -> Vec<&Path> {
        self.aspects
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "aj"))
            .map(PathBuf::as_path)
            .collect()
    }

    /// Annotation-style aspects (`@Aspect` classes in `.java` files); they
    /// compile with javac against [`ASPECTJRT`] and the program's classes.
    pub fn annotation_style_aspects(&self) -> Vec<&Path> {
        self.aspects
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "java"))
            .map(PathBuf::as_path)
            .collect()
    }
}

/// `tests/conformance`.
pub fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance")
}

fn java_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            java_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "java") {
            out.push(path);
        }
    }
    Ok(())
}

/// Reads one case directory.
pub fn load_case(dir: &Path) -> Result<Case, String> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("{}: not a case directory name", dir.display()))?
        .to_string();
    let text = std::fs::read_to_string(dir.join("case.toml"))
        .map_err(|e| format!("{name}: reading case.toml: {e}"))?;
    let toml: CaseToml = toml::from_str(&text).map_err(|e| format!("{name}: case.toml: {e}"))?;
    let aspects: Vec<PathBuf> = toml.aspects.iter().map(|a| dir.join(a)).collect();
    let mut all = Vec::new();
    java_files(dir, &mut all).map_err(|e| format!("{name}: listing sources: {e}"))?;
    all.sort();
    let program_sources = all.into_iter().filter(|p| !aspects.contains(p)).collect();
    Ok(Case {
        name,
        dir: dir.to_path_buf(),
        description: toml.description,
        main: toml.main,
        aspects,
        program_sources,
        release: toml.release,
        debug: toml.debug.unwrap_or(true),
        ajc: toml.ajc,
        ajc_mode: toml.ajc_mode.unwrap_or(AjcMode::Inpath),
        features: toml.features,
    })
}

/// Every case directory under `tests/conformance`, sorted by name.
pub fn case_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(conformance_dir())
        .expect("read tests/conformance")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Every case, sorted by name; panics on a malformed `case.toml`.
///
/// With `MAJOR_CASES=<substring>[,<substring>...]` set, only the cases whose
/// name contains one of the substrings.
pub fn load_cases() -> Vec<Case> {
    let filter: Vec<String> = std::env::var("MAJOR_CASES")
        .ok()
        .map(|v| {
            v.split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    case_dirs()
        .iter()
        .map(|d| load_case(d).unwrap_or_else(|e| panic!("{e}")))
        .filter(|c| filter.is_empty() || filter.iter().any(|f| c.name.contains(f.as_str())))
        .collect()
}

/// Problems with one case's layout (empty when well-formed).
pub fn check_case(case: &Case) -> Vec<String> {
    let mut problems = Vec::new();
    let mut problem = |m: String| problems.push(format!("{}: {m}", case.name));
    let bytes = case.name.as_bytes();
    if case.name.len() < 5 || !bytes[..3].iter().all(u8::is_ascii_digit) || bytes[3] != b'-' {
        problem("directory name is not NNN-short-name".into());
    }
    if case.description.trim().is_empty() {
        problem("empty description".into());
    }
    match std::fs::read_to_string(case.expected_path()) {
        Ok(s) if s.trim().is_empty() => problem("expected.txt is empty".into()),
        Ok(_) => {}
        Err(e) => problem(format!("expected.txt: {e}")),
    }
    if case.aspects.is_empty() {
        problem("no aspects".into());
    }
    for a in &case.aspects {
        let ext = a.extension().and_then(|e| e.to_str()).unwrap_or("");
        let file = a.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !a.is_file() {
            problem(format!("aspect {} does not exist", a.display()));
        } else if !(ext == "aj" || (ext == "java" && file.ends_with("Aspect.java"))) {
            problem(format!("aspect {file} is neither .aj nor *Aspect.java"));
        }
    }
    let main_file = format!("{}.java", case.main.replace('.', "/"));
    if !case.program_sources.iter().any(|p| p.ends_with(&main_file)) {
        problem(format!("no program source {main_file} for main class"));
    }
    if case.features.is_empty() {
        problem("no features".into());
    }
    for f in &case.features {
        if !FEATURES.contains(&f.as_str()) {
            problem(format!("unknown feature tag {f:?}"));
        }
    }
    if case.release.parse::<u32>().map_or(true, |r| r < 8) {
        problem(format!("bad release {:?}", case.release));
    }
    if case.ajc && case.release.parse::<u32>().is_ok_and(|r| r > 13) {
        problem("ajc 1.9.5 reads class files up to Java 13: set ajc = false".into());
    }
    if !case.ajc && !case.description.contains("ajc") {
        problem("ajc = false: the description must say why".into());
    }
    let leftovers: Vec<String> = std::fs::read_dir(&case.dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with("ajcore") || n.ends_with(".class"))
        .collect();
    if !leftovers.is_empty() {
        problem(format!("stray files {leftovers:?}"));
    }
    problems
}

/// Feature tags of [`FEATURES`] that no case carries.
pub fn uncovered_features(cases: &[Case]) -> Vec<&'static str> {
    let seen: BTreeSet<&str> = cases
        .iter()
        .flat_map(|c| c.features.iter().map(String::as_str))
        .collect();
    FEATURES
        .iter()
        .copied()
        .filter(|f| !seen.contains(f))
        .collect()
}

fn jdk_tool(name: &str) -> PathBuf {
    match crate::jdk17() {
        Some(home) => home.join("bin").join(name),
        None => PathBuf::from(name),
    }
}

fn output_text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Compiles the case's program (not its aspects) with JDK 17's `javac
/// --release <release> -g` into `out_dir`.
pub fn compile_program(case: &Case, out_dir: &Path) -> Result<(), String> {
    let out = Command::new(jdk_tool("javac"))
        .args(["-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"])
        .args([
            "--release",
            &case.release,
            if case.debug { "-g" } else { "-g:none" },
            "-nowarn",
            "-encoding",
            "UTF-8",
            "-d",
        ])
        .arg(out_dir)
        .args(&case.program_sources)
        .output()
        .map_err(|e| format!("{}: running javac: {e}", case.name))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}: javac failed:\n{}",
            case.name,
            output_text(&out)
        ))
    }
}

/// Runs `main` with JDK 17's `java -Xverify:all` on the class path; returns
/// stdout, stderr and the exit status.
pub fn run_java(classpath: &[&Path], main: &str) -> (String, String, ExitStatus) {
    let cp = std::env::join_paths(classpath).expect("class path");
    let out = Command::new(jdk_tool("java"))
        .args([
            "-Xverify:all",
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
        ])
        .arg("-cp")
        .arg(cp)
        .arg(main)
        .output()
        .expect("run java");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status,
    )
}

fn on_path(cmd: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(cmd).is_file()))
}

/// Whether ajc (and its runtime library) is installed.
pub fn ajc_available() -> bool {
    Path::new(ASPECTJRT).is_file() && (Path::new(ASPECTJTOOLS).is_file() || on_path("ajc"))
}

/// The ajc command: AspectJ's compiler run directly from `aspectjtools.jar`
/// with a quick-starting JVM (heap up to 512 MB) where the jar is found, else
/// the `ajc` script.
pub fn ajc_command() -> Command {
    if Path::new(ASPECTJTOOLS).is_file() {
        let mut c = Command::new(jdk_tool("java"));
        c.args([
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Xmx512m",
            "-cp",
        ])
        .arg(format!("{ASPECTJTOOLS}:{ASPECTJRT}"))
        .arg("org.aspectj.tools.ajc.Main");
        c
    } else {
        Command::new("ajc")
    }
}

/// Builds the case with ajc into `work/woven` (see the module documentation),
/// using `work` as scratch space.
pub fn ajc_weave(case: &Case, work: &Path) -> Result<PathBuf, String> {
    let woven = work.join("woven");
    std::fs::create_dir_all(&woven).map_err(|e| e.to_string())?;
    let mut cmd = ajc_command();
    cmd.current_dir(work) // ajc drops ajcore.*.txt dumps into the working directory
        .args(["-11", "-encoding", "UTF-8", "-cp", ASPECTJRT, "-d"])
        .arg(&woven);
    match case.ajc_mode {
        AjcMode::Inpath => {
            let classes = work.join("classes");
            std::fs::create_dir_all(&classes).map_err(|e| e.to_string())?;
            compile_program(case, &classes)?;
            cmd.arg("-inpath").arg(&classes);
        }
        AjcMode::Source => {
            cmd.args(&case.program_sources);
        }
    }
    cmd.args(&case.aspects);
    let out = cmd
        .output()
        .map_err(|e| format!("{}: running ajc: {e}", case.name))?;
    if out.status.success() {
        Ok(woven)
    } else {
        Err(format!("{}: ajc failed:\n{}", case.name, output_text(&out)))
    }
}

/// The stdout of the case's program woven by ajc.
pub fn ajc_output(case: &Case) -> Result<String, String> {
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    let woven = ajc_weave(case, work.path())?;
    let (stdout, stderr, status) = run_java(&[&woven, Path::new(ASPECTJRT)], &case.main);
    if status.success() {
        Ok(stdout)
    } else {
        Err(format!(
            "{}: woven program exited with {status}\nstdout:\n{stdout}\nstderr:\n{stderr}",
            case.name
        ))
    }
}

/// A short description of where two outputs first differ.
pub fn first_difference(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    for i in 0..e.len().max(a.len()) {
        let (el, al) = (e.get(i), a.get(i));
        if el != al {
            return format!(
                "line {}:\n  expected: {}\n  actual:   {}",
                i + 1,
                el.map_or("<end of output>".to_string(), |s| format!("{s:?}")),
                al.map_or("<end of output>".to_string(), |s| format!("{s:?}"))
            );
        }
    }
    "outputs differ only in line endings or a final newline".to_string()
}
