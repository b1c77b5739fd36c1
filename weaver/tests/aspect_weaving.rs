//! `major weave` end to end for aspect-compilation details that the
//! conformance cases (which compare with ajc) cannot show: what major does
//! where ajc's output would fail, and how javac's messages about an aspect
//! are reported. A small program is compiled with the JDK's javac, woven by
//! the `major` binary and run under `java -Xverify:all`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use major_weaver::jdk::Jdk;

fn jdk_with_javac() -> Option<Jdk> {
    let jdk = Jdk::find().filter(|j| j.javac().is_some());
    if jdk.is_none() {
        eprintln!("SKIP: no JDK with javac");
    }
    jdk
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Compiles `app/<name>.java` (text `java`) into `<dir>/classes`.
fn compile(jdk: &Jdk, dir: &Path, name: &str, java: &str) -> PathBuf {
    let src = dir.join("src/app");
    std::fs::create_dir_all(&src).unwrap();
    let file = src.join(format!("{name}.java"));
    std::fs::write(&file, java).unwrap();
    let classes = dir.join("classes");
    let o = Command::new(jdk.javac().unwrap())
        .args(["--release", "11", "-nowarn", "-d"])
        .arg(&classes)
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    classes
}

/// `major weave --no-cache` of `classes` with the aspect text into
/// `<dir>/woven`: the command's output.
fn weave(jdk: &Jdk, dir: &Path, classes: &Path, aspect_name: &str, aspect: &str) -> Output {
    let file = dir.join(aspect_name);
    std::fs::write(&file, aspect).unwrap();
    Command::new(env!("CARGO_BIN_EXE_major"))
        .args(["weave", "--no-cache", "--jdk"])
        .arg(&jdk.home)
        .arg("-a")
        .arg(&file)
        .arg(classes)
        .arg("-o")
        .arg(dir.join("woven"))
        .output()
        .unwrap()
}

/// Runs `app.<main>` from `<dir>/woven` under `-Xverify:all`, requiring success.
fn run(jdk: &Jdk, dir: &Path, main: &str) -> String {
    let o = Command::new(jdk.java())
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(dir.join("woven"))
        .arg(format!("app.{main}"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    String::from_utf8(o.stdout).unwrap()
}

/// Around advice on the static initialization of a class whose initializer
/// sets a static final field: ajc moves the initializer into another method
/// and the class then fails to initialize (IllegalAccessError); major leaves
/// that around advice out, says so, and still weaves the other advice.
#[test]
fn around_static_initialization_setting_a_final_field_is_left_out() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let classes = compile(
        &jdk,
        dir.path(),
        "Init",
        r#"package app;

public class Init {
    static final StringBuilder LOG = new StringBuilder("log");

    static class Plain {
        static int n = 5;
    }

    public static void main(String[] args) {
        System.out.println(LOG + " " + Plain.n);
    }
}
"#,
    );
    let o = weave(
        &jdk,
        dir.path(),
        &classes,
        "Around.aj",
        r#"aspect Around {
    void around(): staticinitialization(app.Init) || staticinitialization(app.Init.Plain) {
        System.out.println("around " + thisJoinPointStaticPart);
        proceed();
    }

    before(): staticinitialization(app.Init) {
        System.out.println("before " + thisJoinPointStaticPart);
    }
}
"#,
    );
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("static initialization of app/Init is not supported")
            && t.contains("static final field LOG"),
        "{t}"
    );
    assert_eq!(t.matches("is not supported").count(), 1, "{t}");
    assert_eq!(
        run(&jdk, dir.path(), "Init"),
        "before staticinitialization(app.Init.<clinit>)\n\
         around staticinitialization(app.Init.Plain.<clinit>)\n\
         log 5\n"
    );
}
