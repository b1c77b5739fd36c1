//! `major weave` leaves an empty `finalize()` (code: just `return`) unwoven:
//! HotSpot does not register objects for finalization when their finalizer is
//! empty, so its execution join point never occurs in the unwoven program;
//! advice woven into it would make every instance finalizable. The run says
//! how many it left alone; a `finalize()` with a body is woven as usual.

use std::path::Path;
use std::process::Command;

use major_classfile::ClassFile;
use major_weaver::jdk::Jdk;

const PROGRAM: &str = r#"package app;

public class Main {
    static class Empty {
        @Override
        protected void finalize() {
        }
    }

    static class Busy {
        static int finalized;

        @Override
        protected void finalize() {
            finalized++;
        }
    }

    static int twice(int x) {
        return 2 * x;
    }

    public static void main(String[] args) {
        new Empty();
        new Busy();
        System.out.println(twice(21));
    }
}
"#;

/// An execution counter, and advice that only an empty finalize() matches.
const ASPECT: &str = r#"aspect Count {
    static int executions;

    before(): execution(* app..*(..)) {
        executions++;
    }

    after() returning: execution(void app.Main.Empty.finalize()) {
        System.out.println("never");
    }

    after(): execution(void app.Main.main(..)) {
        System.out.println("executions " + executions);
    }
}
"#;

/// The `Code` attribute of `class`'s `finalize()` in the class directory `dir`.
fn finalize_code(dir: &Path, class: &str) -> Vec<u8> {
    let bytes = std::fs::read(dir.join(format!("app/{class}.class"))).unwrap();
    let cf = ClassFile::parse(&bytes).unwrap();
    let m = cf
        .methods
        .iter()
        .find(|m| cf.member_name(m).unwrap() == "finalize")
        .expect("finalize()");
    m.attribute("Code").expect("Code").data.to_vec()
}

#[test]
fn empty_finalize_is_left_unwoven_and_counted() {
    let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
        eprintln!("SKIP: no JDK with javac");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src/app");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("Main.java"), PROGRAM).unwrap();
    let classes = dir.path().join("classes");
    let o = Command::new(jdk.javac().unwrap())
        .args(["--release", "11", "-nowarn", "-d"])
        .arg(&classes)
        .arg(src.join("Main.java"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let aspect = dir.path().join("Count.aj");
    std::fs::write(&aspect, ASPECT).unwrap();
    let woven = dir.path().join("woven");
    let o = Command::new(env!("CARGO_BIN_EXE_major"))
        .args(["weave", "--no-cache", "--java-home"])
        .arg(&jdk.home)
        .arg("-a")
        .arg(&aspect)
        .arg(&classes)
        .arg("-o")
        .arg(&woven)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("the execution of 1 empty finalize() method(s)"),
        "{stderr}"
    );
    // The advice that only the empty finalize() matches did match.
    assert!(!stderr.contains("adviceDidNotMatch"), "{stderr}");
    // Empty: byte for byte as javac wrote it; Busy: woven.
    assert_eq!(
        finalize_code(&woven, "Main$Empty"),
        finalize_code(&classes, "Main$Empty")
    );
    assert_ne!(
        finalize_code(&woven, "Main$Busy"),
        finalize_code(&classes, "Main$Busy")
    );
    let o = Command::new(jdk.java())
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(&woven)
        .arg("app.Main")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // main and twice (the finalizers have not run before main ends).
    assert_eq!(String::from_utf8_lossy(&o.stdout), "42\nexecutions 2\n");
}
