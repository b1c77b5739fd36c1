//! What `-o` may replace (`major weave` and `major check`): never the files of
//! the user (a non-empty directory or a file major did not write), never an
//! input, unless `--force`; outputs major wrote may be written again; stale
//! temporaries of killed runs are cleaned; a woven jar or class file keeps
//! its input's permission bits.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use major_weaver::jdk::Jdk;

const ASPECT: &str = r#"aspect Hello {
    before(): execution(* app.Main.main(..)) {
        System.out.println("hello");
    }
}
"#;

const MAIN: &str = r#"package app;

public class Main {
    public static void main(String[] args) {
        System.out.println("main");
    }
}
"#;

/// A temporary directory with `classes/app/Main.class`, `in.jar` (the same,
/// written by the JDK's `jar` tool), `Hello.aj` and a private aspect cache.
struct Fixture {
    dir: tempfile::TempDir,
    jdk: Jdk,
}

impl Fixture {
    fn new() -> Option<Fixture> {
        let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
            eprintln!("SKIP: no JDK with javac");
            return None;
        };
        let jar_tool = jdk.home.join("bin/jar");
        if !jar_tool.is_file() {
            eprintln!("SKIP: no jar tool in {}", jdk.home.display());
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("Main.java");
        std::fs::write(&src, MAIN).unwrap();
        let classes = dir.path().join("classes");
        run_ok(
            Command::new(jdk.javac().unwrap())
                .args(["--release", "11", "-d"])
                .arg(&classes)
                .arg(&src),
        );
        std::fs::remove_file(&src).unwrap();
        run_ok(
            Command::new(jar_tool)
                .arg("--create")
                .arg("--file")
                .arg(dir.path().join("in.jar"))
                .arg("-C")
                .arg(&classes)
                .arg("."),
        );
        std::fs::write(dir.path().join("Hello.aj"), ASPECT).unwrap();
        Some(Fixture { dir, jdk })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `major weave --aspect Hello.aj INPUT -o OUT` run in the fixture's
    /// directory, plus `more`.
    fn weave(&self, input: &str, out: &str, more: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_major"))
            .current_dir(self.dir.path())
            .arg("weave")
            .arg("--jdk")
            .arg(&self.jdk.home)
            .arg("--cache-dir")
            .arg(self.path(".cache"))
            .args(["--aspect", "Hello.aj", input, "-o", out])
            .args(more)
            .output()
            .unwrap()
    }

    /// `major check --reframe INPUT -o OUT` in the fixture's directory, plus `more`.
    fn check(&self, input: &str, out: &str, more: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_major"))
            .current_dir(self.dir.path())
            .arg("check")
            .arg("--jdk")
            .arg(&self.jdk.home)
            .args(["--reframe", input, "-o", out])
            .args(more)
            .output()
            .unwrap()
    }

    /// Runs the woven program; its output.
    fn java(&self, cp: &str) -> String {
        let o = Command::new(self.jdk.java())
            .current_dir(self.dir.path())
            .args(["-cp", cp, "app.Main"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        String::from_utf8(o.stdout).unwrap()
    }
}

fn run_ok(c: &mut Command) {
    let o = c.output().unwrap();
    assert!(o.status.success(), "{c:?}: {}", text(&o));
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Requires a refusal: exit code 2, a message naming `what` and `--force`.
fn refused(o: &Output, what: &str) {
    let t = text(o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("not replaced") && t.contains("--force"), "{t}");
    assert!(t.contains(what), "the message should name {what}: {t}");
}

fn succeeded(o: &Output) {
    assert!(o.status.success(), "{}", text(o));
}

/// The names in a directory, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

#[test]
fn weave_into_the_current_directory_is_refused() {
    let Some(f) = Fixture::new() else { return };
    std::fs::write(f.path("notes.txt"), b"my notes").unwrap();
    let before = listing(f.dir.path());
    // `-o "$PWD"`: the directory holds the input and the user's files.
    let here = f.dir.path().to_str().unwrap().to_owned();
    refused(&f.weave("classes", &here, &[]), "classes");
    refused(&f.weave("in.jar", ".", &[]), "in.jar");
    assert_eq!(listing(f.dir.path()), before);
    assert_eq!(std::fs::read(f.path("notes.txt")).unwrap(), b"my notes");
    // A non-empty directory that is no input and that major did not write.
    std::fs::create_dir(f.path("docs")).unwrap();
    std::fs::write(f.path("docs/readme"), b"keep me").unwrap();
    refused(&f.weave("in.jar", "docs", &[]), "`readme`");
    refused(&f.check("in.jar", "docs", &[]), "readme");
    assert_eq!(std::fs::read(f.path("docs/readme")).unwrap(), b"keep me");
    // --force replaces it.
    succeeded(&f.weave("in.jar", "docs", &["--force"]));
    assert!(!f.path("docs/readme").exists());
    assert_eq!(f.java("docs"), "hello\nmain\n");
}

#[test]
fn an_existing_file_major_did_not_write_is_refused() {
    let Some(f) = Fixture::new() else { return };
    std::fs::write(f.path("notes.txt"), b"my notes").unwrap();
    // A directory output over a text file.
    refused(&f.weave("in.jar", "notes.txt", &[]), "did not write");
    refused(&f.check("in.jar", "notes.txt", &[]), "did not write");
    // A jar output over a jar of someone else's.
    std::fs::copy(f.path("in.jar"), f.path("other.jar")).unwrap();
    let other = std::fs::read(f.path("other.jar")).unwrap();
    refused(&f.weave("in.jar", "other.jar", &[]), "other.jar");
    refused(&f.check("in.jar", "other.jar", &[]), "other.jar");
    assert!(f.path("notes.txt").is_file());
    assert_eq!(std::fs::read(f.path("notes.txt")).unwrap(), b"my notes");
    assert_eq!(std::fs::read(f.path("other.jar")).unwrap(), other);
}

#[test]
fn an_output_that_is_an_input_is_refused_unless_forced() {
    let Some(f) = Fixture::new() else { return };
    let jar = std::fs::read(f.path("in.jar")).unwrap();
    refused(&f.weave("in.jar", "in.jar", &[]), "also an input");
    refused(&f.weave("classes", "./classes/", &[]), "also an input");
    refused(&f.check("in.jar", "in.jar", &[]), "also an input");
    refused(&f.check("classes", "classes", &[]), "also an input");
    // An output inside an input directory.
    refused(&f.weave("classes", "classes/woven", &[]), "inside");
    assert_eq!(std::fs::read(f.path("in.jar")).unwrap(), jar);
    assert_eq!(listing(&f.path("classes")), ["app"]);
    // Weaving in place, on purpose.
    succeeded(&f.weave("in.jar", "in.jar", &["--force"]));
    assert_eq!(f.java("in.jar"), "hello\nmain\n");
}

#[test]
fn outputs_major_wrote_are_replaced_until_the_user_adds_to_them() {
    let Some(f) = Fixture::new() else { return };
    for out in ["woven.jar", "woven"] {
        succeeded(&f.weave("in.jar", out, &[]));
        succeeded(&f.weave("classes", out, &[]));
        assert_eq!(f.java(out), "hello\nmain\n");
    }
    succeeded(&f.check("in.jar", "woven", &[]));
    succeeded(&f.check("classes", "checked.jar", &[]));
    succeeded(&f.check("classes", "checked.jar", &[]));
    // An empty directory is fine too.
    std::fs::create_dir(f.path("empty")).unwrap();
    succeeded(&f.weave("in.jar", "empty", &[]));
    // The directory output, weaved again as an input, has no manifest entry.
    succeeded(&f.weave("woven", "again.jar", &[]));
    let again = major_archive::Archive::open(&f.path("again.jar")).unwrap();
    assert!(again
        .entries()
        .iter()
        .all(|e| e.name != major_archive::DIR_MANIFEST));
    // A file the user put into the output makes it theirs.
    std::fs::write(f.path("woven/app/Notes.txt"), b"mine").unwrap();
    refused(&f.weave("in.jar", "woven", &[]), "app/Notes.txt");
    refused(&f.check("in.jar", "woven", &[]), "app/Notes.txt");
    assert!(f.path("woven/app/Notes.txt").exists());
}

#[test]
fn stale_temporaries_of_killed_runs_are_removed() {
    let Some(f) = Fixture::new() else { return };
    // A process that has exited: its pid is no longer live.
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let live = std::process::id();
    // What a run killed while writing leaves: the temporary of the output
    // (a jar; a directory) and a directory output moved aside.
    let stale = [
        format!(".woven.jar.major-tmp-{dead}-0"),
        format!(".woven.major-tmp-{dead}-1"),
        format!(".woven.major-old-{dead}-2"),
    ];
    std::fs::write(f.path(&stale[0]), b"PK half a jar").unwrap();
    for d in &stale[1..] {
        std::fs::create_dir_all(f.path(d).join("app")).unwrap();
        std::fs::write(f.path(d).join("app/Main.class"), b"half").unwrap();
    }
    // Another run still writing (this process is alive): left alone.
    let running = format!(".woven.jar.major-tmp-{live}-0");
    std::fs::write(f.path(&running), b"in progress").unwrap();
    // Someone else's file with a similar name: left alone.
    std::fs::write(f.path(".woven.jar.major-tmp-notes"), b"x").unwrap();

    succeeded(&f.weave("in.jar", "woven.jar", &[]));
    succeeded(&f.weave("in.jar", "woven", &[]));
    let left = listing(f.dir.path());
    for s in &stale {
        assert!(!left.contains(s), "{s} left behind: {left:?}");
    }
    assert!(left.contains(&running), "{left:?}");
    assert!(left.contains(&".woven.jar.major-tmp-notes".to_string()));

    // A run killed for real, then a new one: nothing hidden is left.
    std::fs::remove_file(f.path(&running)).unwrap();
    std::fs::remove_file(f.path(".woven.jar.major-tmp-notes")).unwrap();
    for delay_ms in [50, 300, 800] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_major"))
            .current_dir(f.dir.path())
            .arg("weave")
            .arg("--jdk")
            .arg(&f.jdk.home)
            .args([
                "--no-cache",
                "--aspect",
                "Hello.aj",
                "in.jar",
                "-o",
                "woven.jar",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = c.kill();
        c.wait().unwrap();
        succeeded(&f.weave("in.jar", "woven.jar", &[]));
        let hidden: Vec<_> = listing(f.dir.path())
            .into_iter()
            .filter(|n| n.contains(".major-"))
            .collect();
        assert!(hidden.is_empty(), "{hidden:?}");
    }
}

#[test]
fn woven_outputs_keep_the_modes_of_their_inputs() {
    let Some(f) = Fixture::new() else { return };
    let class = f.path("classes/app/Main.class");
    std::fs::set_permissions(&class, std::fs::Permissions::from_mode(0o640)).unwrap();
    let data = f.path("classes/app/run.sh");
    std::fs::write(&data, b"#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o750)).unwrap();
    std::fs::set_permissions(f.path("in.jar"), std::fs::Permissions::from_mode(0o600)).unwrap();

    succeeded(&f.weave("classes", "woven", &[]));
    assert_eq!(mode(&f.path("woven/app/Main.class")), 0o640);
    assert_eq!(mode(&f.path("woven/app/run.sh")), 0o750);
    assert_eq!(f.java("woven"), "hello\nmain\n");
    succeeded(&f.weave("in.jar", "woven.jar", &[]));
    assert_eq!(mode(&f.path("woven.jar")), 0o600);
    succeeded(&f.check("in.jar", "checked.jar", &[]));
    assert_eq!(mode(&f.path("checked.jar")), 0o600);
    succeeded(&f.check("classes", "checked", &[]));
    assert_eq!(mode(&f.path("checked/app/Main.class")), 0o640);
}
