//! `major demo`: the built-in example of the main job. A small Java program
//! (records, a lambda, string concatenation) is compiled with javac, woven with
//! the ObjectTracker aspect (every constructor call) and a tracer (around
//! advice, `thisJoinPoint`), and run under `java -Xverify:all`; then the JDK's
//! own `java.base` is woven with ObjectTracker (full coverage) and the program
//! runs on it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::jdk::Jdk;
use crate::report::MajorError;
use crate::weave_run::{self, WeaveOptions};

/// The program, as a source file.
const MAIN_JAVA: &str = include_str!("../demo/Main.java");
/// The tracer aspect.
const TRACE_AJ: &str = include_str!("../demo/Trace.aj");
/// The object tracker of the MAJOR paper.
const OBJECT_TRACKER_AJ: &str = include_str!("../../aspects/ObjectTracker.aj");

/// Runs the demo in `dir` (a temporary directory when `None`), with aspects
/// cached in `cache`; returns whether the woven program ran successfully.
pub fn run(jdk: &Jdk, dir: Option<&Path>, cache: Option<PathBuf>) -> Result<bool, MajorError> {
    let temp;
    let dir = match dir {
        Some(d) => d.to_path_buf(),
        None => {
            temp = tempfile::tempdir().map_err(|e| {
                MajorError::Usage(format!("cannot create a temporary directory: {e}"))
            })?;
            temp.path().to_path_buf()
        }
    };
    let write = |name: &str, text: &str| -> Result<PathBuf, MajorError> {
        let p = dir.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| MajorError::Usage(format!("{}: {e}", parent.display())))?;
        }
        std::fs::write(&p, text).map_err(|e| MajorError::Usage(format!("{}: {e}", p.display())))?;
        Ok(p)
    };
    let main = write("src/Main.java", MAIN_JAVA)?;
    let aspects = vec![
        write("aspects/ObjectTracker.aj", OBJECT_TRACKER_AJ)?,
        write("aspects/Trace.aj", TRACE_AJ)?,
    ];
    let javac = jdk.javac().ok_or_else(|| {
        MajorError::Usage(format!(
            "{}: no javac in this JDK (install a full JDK, e.g. openjdk-17-jdk-headless)",
            jdk.home.display()
        ))
    })?;
    let classes = dir.join("classes");
    eprintln!("demo: compiling {} with javac", main.display());
    let o = Command::new(&javac)
        .args(["-nowarn", "-d"])
        .arg(&classes)
        .arg(&main)
        .output()
        .map_err(|e| MajorError::Usage(format!("{}: {e}", javac.display())))?;
    if !o.status.success() {
        return Err(MajorError::Usage(format!(
            "javac failed on the demo program:\n{}",
            String::from_utf8_lossy(&o.stderr)
        )));
    }
    let woven = dir.join("woven");
    eprintln!(
        "demo: major weave --aspect aspects/ObjectTracker.aj --aspect aspects/Trace.aj classes -o woven"
    );
    let cache_again = cache.clone();
    let report = weave_run::run(&WeaveOptions {
        aspects,
        inputs: vec![classes.clone()],
        output: woven.clone(),
        classpath: Vec::new(),
        jdk: jdk.clone(),
        bundle_runtime: true,
        strict: false,
        full_coverage: false,
        cache: cache.clone(),
        jars: Default::default(),
        modules: Vec::new(),
    })?;
    weave_run::print_report(&report, &woven, true);
    eprintln!("demo: java -Xverify:all -cp woven Main");
    let status = Command::new(jdk.java())
        .args(["-Xverify:all", "-cp"])
        .arg(&woven)
        .arg("Main")
        .status()
        .map_err(|e| MajorError::Usage(format!("{}: {e}", jdk.java().display())))?;
    if !status.success() {
        return Ok(false);
    }

    // Full coverage: the class library itself woven with ObjectTracker, and
    // the program run on it.
    let jmod = jdk.home.join("jmods/java.base.jmod");
    if !jmod.is_file() {
        eprintln!(
            "demo: {} has no jmods/java.base.jmod: the full-coverage part is left out \
             (Debian: apt-get install openjdk-17-jmods)",
            jdk.home.display()
        );
        return Ok(true);
    }
    let patch = dir.join("jdk/java.base.jar");
    eprintln!(
        "demo: major weave --full-coverage --aspect aspects/ObjectTracker.aj {} -o jdk/java.base.jar",
        jmod.display()
    );
    let report = weave_run::run(&WeaveOptions {
        aspects: vec![dir.join("aspects/ObjectTracker.aj")],
        inputs: vec![jmod],
        output: patch.clone(),
        classpath: Vec::new(),
        jdk: jdk.clone(),
        bundle_runtime: true,
        strict: false,
        full_coverage: true,
        cache: cache_again,
        jars: Default::default(),
        modules: Vec::new(),
    })?;
    weave_run::print_report(&report, &patch, true);
    eprintln!(
        "demo: java -Xverify:all --patch-module java.base=jdk/java.base.jar -cp classes Main"
    );
    let status = Command::new(jdk.java())
        .args(["-Xverify:all", "--patch-module"])
        .arg(format!("java.base={}", patch.display()))
        .arg("-cp")
        .arg(&classes)
        .arg("Main")
        .status()
        .map_err(|e| MajorError::Usage(format!("{}: {e}", jdk.java().display())))?;
    Ok(status.success())
}
