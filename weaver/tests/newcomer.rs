//! What a first-time user gets wrong, and what `major` says then: a
//! misspelled input, a `JAVA_HOME` that is not a JDK, a method `dump` cannot
//! find, a compiled class given as an aspect; and what the README tells
//! them before they try.

use std::path::Path;
use std::process::{Command, Output};

use major_weaver::jdk::Jdk;

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn major() -> Command {
    Command::new(env!("CARGO_BIN_EXE_major"))
}

fn jdk() -> Option<Jdk> {
    let jdk = Jdk::find().filter(|j| j.javac().is_some());
    if jdk.is_none() {
        eprintln!("SKIP: no JDK with javac");
    }
    jdk
}

/// An aspect naming a program type, so that javac would fail on it if the
/// program were missing from its class path.
const ASPECT: &str = "package t;\npublic aspect Uses {\n    before(app.Main m): execution(* app.Main.*(..)) && this(m) {\n        System.out.println(m);\n    }\n}\n";

/// Runs `c`, requiring exit code 2; its output.
fn fails(c: &mut Command) -> String {
    let o = c.output().unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{c:?}: {t}");
    t
}

/// A misspelled input directory is named as missing before javac runs.
#[test]
fn a_misspelled_input_is_reported_before_javac_runs() {
    let Some(jdk) = jdk() else { return };
    let dir = tempfile::tempdir().unwrap();
    let aspect = dir.path().join("Uses.aj");
    std::fs::write(&aspect, ASPECT).unwrap();
    let missing = dir.path().join("clases");
    let out = dir.path().join("out");
    let t = fails(
        major()
            .arg("weave")
            .arg("--java-home")
            .arg(&jdk.home)
            .arg("--no-cache")
            .arg("-a")
            .arg(&aspect)
            .arg(&missing)
            .arg("-o")
            .arg(&out),
    );
    assert!(
        t.contains(&format!("{}: no such input", missing.display())),
        "{t}"
    );
    assert!(!t.contains("does not exist") && !t.contains("javac"), "{t}");
    // A class-path element too.
    std::fs::create_dir(dir.path().join("classes")).unwrap();
    let t = fails(
        major()
            .arg("weave")
            .arg("--java-home")
            .arg(&jdk.home)
            .arg("--no-cache")
            .arg("-a")
            .arg(&aspect)
            .arg(dir.path().join("classes"))
            .arg("--classpath")
            .arg(dir.path().join("lib.jar"))
            .arg("-o")
            .arg(&out),
    );
    assert!(t.contains("lib.jar: no such class-path element"), "{t}");
    assert!(!out.exists());
}

/// A `JAVA_HOME` that is not a JDK is an error naming it, for every command
/// that looks for a JDK, never replaced by another JDK.
#[test]
fn a_java_home_that_is_no_jdk_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let aspect = dir.path().join("Uses.aj");
    std::fs::write(&aspect, ASPECT).unwrap();
    std::fs::create_dir(dir.path().join("classes")).unwrap();
    let bogus = dir.path().join("not-a-jdk");
    std::fs::create_dir(&bogus).unwrap();
    let mut weave = major();
    weave
        .env("JAVA_HOME", &bogus)
        .arg("weave")
        .arg("--no-cache")
        .arg("-a")
        .arg(&aspect)
        .arg(dir.path().join("classes"))
        .arg("-o")
        .arg(dir.path().join("out"));
    let mut check = major();
    check.env("JAVA_HOME", &bogus).arg("check");
    let mut demo = major();
    demo.env("JAVA_HOME", &bogus).arg("demo");
    for c in [&mut weave, &mut check, &mut demo] {
        let t = fails(c);
        assert!(
            t.contains(&format!("JAVA_HOME={} is not a JDK", bogus.display())),
            "{t}"
        );
    }
    assert!(Jdk::at(&bogus).is_none());
}

/// `dump --method` of a method the class does not have fails, listing the
/// methods it has; an existing one prints.
#[test]
fn dump_of_a_missing_method_fails() {
    let Some(jdk) = jdk() else { return };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("Two.java");
    std::fs::write(
        &src,
        "public class Two {\n    int one() { return 1; }\n    int two() { return 2; }\n}\n",
    )
    .unwrap();
    let o = Command::new(jdk.javac().unwrap())
        .arg("-d")
        .arg(dir.path())
        .arg(&src)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let class = dir.path().join("Two.class");
    let t = fails(major().arg("dump").arg(&class).args(["--method", "three"]));
    assert!(t.contains("no method `three`"), "{t}");
    assert!(t.contains("one()I") && t.contains("two()I"), "{t}");
    for m in ["two", "two()I"] {
        let o = major()
            .arg("dump")
            .arg(&class)
            .args(["--method", m])
            .output()
            .unwrap();
        let t = text(&o);
        assert!(o.status.success(), "{t}");
        assert!(t.contains("method two()I") && !t.contains("one()I"), "{t}");
    }
}

/// A compiled class given as an aspect is refused with what to give instead.
#[test]
fn an_aspect_must_be_source() {
    let Some(jdk) = jdk() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("classes")).unwrap();
    for name in ["Tracer.class", "aspects.jar"] {
        let aspect = dir.path().join(name);
        std::fs::write(&aspect, b"\xca\xfe\xba\xbe").unwrap();
        let t = fails(
            major()
                .arg("weave")
                .arg("--java-home")
                .arg(&jdk.home)
                .arg("--no-cache")
                .arg("-a")
                .arg(&aspect)
                .arg(dir.path().join("classes"))
                .arg("-o")
                .arg(dir.path().join("out")),
        );
        assert!(
            t.contains(name) && t.contains("`.aj`") && t.contains("`.java`"),
            "{t}"
        );
    }
}

/// The README says what is unsupported on purpose and how to install major.
#[test]
fn the_readme_lists_the_limits_and_the_install_command() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    for needle in [
        "cargo install --path weaver",
        "inter-type declarations",
        "`declare parents`",
        "`declare soft`",
        "per-clauses",
        "`perthis`",
    ] {
        assert!(readme.contains(needle), "README.md should mention {needle}");
    }
}

#[test]
fn a_module_the_image_does_not_hold_is_named_with_those_it_holds() {
    let Some(jdk) = jdk() else { return };
    let image = jdk.home.join("lib/modules");
    if !image.is_file() {
        eprintln!("SKIP: {} has no lib/modules", jdk.home.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jar");
    let aspect = dir.path().join("A.aj");
    std::fs::write(
        &aspect,
        "aspect A {\n    before(): execution(* *(..)) {\n    }\n}\n",
    )
    .unwrap();
    let t = fails(
        major()
            .arg("weave")
            .arg("--java-home")
            .arg(&jdk.home)
            .arg("--no-cache")
            .arg("-a")
            .arg(&aspect)
            .arg(&image)
            .args(["--module", "java.nosuch", "-o"])
            .arg(&out),
    );
    assert!(t.contains("no module `java.nosuch`"), "{t}");
    assert!(t.contains("java.base"), "{t}");
    assert!(!out.exists());
}
