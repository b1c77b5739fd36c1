//! `major weave --jdk` and `major run`: a whole JDK woven with full coverage
//! (every module of its run-time image) together with a program, then:
//!
//! * every woven class of every module links under `-Xverify:all`, loaded
//!   from its own module by that module's class loader (LinkAll `modules`),
//!   with no other failure than the unwoven JDK has on the same classes;
//! * the program, and javac compiling it (the woven `jdk.compiler`), give the
//!   same output as on the plain JDK, through `major run`, through
//!   `java @WOVEN/java.args` and through the printed command;
//! * the program's exit code is passed through;
//! * bad input (no JDK, an unsupported JDK, a jar as output, an aspect in the
//!   unnamed package, a directory that is no woven JDK) gets a clear message,
//!   exit code 2, and leaves nothing behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use major_weaver::jdk::Jdk;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn major() -> Command {
    Command::new(env!("CARGO_BIN_EXE_major"))
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn run_ok(c: &mut Command) -> Output {
    let o = c.output().unwrap_or_else(|e| panic!("{c:?}: {e}"));
    assert!(o.status.success(), "{c:?}: {}", text(&o));
    o
}

fn jdk17() -> Option<Jdk> {
    let jdk = Jdk::at(Path::new("/usr/lib/jvm/java-17-openjdk-amd64")).or_else(Jdk::find);
    match jdk {
        Some(j) if j.feature_version() == Some(17) && j.javac().is_some() => Some(j),
        _ => {
            eprintln!("SKIP: no JDK 17 with javac at /usr/lib/jvm/java-17-openjdk-amd64");
            None
        }
    }
}

fn jdk25() -> Option<Jdk> {
    let jdk = Jdk::at(Path::new("/usr/lib/jvm/temurin-25-jdk-amd64"));
    if jdk.is_none() {
        eprintln!("SKIP: no JDK 25 at /usr/lib/jvm/temurin-25-jdk-amd64");
    }
    jdk
}

/// The program: collections, string building, an XML parse (java.xml), a
/// lambda, a second thread; prints what it computed, exits with its first
/// argument (default 0).
const PROGRAM: &str = r#"
package app;

import java.util.*;

public class Main {
    public static void main(String[] args) throws Exception {
        Map<String, Integer> words = new TreeMap<>();
        for (int i = 0; i < 200; i++) words.merge("w" + (i % 17), i, Integer::sum);
        System.out.println(words);
        javax.xml.parsers.DocumentBuilder b =
            javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder();
        org.w3c.dom.Document d = b.parse(new java.io.ByteArrayInputStream(
            "<r><e k='1'/><e k='2'/></r>".getBytes("UTF-8")));
        System.out.println("elements " + d.getElementsByTagName("e").getLength());
        int[] sum = {0};
        Thread t = new Thread(() -> { for (int i = 0; i < 1000; i++) sum[0] += i; });
        t.start();
        t.join();
        System.out.println("sum " + sum[0]);
        System.exit(args.length > 0 ? Integer.parseInt(args[0]) : 0);
    }
}
"#;

/// Compiles the program into `dir/app.jar`; returns the jar.
fn program(jdk: &Jdk, dir: &Path) -> PathBuf {
    let src = dir.join("src/app");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("Main.java"), PROGRAM).unwrap();
    let classes = dir.join("classes");
    run_ok(
        Command::new(jdk.javac().unwrap())
            .args(["--release", "11", "-d"])
            .arg(&classes)
            .arg(src.join("Main.java")),
    );
    let jar = dir.join("app.jar");
    run_ok(
        Command::new(jdk.home.join("bin/jar"))
            .arg("cf")
            .arg(&jar)
            .arg("-C")
            .arg(&classes)
            .arg("."),
    );
    jar
}

/// Compiles LinkAll into `dir/linkall`.
fn linkall(jdk: &Jdk, dir: &Path) -> PathBuf {
    let out = dir.join("linkall");
    run_ok(
        Command::new(jdk.javac().unwrap())
            .args(["--release", "11", "-d"])
            .arg(&out)
            .arg(repo().join("tests/java/LinkAll.java")),
    );
    out
}

/// `major weave --jdk HOME --aspect ASPECT [inputs] -o OUT`.
fn weave_jdk(jdk: &Jdk, aspect: &Path, inputs: &[&Path], out: &Path, cache: &Path) -> Output {
    weave_jdk_as(jdk, "image", aspect, inputs, out, cache)
}

/// [`weave_jdk`] in the given `--jdk-form`.
fn weave_jdk_as(
    jdk: &Jdk,
    form: &str,
    aspect: &Path,
    inputs: &[&Path],
    out: &Path,
    cache: &Path,
) -> Output {
    let mut c = major();
    c.arg("weave")
        .arg(format!("--jdk={}", jdk.home.display()))
        .arg(format!("--jdk-form={form}"))
        .arg("--cache-dir")
        .arg(cache)
        .arg("--aspect")
        .arg(aspect)
        .args(inputs)
        .arg("-o")
        .arg(out);
    c.output().unwrap()
}

/// The lines `key=value` of the woven JDK's info file.
fn info(woven: &Path, key: &str) -> Vec<String> {
    let text = std::fs::read_to_string(woven.join("woven-jdk.txt")).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix(&format!("{key}=")))
        .map(str::to_string)
        .collect()
}

/// The counts of LinkAll's summary line.
fn link_summary(out: &str) -> [u64; 5] {
    let line = out
        .lines()
        .find(|l| l.starts_with("linked "))
        .unwrap_or_else(|| panic!("no LinkAll summary in:\n{out}"));
    let n: Vec<u64> = line
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    n.try_into().unwrap_or_else(|_| panic!("summary: {line}"))
}

/// Links every woven class of `woven` (a patch: every class of its patch
/// jars; an image: every class of its woven modules), on the woven JDK and
/// on the plain one; returns [linked, verify, format, other, skipped] for
/// each.
fn link_every_patch(jdk: &Jdk, woven: &Path, linkall: &Path) -> ([u64; 5], [u64; 5], String) {
    let modules = info(woven, "module");
    let image = info(woven, "form") == ["image"];
    let what: Vec<std::ffi::OsString> = if image {
        vec!["jrt".into(), modules.join(",").into()]
    } else {
        std::iter::once("modules".into())
            .chain(
                modules
                    .iter()
                    .map(|m| woven.join(format!("{m}.jar")).into_os_string()),
            )
            .collect()
    };
    let add = format!("--add-modules={}", modules.join(","));
    let woven_run = run_ok(
        major()
            .arg("run")
            .arg(woven)
            .arg("--")
            .arg(&add)
            .arg("-Xverify:all")
            .arg("-cp")
            .arg(linkall)
            .arg("LinkAll")
            .args(&what),
    );
    let plain = run_ok(
        Command::new(jdk.java())
            .arg(&add)
            .arg("-Xverify:all")
            .arg("-cp")
            .arg(linkall)
            .arg("LinkAll")
            .args(&what),
    );
    let w = text(&woven_run);
    (link_summary(&w), link_summary(&text(&plain)), w)
}

fn check_whole_jdk(jdk: &Jdk, tag: &str) {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let cache = dir.join("cache");
    let app = program(jdk, dir);
    let la = linkall(jdk, dir);
    let plain = run_ok(
        Command::new(jdk.java())
            .arg("-cp")
            .arg(&app)
            .arg("app.Main"),
    );
    let plain_out = String::from_utf8_lossy(&plain.stdout).into_owned();
    for (aspect, marker, form) in [
        ("ObjectTracker", "ObjectTracker:", "image"),
        ("ExecutionCounter", "ExecutionCounter:", "patch"),
    ] {
        let woven = dir.join(format!("woven-{aspect}"));
        let o = weave_jdk_as(
            jdk,
            form,
            &repo().join(format!("aspects/{aspect}.aj")),
            &[&app],
            &woven,
            &cache,
        );
        assert!(o.status.success(), "{}", text(&o));
        let woven_app = if form == "image" {
            woven.join("app/app.jar")
        } else {
            woven.join("app.jar")
        };
        let modules = info(&woven, "module");
        eprintln!(
            "{tag} {aspect}: {} modules patched, {} on request",
            modules.len(),
            info(&woven, "on-request").len()
        );
        assert!(modules.iter().any(|m| m == "java.base"));
        assert!(modules.iter().any(|m| m == "java.xml"));
        assert!(modules.iter().any(|m| m == "jdk.compiler"));
        assert!(
            modules.len() > 40,
            "only {} modules woven: {modules:?}",
            modules.len()
        );
        assert!(woven_app.is_file(), "the program is woven too");

        // Every woven class links, from its own module.
        let (w, p, out) = link_every_patch(jdk, &woven, &la);
        eprintln!("{tag} {aspect}: LinkAll woven {w:?}, plain {p:?}");
        assert_eq!((w[1], w[2]), (0, 0), "verify/format errors:\n{out}");
        // The plain JDK fails on exactly the classes the weave added (it
        // has none of them) and on what fails on the woven one too.
        // (In a patch, the plain JDK is given the patch's class list and
        // fails on the added classes; in an image it lists its own classes.)
        let added = info(&woven, "added").len() as u64;
        let failing_added = if form == "patch" { added } else { 0 };
        assert_eq!(
            (w[0], w[3] + failing_added),
            (p[0] + added, p[3]),
            "linked/other failures differ from the plain JDK's:\n{out}"
        );
        assert!(w[0] > 5000, "only {} classes linked", w[0]);

        // The program: same output through major run, the argument file and
        // the printed command; the aspect saw the JDK's own join points.
        let run = |c: &mut Command| {
            let o = c.output().unwrap();
            assert!(o.status.success(), "{c:?}: {}", text(&o));
            (
                String::from_utf8_lossy(&o.stdout).into_owned(),
                String::from_utf8_lossy(&o.stderr).into_owned(),
            )
        };
        let (out, err) = run(major()
            .arg("run")
            .arg(&woven)
            .args(["--", "-Xverify:all", "-cp"])
            .arg(&woven_app)
            .arg("app.Main"));
        assert_eq!(out, plain_out, "{err}");
        assert!(err.contains(marker), "{err}");
        assert!(!err.contains("WARNING"), "the JVM warned:\n{err}");
        // Without major: the image's own java, or the JDK's with the options.
        let java = if form == "image" {
            woven.join("bin/java")
        } else {
            jdk.java()
        };
        let (out, _) = run(Command::new(java)
            .arg(format!("@{}", woven.join("java.args").display()))
            .arg("-cp")
            .arg(&woven_app)
            .arg("app.Main"));
        assert_eq!(out, plain_out);
        let printed = run_ok(
            major()
                .arg("run")
                .arg(&woven)
                .arg("--print-command")
                .args(["--", "-cp"])
                .arg(&woven_app)
                .arg("app.Main"),
        );
        let line = String::from_utf8_lossy(&printed.stdout).trim().to_string();
        if form == "image" {
            assert!(
                line.starts_with(&*woven.join("bin/java").to_string_lossy()),
                "{line}"
            );
        } else {
            assert!(line.contains("--patch-module=java.base="), "{line}");
        }
        let (out, _) = run(Command::new("sh").arg("-c").arg(&line));
        assert_eq!(out, plain_out);

        // The exit code passes through.
        let o = major()
            .arg("run")
            .arg(&woven)
            .args(["--", "-cp"])
            .arg(&woven_app)
            .args(["app.Main", "7"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(7), "{}", text(&o));

        // javac, from the woven jdk.compiler, writes the same class files.
        let classes = |name: &str| dir.join(format!("javac-{aspect}-{name}"));
        let src = dir.join("src/app/Main.java");
        run_ok(
            Command::new(jdk.java())
                .args(["-m", "jdk.compiler/com.sun.tools.javac.Main", "-d"])
                .arg(classes("plain"))
                .arg(&src),
        );
        let o = run_ok(
            major()
                .arg("run")
                .arg(&woven)
                .args(["--", "-m", "jdk.compiler/com.sun.tools.javac.Main", "-d"])
                .arg(classes("woven"))
                .arg(&src),
        );
        assert!(text(&o).contains(marker), "{}", text(&o));
        assert_eq!(
            std::fs::read(classes("woven").join("app/Main.class")).unwrap(),
            std::fs::read(classes("plain").join("app/Main.class")).unwrap(),
            "javac on the woven JDK wrote another class"
        );
    }
}

#[test]
fn jdk17_woven_whole_links_and_runs_programs() {
    if let Some(jdk) = jdk17() {
        check_whole_jdk(&jdk, "JDK 17");
    }
}

#[test]
fn jdk25_woven_whole_links_and_runs_programs() {
    if let (Some(jdk), Some(_)) = (jdk25(), jdk17()) {
        check_whole_jdk(&jdk, "JDK 25");
    }
}

/// Exit code 2, the message contains `needle`, and `out` is not there.
fn refused(o: &Output, needle: &str, out: &Path) {
    assert_eq!(o.status.code(), Some(2), "{}", text(o));
    assert!(
        text(o).contains(needle),
        "expected `{needle}` in:\n{}",
        text(o)
    );
    assert!(!out.exists(), "{} was left behind", out.display());
}

#[test]
fn bad_input_is_refused_and_leaves_nothing() {
    let Some(jdk) = jdk17() else { return };
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let cache = dir.join("cache");
    let aspect = repo().join("aspects/ObjectTracker.aj");
    let out = dir.join("woven");

    // Not a JDK.
    let not = dir.join("not-a-jdk");
    std::fs::create_dir(&not).unwrap();
    let o = major()
        .arg("weave")
        .arg("--jdk")
        .arg(&not)
        .arg("--aspect")
        .arg(&aspect)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    refused(&o, "not a JDK", &out);

    // A JDK of an unsupported version (a JDK 17 image that says it is 8).
    let old = dir.join("old-jdk");
    std::fs::create_dir_all(old.join("lib")).unwrap();
    std::os::unix::fs::symlink(jdk.modules(), old.join("lib/modules")).unwrap();
    std::os::unix::fs::symlink(jdk.home.join("bin"), old.join("bin")).unwrap();
    std::fs::write(old.join("release"), "JAVA_VERSION=\"1.8.0_402\"\n").unwrap();
    let o = weave_jdk(&Jdk::at(&old).unwrap(), &aspect, &[], &out, &cache);
    refused(&o, "JDK 8 is not supported", &out);

    // A woven JDK is a directory.
    let jar = dir.join("woven.jar");
    let o = weave_jdk(&jdk, &aspect, &[], &jar, &cache);
    refused(&o, "a woven JDK is a directory", &jar);

    // A module the image does not hold.
    let o = major()
        .arg("weave")
        .arg(format!("--jdk={}", jdk.home.display()))
        .args(["--module", "no.such.module", "--aspect"])
        .arg(&aspect)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    refused(&o, "no.such.module", &out);

    // An aspect in the unnamed package cannot join java.base.
    let unnamed = dir.join("Unnamed.aj");
    std::fs::write(
        &unnamed,
        "public aspect Unnamed { before(): execution(* java.util.ArrayList.size()) { } }\n",
    )
    .unwrap();
    let o = weave_jdk(&jdk, &unnamed, &[], &out, &cache);
    refused(&o, "unnamed package", &out);

    // A directory that is no woven JDK.
    let o = major()
        .arg("run")
        .arg(dir)
        .args(["--", "-version"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not a woven JDK"), "{}", text(&o));

    // An aspect that matches nothing in the JDK: a warning, and a woven JDK
    // that runs (java.base carries the aspect).
    let nothing = dir.join("Nothing.aj");
    std::fs::write(
        &nothing,
        "package t;\npublic aspect Nothing { before(): execution(* no.such.Type.f()) { } }\n",
    )
    .unwrap();
    let o = weave_jdk(&jdk, &nothing, &[], &out, &cache);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("has not been applied"), "{}", text(&o));
    assert_eq!(info(&out, "module"), ["java.base"]);
    run_ok(major().arg("run").arg(&out).args(["--", "-version"]));

    // A directory with files major did not write is not replaced.
    std::fs::write(out.join("mine.txt"), b"x").unwrap();
    let o = weave_jdk(&jdk, &nothing, &[], &out, &cache);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(out.join("mine.txt").is_file());
}

/// An aspect whose advice throws, or whose static initializer fails, gives
/// the program a Java exception at the first advised join point that names
/// the aspect, and the JVM exits normally with a failure status: no crash
/// (no signal, no hs_err file).
#[test]
fn failing_advice_and_aspect_initializers_are_errors_not_crashes() {
    let Some(jdk) = jdk17() else { return };
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let cache = dir.join("cache");
    let app = program(&jdk, dir);
    for (name, source, expected) in [
        (
            "Thrower",
            "package bad;\npublic aspect Thrower {\n  before(): execution(* java.util.TreeMap.put(..)) {\n    throw new IllegalStateException(\"advice failed\");\n  }\n}\n",
            "advice failed",
        ),
        (
            "BadInit",
            "package bad;\npublic aspect BadInit {\n  static int x = Integer.parseInt(\"nope\");\n  before(): execution(* java.util.TreeMap.put(..)) { }\n}\n",
            "major: bad.BadInit failed to initialize; advice that needs it cannot run: java.lang.NumberFormatException",
        ),
    ] {
        let aspect = dir.join(format!("{name}.aj"));
        std::fs::write(&aspect, source).unwrap();
        let woven = dir.join(format!("woven-{name}"));
        let o = weave_jdk_as(&jdk, "patch", &aspect, &[&app], &woven, &cache);
        assert!(o.status.success(), "{}", text(&o));
        let o = major()
            .current_dir(dir)
            .arg("run")
            .arg(&woven)
            .args(["--", "-cp"])
            .arg(woven.join("app.jar"))
            .arg("app.Main")
            .output()
            .unwrap();
        let t = text(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {t}");
        assert!(t.contains(expected), "{name}: expected `{expected}` in:\n{t}");
        assert!(t.contains("java.util.TreeMap.put"), "{name}: {t}");
        let crashed = std::fs::read_dir(dir)
            .unwrap()
            .any(|e| e.unwrap().file_name().to_string_lossy().starts_with("hs_err"));
        assert!(!crashed, "{name}: the JVM crashed");
    }
}
