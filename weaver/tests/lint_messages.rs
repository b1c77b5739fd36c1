//! Messages a newcomer meets in the aspect language, through `major weave`:
//! a type name that names no class warns as ajc's
//! `Xlint:invalidAbsoluteTypeName` does ("no match for this type name: X"),
//! without stopping the weave; an aspect that two patterns of one `declare
//! precedence` list match is an error, as in ajc, and nothing is written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use major_weaver::jdk::Jdk;

const MAIN_JAVA: &str = r#"public class Main {
    static void m(int x) {
    }

    public static void main(String[] args) {
        m(1);
        System.out.println("done");
    }
}
"#;

/// Compiles `Main.java` into `dir/classes`; `None` (after `SKIP`) without javac.
fn program(dir: &Path) -> Option<(Jdk, PathBuf)> {
    let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
        eprintln!("SKIP: no JDK with javac");
        return None;
    };
    let src = dir.join("Main.java");
    std::fs::write(&src, MAIN_JAVA).unwrap();
    let classes = dir.join("classes");
    let o = Command::new(jdk.javac().unwrap())
        .args(["--release", "11", "-d"])
        .arg(&classes)
        .arg(&src)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Some((jdk, classes))
}

/// Stderr with miette's wrapping undone (box-drawing margins dropped, runs of
/// white space made one space), so messages can be searched whole.
fn flat(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr)
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn weave(jdk: &Jdk, classes: &Path, aspects: &[&Path], out: &Path) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_major"));
    c.arg("weave")
        .arg("--no-cache")
        .arg("--java-home")
        .arg(&jdk.home);
    for a in aspects {
        c.arg("-a").arg(a);
    }
    c.arg(classes).arg("-o").arg(out).output().unwrap()
}

#[test]
fn unknown_type_names_warn_like_ajc() {
    let dir = tempfile::tempdir().unwrap();
    let Some((jdk, classes)) = program(dir.path()) else {
        return;
    };
    let aspect = dir.path().join("Names.aj");
    std::fs::write(
        &aspect,
        r#"public aspect Names {
    before(): execution(* NoSuch.m(..)) { System.out.println("a1"); }
    before(): within(com.nothere.X) && execution(* m(..)) { System.out.println("a2"); }
    before(): execution(* *(Missing)) || execution(* Main.m(..)) { System.out.println("a3"); }
    before(): execution(* Main.m(..)) && !within(Nope*) && args(int) { System.out.println("a4"); }
}
"#,
    )
    .unwrap();
    let out = dir.path().join("woven");
    let o = weave(&jdk, &classes, &[&aspect], &out);
    let stderr = flat(&o);
    assert!(o.status.success(), "{stderr}");
    for name in ["NoSuch", "com.nothere.X", "Missing"] {
        let line = format!("no match for this type name: {name} [Xlint:invalidAbsoluteTypeName]");
        assert_eq!(stderr.matches(&line).count(), 1, "{line} in:\n{stderr}");
    }
    // Wildcards, primitives and names that exist are not reported.
    assert_eq!(
        stderr.matches("no match for this type name").count(),
        3,
        "{stderr}"
    );
    assert!(stderr.contains("Names.aj:2:"), "{stderr}");
    let run = Command::new(jdk.home.join("bin/java"))
        .arg("-cp")
        .arg(&out)
        .arg("Main")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout), "a3\na4\ndone\n");
}

#[test]
fn an_aspect_twice_in_one_precedence_list_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let Some((jdk, classes)) = program(dir.path()) else {
        return;
    };
    let a = dir.path().join("A.aj");
    let b = dir.path().join("B.aj");
    std::fs::write(
        &a,
        "public aspect A {\n    declare precedence: A, B, A;\n    before(): execution(* Main.m(..)) { }\n}\n",
    )
    .unwrap();
    std::fs::write(
        &b,
        "public aspect B {\n    before(): execution(* Main.m(..)) { }\n}\n",
    )
    .unwrap();
    let out = dir.path().join("woven");
    let o = weave(&jdk, &classes, &[&a, &b], &out);
    let stderr = flat(&o);
    assert!(!o.status.success(), "{stderr}");
    assert!(
        stderr.contains("circularity in declare precedence, 'A' matches two patterns"),
        "{stderr}"
    );
    assert!(stderr.contains("A.aj:2:31"), "{stderr}");
    assert!(!out.exists(), "no output after an error");

    // `*` does not count, and a list naming each aspect once is fine.
    std::fs::write(
        &a,
        "public aspect A {\n    declare precedence: A, *, B;\n    before(): execution(* Main.m(..)) { }\n}\n",
    )
    .unwrap();
    let o = weave(&jdk, &classes, &[&a, &b], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn conflicting_precedence_lists_are_an_error_where_both_aspects_advise() {
    let dir = tempfile::tempdir().unwrap();
    let Some((jdk, classes)) = program(dir.path()) else {
        return;
    };
    let a = dir.path().join("A.aj");
    let b = dir.path().join("B.aj");
    std::fs::write(
        &a,
        "public aspect A {\n    declare precedence: A, B;\n    before(): execution(* Main.m(..)) { }\n}\n",
    )
    .unwrap();
    // B's advice meets A's nowhere: the lists disagree, but ajc (and major)
    // only complain at a join point both advise.
    std::fs::write(
        &b,
        "public aspect B {\n    declare precedence: B, A;\n    before(): execution(* Main.main(..)) { }\n}\n",
    )
    .unwrap();
    let out = dir.path().join("woven");
    let o = weave(&jdk, &classes, &[&a, &b], &out);
    assert!(o.status.success(), "{}", flat(&o));

    std::fs::write(
        &b,
        "public aspect B {\n    declare precedence: B, A;\n    before(): execution(* Main.m(..)) { }\n}\n",
    )
    .unwrap();
    let out = dir.path().join("woven2");
    let o = weave(&jdk, &classes, &[&a, &b], &out);
    let stderr = flat(&o);
    assert!(!o.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "Main.java:3 [error] conflicting declare precedence orderings for aspects: B and A"
        ),
        "{stderr}"
    );
    assert!(!out.exists(), "no output after an error");
}
