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
            .arg("--java-home")
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
    // An archive of the class path is read too.
    std::fs::copy(f.path("in.jar"), f.path("lib.jar")).unwrap();
    refused(
        &f.weave("classes", "lib.jar", &["--classpath", "lib.jar"]),
        "also an input",
    );
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

    // Runs killed for real at several points (the aspects come from the
    // cache, so no javac is left running), then a new one: nothing hidden
    // is left.
    std::fs::remove_file(f.path(&running)).unwrap();
    std::fs::remove_file(f.path(".woven.jar.major-tmp-notes")).unwrap();
    for delay_ms in [5, 20, 40, 80, 150] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_major"))
            .current_dir(f.dir.path())
            .arg("weave")
            .arg("--java-home")
            .arg(&f.jdk.home)
            .arg("--cache-dir")
            .arg(f.path(".cache"))
            .args(["--aspect", "Hello.aj", "in.jar", "-o", "woven.jar"])
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

/// Raw deflate data of `size` zero bytes, best compression (~1000:1).
fn deflated_zeros(size: u64) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    let chunk = vec![0u8; 1 << 20];
    let mut left = size;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        enc.write_all(&chunk[..n]).unwrap();
        left -= n as u64;
    }
    enc.finish().unwrap()
}

/// A zip of `count` entries `p/Bomb{i}.class`, each `size` (< 4 GiB) zero
/// bytes deflated: a zip bomb of class entries, written by hand.
fn class_bomb(path: &Path, count: usize, size: u64) {
    let data = deflated_zeros(size);
    let mut crc = crc32fast::Hasher::new();
    let chunk = vec![0u8; 1 << 20];
    let mut left = size;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        crc.update(&chunk[..n]);
        left -= n as u64;
    }
    let crc = crc.finalize();
    let size = u32::try_from(size).unwrap();
    let packed = u32::try_from(data.len()).unwrap();
    let mut zip = Vec::new();
    let mut central = Vec::new();
    let u16le = |v: &mut Vec<u8>, x: u16| v.extend_from_slice(&x.to_le_bytes());
    let u32le = |v: &mut Vec<u8>, x: u32| v.extend_from_slice(&x.to_le_bytes());
    for i in 0..count {
        let name = format!("p/Bomb{i}.class");
        let offset = zip.len() as u32;
        // Local header: version, flags, method 8, time, date, crc, sizes, name.
        u32le(&mut zip, 0x0403_4b50);
        for x in [20, 0, 8, 0, 0x21] {
            u16le(&mut zip, x);
        }
        for x in [crc, packed, size] {
            u32le(&mut zip, x);
        }
        u16le(&mut zip, name.len() as u16);
        u16le(&mut zip, 0);
        zip.extend_from_slice(name.as_bytes());
        zip.extend_from_slice(&data);
        // Central directory record.
        u32le(&mut central, 0x0201_4b50);
        for x in [0x0314, 20, 0, 8, 0, 0x21] {
            u16le(&mut central, x);
        }
        for x in [crc, packed, size] {
            u32le(&mut central, x);
        }
        for x in [name.len() as u16, 0, 0, 0, 0] {
            u16le(&mut central, x);
        }
        u32le(&mut central, 0o100644 << 16);
        u32le(&mut central, offset);
        central.extend_from_slice(name.as_bytes());
    }
    let start = zip.len() as u32;
    zip.extend_from_slice(&central);
    u32le(&mut zip, 0x0605_4b50);
    for x in [0, 0, count as u16, count as u16] {
        u16le(&mut zip, x);
    }
    u32le(&mut zip, central.len() as u32);
    u32le(&mut zip, start);
    u16le(&mut zip, 0);
    std::fs::write(path, zip).unwrap();
}

/// Runs `c` to its end; its exit code, stderr and peak resident memory in
/// bytes (of the process and the children it waited for), from `wait4`.
#[cfg(target_os = "linux")]
fn run_measured(c: &mut Command) -> (Option<i32>, String, u64) {
    use std::io::Read;
    let mut child = c
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for; both pointers point to
    // live, writable locals of the right types.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    std::mem::forget(child); // reaped above
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, err, usage.ru_maxrss as u64 * 1024)
}

#[cfg(target_os = "linux")]
#[test]
fn a_zip_bomb_of_classes_fails_naming_an_entry_in_bounded_memory() {
    let Some(f) = Fixture::new() else { return };
    const GIB: u64 = 1 << 30;
    // The bomb of the report: eight 1 GiB classes, over the size cap; and
    // eight of 200 MiB, under it, that are no classes (the magic check).
    let huge = f.path("huge.jar");
    class_bomb(&huge, 8, GIB);
    let zeros = f.path("zeros.jar");
    class_bomb(&zeros, 8, 200 << 20);
    assert!(std::fs::metadata(&huge).unwrap().len() < 16 << 20);
    for jar in ["huge.jar", "zeros.jar"] {
        let (code, err, peak) = run_measured(
            Command::new(env!("CARGO_BIN_EXE_major"))
                .current_dir(f.dir.path())
                .env("RAYON_NUM_THREADS", "8")
                .args(["check", "--jdk"])
                .arg(&f.jdk.home)
                .arg(jar),
        );
        assert_eq!(code, Some(1), "check {jar}: {err}");
        assert!(err.contains("p/Bomb"), "check {jar}: {err}");
        eprintln!("check {jar}: peak {} MiB", peak >> 20);
        assert!(peak < GIB, "check {jar}: peak {} MiB", peak >> 20);
        let (code, err, peak) = run_measured(
            Command::new(env!("CARGO_BIN_EXE_major"))
                .current_dir(f.dir.path())
                .env("RAYON_NUM_THREADS", "8")
                .args(["weave", "--java-home"])
                .arg(&f.jdk.home)
                .arg("--cache-dir")
                .arg(f.path(".cache"))
                .args(["--aspect", "Hello.aj", jar, "-o", "bomb-woven.jar"]),
        );
        assert_eq!(code, Some(2), "weave {jar}: {err}");
        assert!(err.contains("p/Bomb"), "weave {jar}: {err}");
        eprintln!("weave {jar}: peak {} MiB", peak >> 20);
        assert!(peak < GIB, "weave {jar}: peak {} MiB", peak >> 20);
        assert!(!f.path("bomb-woven.jar").exists());
    }
}

#[test]
fn an_error_far_along_a_long_line_is_reported_without_a_panic() {
    let Some(f) = Fixture::new() else { return };
    let pad = " ".repeat(70_000);
    // A parse error (pointcut-lang's diagnostics) and a javac error mapped
    // back to the aspect (the compile error's diagnostics), both past column
    // 65,535 of line 1.
    for (name, body, says) in [
        (
            "Parse.aj",
            "before(): execution(* app.Main.main(..)) && nosuch() { }",
            "nosuch",
        ),
        (
            "Javac.aj",
            "before(): execution(* app.Main.main(..)) { int x = \"s\"; }",
            "incompatible types",
        ),
    ] {
        let aspect = name.trim_end_matches(".aj");
        std::fs::write(f.path(name), format!("aspect {aspect} {{{pad}{body}\n}}\n")).unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_major"))
            .current_dir(f.dir.path())
            .arg("weave")
            .arg("--java-home")
            .arg(&f.jdk.home)
            .args(["--no-cache", "--aspect", name, "in.jar", "-o", "out.jar"])
            .output()
            .unwrap();
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {t}");
        assert!(!t.contains("panicked"), "{name}: {t}");
        assert!(t.contains(says), "{name}: {t}");
        assert!(
            t.contains(&format!("{name}:1:700")),
            "{name}: the real column: {t}"
        );
        assert!(t.contains("long lines clipped"), "{name}: {t}");
        assert!(t.len() < 10_000, "{name}: {} bytes of output", t.len());
        assert!(!f.path("out.jar").exists());
    }
}
