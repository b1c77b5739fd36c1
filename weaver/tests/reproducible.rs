//! Reproducibility: the same inputs give the same output bytes whatever the
//! inputs' paths and modification times, the working directory, the thread
//! count, the aspect cache (cold, warm or off) and the time of the run. Guava
//! is woven with ObjectTracker from two copies of the inputs at different
//! paths and depths, by the `major` binary run from different directories,
//! into a jar and into a directory, and the outputs are compared byte for
//! byte; the JSON reports too, but for their paths and timings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const GUAVA: &str = "/usr/share/java/guava.jar";

fn aspect_source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../aspects/ObjectTracker.aj")
}

/// Guava and a JDK with javac, or `None` after printing why the test is skipped.
fn prerequisites() -> Option<()> {
    if !Path::new(GUAVA).is_file() {
        eprintln!("SKIP: {GUAVA} is absent (Debian package libguava-java)");
        return None;
    }
    if major_weaver::jdk::Jdk::find()
        .and_then(|j| j.javac())
        .is_none()
    {
        eprintln!("SKIP: no JDK with javac (set JAVA_HOME)");
        return None;
    }
    Some(())
}

/// One copy of the inputs: `<root>/<sub>/lib/guava.jar` and
/// `<root>/<sub>/aspects/ObjectTracker.aj`, with the given modification time.
struct Copy {
    jar: PathBuf,
    aspect: PathBuf,
}

fn copy_inputs(root: &Path, sub: &str, mtime: std::time::SystemTime) -> Copy {
    let base = root.join(sub);
    std::fs::create_dir_all(base.join("lib")).unwrap();
    std::fs::create_dir_all(base.join("aspects")).unwrap();
    let jar = base.join("lib/guava.jar");
    let aspect = base.join("aspects/ObjectTracker.aj");
    std::fs::copy(GUAVA, &jar).unwrap();
    std::fs::copy(aspect_source(), &aspect).unwrap();
    for p in [&jar, &aspect] {
        std::fs::File::options()
            .append(true)
            .open(p)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
    }
    Copy { jar, aspect }
}

/// Runs `major weave` in `cwd` with `threads` worker threads and extra
/// arguments; panics with its stderr if it fails.
fn weave(cwd: &Path, threads: &str, args: &[&std::ffi::OsStr]) {
    let o = Command::new(env!("CARGO_BIN_EXE_major"))
        .current_dir(cwd)
        .env("RAYON_NUM_THREADS", threads)
        .arg("weave")
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "major weave {args:?} in {}: {}",
        cwd.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Every file under `dir` (relative path → bytes).
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(dir).unwrap().to_path_buf(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// The report without what names paths or measures time.
fn report_without_paths_and_timings(file: &Path) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    let o = v.as_object_mut().unwrap();
    for k in ["timings", "inputs", "aspects", "output"] {
        assert!(o.remove(k).is_some(), "the report has no {k}");
    }
    for a in o["advice"].as_array_mut().unwrap() {
        let a = a.as_object_mut().unwrap();
        a.remove("file");
        a.remove("description");
    }
    v
}

#[test]
fn guava_woven_from_two_places_is_byte_identical() {
    let Some(()) = prerequisites() else { return };
    let root = tempfile::tempdir().unwrap();
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    let a = copy_inputs(root.path(), "one", old);
    let b = copy_inputs(
        root.path(),
        "two/deeper/still",
        std::time::SystemTime::now(),
    );
    let elsewhere = root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let cache = root.path().join("cache");

    // A: relative paths from the copy's directory, one thread, no cache.
    let a_dir = root.path().join("one");
    let rel = |p: &Path| p.strip_prefix(&a_dir).unwrap().as_os_str().to_owned();
    for (out, report) in [("out.jar", "out.json"), ("out", "out-dir.json")] {
        let report = format!("json={report}");
        weave(
            &a_dir,
            "1",
            &[
                "--no-cache".as_ref(),
                "-a".as_ref(),
                &rel(&a.aspect),
                &rel(&a.jar),
                "-o".as_ref(),
                out.as_ref(),
                "--report".as_ref(),
                report.as_ref(),
            ],
        );
    }
    // B: absolute paths from another directory, two threads, through the
    // aspect cache (the jar's weave fills it, the directory's hits it).
    let b_out = root.path().join("two/woven");
    std::fs::create_dir_all(&b_out).unwrap();
    for (out, report) in [("out.jar", "out.json"), ("out", "out-dir.json")] {
        let report = format!("json={}", b_out.join(report).display());
        weave(
            &elsewhere,
            "2",
            &[
                "--cache-dir".as_ref(),
                cache.as_os_str(),
                "-a".as_ref(),
                b.aspect.as_os_str(),
                b.jar.as_os_str(),
                "-o".as_ref(),
                b_out.join(out).as_os_str(),
                "--report".as_ref(),
                report.as_ref(),
            ],
        );
    }

    let jar_a = std::fs::read(a_dir.join("out.jar")).unwrap();
    let jar_b = std::fs::read(b_out.join("out.jar")).unwrap();
    assert!(
        jar_a.len() > 1_000_000,
        "a woven guava: {} bytes",
        jar_a.len()
    );
    assert!(
        jar_a == jar_b,
        "the woven jars differ ({} and {} bytes)",
        jar_a.len(),
        jar_b.len()
    );
    // The output really is woven (not a copy of the input).
    assert_ne!(jar_a, std::fs::read(GUAVA).unwrap());

    let dir_a = tree(&a_dir.join("out"));
    let dir_b = tree(&b_out.join("out"));
    assert!(
        dir_a.len() > 2000,
        "{} files in the woven directory",
        dir_a.len()
    );
    assert_eq!(
        dir_a.keys().collect::<Vec<_>>(),
        dir_b.keys().collect::<Vec<_>>(),
        "the woven directories hold different files"
    );
    let differing: Vec<&PathBuf> = dir_a
        .iter()
        .filter(|(p, bytes)| dir_b[*p] != **bytes)
        .map(|(p, _)| p)
        .collect();
    assert!(differing.is_empty(), "files that differ: {differing:?}");

    // The reports agree but for paths and timings; the jar's and the
    // directory's agree on what was woven.
    for r in ["out.json", "out-dir.json"] {
        assert_eq!(
            report_without_paths_and_timings(&a_dir.join(r)),
            report_without_paths_and_timings(&b_out.join(r)),
            "{r}"
        );
    }
}

#[test]
fn a_second_run_at_another_time_gives_the_same_bytes() {
    let Some(()) = prerequisites() else { return };
    let root = tempfile::tempdir().unwrap();
    let a = copy_inputs(root.path(), "in", std::time::SystemTime::now());
    let first = root.path().join("first.jar");
    let second = root.path().join("second.jar");
    weave(
        root.path(),
        "2",
        &[
            "--no-cache".as_ref(),
            "-a".as_ref(),
            a.aspect.as_os_str(),
            a.jar.as_os_str(),
            "-o".as_ref(),
            first.as_os_str(),
        ],
    );
    // Zip timestamps have a resolution of two seconds: a run in another
    // two-second slot would show a timestamp taken from the clock.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    weave(
        root.path(),
        "1",
        &[
            "--no-cache".as_ref(),
            "-a".as_ref(),
            a.aspect.as_os_str(),
            a.jar.as_os_str(),
            "-o".as_ref(),
            second.as_os_str(),
        ],
    );
    assert!(std::fs::read(&first).unwrap() == std::fs::read(&second).unwrap());
}
