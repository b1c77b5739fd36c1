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
        bypass: Default::default(),
        cache: cache.clone(),
        jars: Default::default(),
        modules: Vec::new(),
        class_records: true,
    })?;
    weave_run::print_report(&report, &woven, true, &mut std::io::stderr());
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

    // Full coverage: the whole JDK (every module of its run-time image)
    // woven with ObjectTracker together with the program, and the program
    // run on it: the class library's allocations are counted too.
    let woven_jdk = dir.join("jdk");
    eprintln!("demo: major weave --jdk --aspect aspects/ObjectTracker.aj classes -o jdk");
    let (report, w) = crate::woven_jdk::weave(&crate::woven_jdk::JdkWeaveOptions {
        form: Default::default(),
        aspects: vec![dir.join("aspects/ObjectTracker.aj")],
        jdk: jdk.clone(),
        modules: Vec::new(),
        inputs: vec![classes.clone()],
        classpath: Vec::new(),
        output: woven_jdk.clone(),
        cache: cache_again,
        strict: false,
        signed_jars: Default::default(),
        bypass: Default::default(),
    })?;
    weave_run::print_report(&report, &woven_jdk, true, &mut std::io::stderr());
    eprintln!(
        "demo: woven JDK {} ({:?}): {} modules woven; major run jdk -- -Xverify:all -cp jdk/app/classes Main",
        w.version,
        w.form,
        w.modules.len()
    );
    let status = w
        .command(&[
            "-Xverify:all".into(),
            "-cp".into(),
            w.woven_input(&classes)
                .unwrap_or_else(|| woven_jdk.join("classes"))
                .into_os_string(),
            "Main".into(),
        ])
        .status()
        .map_err(|e| MajorError::Usage(format!("{}: {e}", jdk.java().display())))?;
    Ok(status.success())
}
