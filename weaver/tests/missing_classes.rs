//! Weaving a program whose optional dependency is not installed: classes
//! that extend or call a missing class are woven where that can be decided
//! (frames that meet below the missing class, pointcuts that cannot depend on
//! it); a method that cannot be woven soundly is left unwoven with a warning
//! naming it and the missing class, and `--strict` makes that an error.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use major_weaver::jdk::Jdk;

/// The optional library: `dep.Missing` is deleted after compiling.
const MISSING_JAVA: &str = r#"package dep;

public class Missing implements Runnable {
    public int count;

    public static Missing make() {
        return new Missing();
    }

    public int m(int x) {
        return x + count;
    }

    public void run() {
    }
}
"#;

/// Extends the missing class: loaded only when the library is there.
const SUB_JAVA: &str = r#"package app;

public class Sub extends dep.Missing {
    public int m(int x) {
        return x * 2;
    }

    int twice(boolean b) {
        Object o = b ? this : new Sub();
        return o.hashCode() == 0 ? 0 : 2;
    }
}
"#;

/// Uses the library where only the library could tell what things are.
const OPTIONAL_JAVA: &str = r#"package app;

import dep.Missing;

public class Optional {
    static int merge(boolean b) {
        Missing x = b ? new Sub() : Missing.make();
        Runnable r = b ? x : new Thread();
        r.run();
        return x.m(1);
    }

    static void call(Missing x) {
        x.run();
    }
}
"#;

const MAIN_JAVA: &str = r#"package app;

public class Main {
    static int plain(int a) {
        return a + 1;
    }

    public static void main(String[] args) {
        System.out.println("plain " + plain(1));
        new Thread().run();
        if (args.length > 0) {
            System.out.println(Optional.merge(true));
        }
    }
}
"#;

const ASPECT: &str = r#"aspect A {
    before(): execution(* app..*(..)) {
        System.out.println("execution " + thisJoinPointStaticPart.getSignature().getName());
    }

    before(): call(void Runnable+.run()) && within(app..*) {
        System.out.println("run");
    }
}
"#;

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

fn weave(jdk: &Jdk, dir: &Path, extra: &[&str]) -> (Output, PathBuf) {
    let out = dir.join(format!("woven{}", extra.len()));
    let o = Command::new(env!("CARGO_BIN_EXE_major"))
        .arg("weave")
        .arg("--java-home")
        .arg(&jdk.home)
        .arg("--no-cache")
        .args(extra)
        .arg("--aspect")
        .arg(dir.join("A.aj"))
        .arg(dir.join("classes"))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    (o, out)
}

#[test]
fn methods_that_need_a_missing_class_are_left_unwoven_or_fail_with_strict() {
    let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
        eprintln!("SKIP: no JDK with javac");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sources = vec![
        write(d, "src/dep/Missing.java", MISSING_JAVA),
        write(d, "src/app/Sub.java", SUB_JAVA),
        write(d, "src/app/Optional.java", OPTIONAL_JAVA),
        write(d, "src/app/Main.java", MAIN_JAVA),
    ];
    write(d, "A.aj", ASPECT);
    let classes = d.join("classes");
    let o = Command::new(jdk.javac().unwrap())
        .args(["--release", "11", "-g", "-d"])
        .arg(&classes)
        .args(&sources)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    std::fs::remove_file(classes.join("dep/Missing.class")).unwrap();

    let (o, woven) = weave(&jdk, d, &[]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let unwoven: Vec<&str> = t
        .lines()
        .filter(|l| l.starts_with("warning: left unwoven:"))
        .collect();
    // merge() needs to know what Missing extends to merge it with Thread;
    // call() calls run() on a Missing, which may or may not be a Runnable.
    assert_eq!(unwoven.len(), 2, "{t}");
    assert!(
        unwoven.iter().any(|l| l.contains("app/Optional")
            && l.contains("merge(Z)I")
            && l.contains("dep/Missing")),
        "{t}"
    );
    assert!(
        unwoven.iter().any(|l| l.contains("app/Optional")
            && l.contains("call(Ldep/Missing;)V")
            && l.contains("depends on class dep/Missing")),
        "{t}"
    );
    assert!(t.contains("2 methods left unwoven"), "{t}");
    // Sub (whose super class is missing) is woven: its frames meet below
    // the missing class.
    let sub = Command::new(env!("CARGO_BIN_EXE_major"))
        .arg("dump")
        .arg(&woven)
        .args(["app/Sub", "--method", "twice"])
        .output()
        .unwrap();
    assert!(sub.status.success(), "{}", text(&sub));
    assert!(text(&sub).contains("aspectOf"), "{}", text(&sub));
    // The program runs (it never touches the missing library).
    let run = Command::new(jdk.java())
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(&woven)
        .arg("app.Main")
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run));
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "execution main\nexecution plain\nplain 2\nrun\n"
    );

    // --strict: the same weave fails, naming the method and the class, and
    // writes nothing.
    let (o, out) = weave(&jdk, d, &["--strict"]);
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(
        t.contains("dep/Missing") && t.contains("app/Optional"),
        "{t}"
    );
    assert!(!out.exists(), "a failed weave wrote {}", out.display());
}
