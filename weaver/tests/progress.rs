//! The progress bar: drawn on a terminal once a weave has run for the delay
//! (`MAJOR_PROGRESS_DELAY_MS`, 1 s by default; 0 here so that any weave
//! qualifies), never when standard error is a pipe (CI, build tools).

use std::path::{Path, PathBuf};
use std::process::Command;

use major_weaver::jdk::Jdk;

/// A compiled one-class program and an aspect advising it, in `dir`.
fn program(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
        eprintln!("SKIP: no JDK with javac (set JAVA_HOME)");
        return None;
    };
    let src = dir.join("Main.java");
    std::fs::write(
        &src,
        "package app;\npublic class Main {\n    public static void main(String[] a) {\n        System.out.println(\"hi\");\n    }\n}\n",
    )
    .unwrap();
    let classes = dir.join("classes");
    let o = Command::new(jdk.javac().unwrap())
        .args(["--release", "11", "-d"])
        .arg(&classes)
        .arg(&src)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let aspect = dir.join("Hello.aj");
    std::fs::write(
        &aspect,
        "aspect Hello {\n    before(): execution(* app.Main.main(..)) {\n        System.out.println(\"hello\");\n    }\n}\n",
    )
    .unwrap();
    Some((classes, aspect))
}

/// What a progress bar leaves in the output: its text, or the terminal
/// control characters that redraw it.
fn has_progress(text: &str) -> bool {
    text.contains("weaving [") || text.contains('\r') || text.contains('\u{1b}')
}

#[test]
fn a_weave_with_stderr_not_a_terminal_prints_no_progress() {
    let dir = tempfile::tempdir().unwrap();
    let Some((classes, aspect)) = program(dir.path()) else {
        return;
    };
    let o = Command::new(env!("CARGO_BIN_EXE_major"))
        .env("MAJOR_PROGRESS_DELAY_MS", "0")
        .arg("weave")
        .arg("--no-cache")
        .arg("-a")
        .arg(&aspect)
        .arg(&classes)
        .arg("-o")
        .arg(dir.path().join("out.jar"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("woven 1 of 1 classes"), "{err}");
    assert!(!has_progress(&err), "progress output on a pipe:\n{err:?}");
    assert!(o.stdout.is_empty());
}

#[test]
fn a_weave_on_a_terminal_draws_the_bar() {
    // The counterpart of the test above, so that it cannot pass for a bar
    // that is never drawn: `script` gives the weave a pseudo-terminal.
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIP: no `script` (util-linux) to run the weave on a pseudo-terminal");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some((classes, aspect)) = program(dir.path()) else {
        return;
    };
    let line = format!(
        "'{}' weave --no-cache -a '{}' '{}' -o '{}'",
        env!("CARGO_BIN_EXE_major"),
        aspect.display(),
        classes.display(),
        dir.path().join("out.jar").display()
    );
    let o = Command::new("script")
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .env("MAJOR_PROGRESS_DELAY_MS", "0")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("weaving ["), "no bar on a terminal:\n{out:?}");
    assert!(out.contains("1/1 entries"), "{out:?}");
    // Cleared before the summary.
    assert!(out.contains("\u{1b}[2Kwoven 1 of 1 classes"), "{out:?}");
}
