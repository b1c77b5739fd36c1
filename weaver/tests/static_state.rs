//! Join-point static state without extra classes: static parts (and the
//! annotations `@annotation(a)` binds) are created lazily inside the woven
//! class — dynamic constants for class files 55+, constant `invokedynamic`
//! sites for 51–54, an extra `C$MajorStatics` class only before 51 — one per
//! shadow, the same object every time a shadow runs. A woven class defined by
//! a custom class loader from bytes kept under another path runs its advice.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use major_archive::{Archive, OutputArchive, OutputKind};
use major_weaver::jdk::Jdk;

const MAIN_JAVA: &str = r#"package app;

public class Main {
    @Tag("m")
    static int helper(int x) {
        return x + 1;
    }

    static int f() {
        return 1;
    }

    public static void main(String[] args) {
        int s = helper(1) + helper(2);
        for (int i = 0; i < 3; i++) {
            s += f();
        }
        System.out.println("sum " + s);
    }
}
"#;

const TAG_JAVA: &str = r#"package app;

import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

@Retention(RetentionPolicy.RUNTIME)
public @interface Tag {
    String value();
}
"#;

/// Prints, for each advised call, which static part it saw (numbered by
/// identity, in the order first seen) and what the part says.
const PARTS_ASPECT: &str = r#"import java.util.ArrayList;
import java.util.List;
import org.aspectj.lang.JoinPoint;

aspect Parts {
    static List<Object> seen = new ArrayList<>();

    static int index(Object p) {
        for (int i = 0; i < seen.size(); i++) {
            if (seen.get(i) == p) {
                return i;
            }
        }
        seen.add(p);
        return seen.size() - 1;
    }

    before(): call(int app.Main.helper(int)) || call(int app.Main.f()) {
        JoinPoint.StaticPart sp = thisJoinPointStaticPart;
        JoinPoint.StaticPart esp = thisEnclosingJoinPointStaticPart;
        System.out.println("part " + index(sp) + " " + sp.getKind() + " " + sp.getSignature()
            + " " + sp.getSourceLocation().getFileName() + ":" + sp.getSourceLocation().getLine()
            + " enclosing " + index(esp) + " " + esp.getSignature());
    }

    before(app.Tag t): call(* app.Main.*(..)) && @annotation(t) {
        System.out.println("tag " + t.value());
    }
}
"#;

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

fn javac(jdk: &Jdk, release: &str, out: &Path, files: &[PathBuf]) {
    let o = Command::new(jdk.javac().unwrap())
        .args(["--release", release, "-g", "-nowarn", "-d"])
        .arg(out)
        .args(files)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

/// `major weave --java-home <jdk> --no-cache --aspect <aspect> <input> -o <out>`.
fn weave(jdk: &Jdk, aspect: &Path, input: &Path, out: &Path) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_major"))
        .arg("weave")
        .arg("--java-home")
        .arg(&jdk.home)
        .arg("--no-cache")
        .arg("--aspect")
        .arg(aspect)
        .arg(input)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn java(jdk: &Jdk, cp: &Path, main: &str) -> String {
    let o = Command::new(jdk.java())
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(cp)
        .arg(main)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    String::from_utf8(o.stdout).unwrap()
}

/// The class entries of an archive.
fn class_entries(path: &Path) -> Vec<String> {
    let a = Archive::open(path).unwrap();
    let mut v: Vec<String> = a
        .entries()
        .iter()
        .map(|e| e.name.clone())
        .filter(|n| n.ends_with(".class"))
        .collect();
    v.sort();
    v
}

/// The line of `Main.java` holding `needle`.
fn line_of(needle: &str) -> usize {
    MAIN_JAVA
        .lines()
        .position(|l| l.contains(needle))
        .expect("needle in Main.java")
        + 1
}

fn expected() -> String {
    let helper = line_of("helper(1)");
    let f = line_of("s += f()");
    let main = "void app.Main.main(String[])";
    let mut s = String::new();
    for part in [0, 2] {
        s += &format!(
            "part {part} method-call int app.Main.helper(int) Main.java:{helper} enclosing 1 {main}\ntag m\n"
        );
    }
    for _ in 0..3 {
        s += &format!("part 3 method-call int app.Main.f() Main.java:{f} enclosing 1 {main}\n");
    }
    s + "sum 8\n"
}

/// Sets the class file version of `file` to `major`.
fn set_version(file: &Path, major: u16) {
    let mut b = std::fs::read(file).unwrap();
    b[6..8].copy_from_slice(&major.to_be_bytes());
    std::fs::write(file, b).unwrap();
}

#[test]
fn static_parts_live_in_the_woven_class_in_every_class_file_version() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files = vec![
        write(d, "src/app/Main.java", MAIN_JAVA),
        write(d, "src/app/Tag.java", TAG_JAVA),
    ];
    let aspect = write(d, "Parts.aj", PARTS_ASPECT);
    // (label, javac release, version Main.class is set to, extra class expected)
    let forms = [
        ("dynamic constants", "11", None, false),
        ("invokedynamic", "8", None, false),
        ("extra class", "8", Some(49u16), true),
    ];
    for (label, release, version, extra) in forms {
        let classes = d.join(format!("classes-{release}-{version:?}"));
        javac(&jdk, release, &classes, &files);
        if let Some(v) = version {
            set_version(&classes.join("app/Main.class"), v);
        }
        let out = d.join(format!("woven-{release}-{version:?}"));
        weave(&jdk, &aspect, &classes, &out);
        let entries = class_entries(&out);
        assert_eq!(
            entries.iter().any(|e| e == "app/Main$MajorStatics.class"),
            extra,
            "{label}: extra class expected: {extra}; entries: {entries:?}"
        );
        assert!(
            !entries
                .iter()
                .any(|e| e.ends_with("$MajorStatics.class") && e != "app/Main$MajorStatics.class"),
            "{label}: {entries:?}"
        );
        assert_eq!(java(&jdk, &out, "app.Main"), expected(), "{label}");
    }
}

const LOADER_JAVA: &str = r#"package app;

import java.io.InputStream;

public class Loader {
    static final class BytesLoader extends ClassLoader {
        BytesLoader(ClassLoader parent) {
            super(parent);
        }

        Class<?> define(byte[] b) {
            return defineClass(null, b, 0, b.length);
        }
    }

    public static void main(String[] args) throws Exception {
        byte[] b;
        try (InputStream in = Loader.class.getResourceAsStream("/Lib/Hidden.class")) {
            b = in.readAllBytes();
        }
        Class<?> c = new BytesLoader(Loader.class.getClassLoader()).define(b);
        c.getMethod("run").invoke(null);
    }
}
"#;

const HIDDEN_JAVA: &str = r#"public class Hidden {
    public static void run() {
        System.out.println("hidden " + twice(21));
    }

    static int twice(int x) {
        return 2 * x;
    }
}
"#;

const HIDDEN_ASPECT: &str = r#"aspect Calls {
    before(): call(int Hidden.twice(int)) {
        System.out.println("advice at " + thisJoinPointStaticPart + " "
            + thisJoinPointStaticPart.getSourceLocation());
    }
}
"#;

#[test]
fn a_class_defined_from_bytes_under_another_path_runs_its_advice() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let classes = d.join("classes");
    javac(
        &jdk,
        "11",
        &classes,
        &[
            write(d, "src/app/Loader.java", LOADER_JAVA),
            write(d, "src/Hidden.java", HIDDEN_JAVA),
        ],
    );
    // Hidden is kept as a resource under Lib/: only the program's own loader,
    // from these bytes, defines it.
    let jar = d.join("in.jar");
    let input = Archive::open(&classes).unwrap();
    let mut out = OutputArchive::create(&jar, OutputKind::Zip).unwrap();
    for (i, e) in input.entries().iter().enumerate() {
        let name = if e.name == "Hidden.class" {
            "Lib/Hidden.class".to_string()
        } else {
            e.name.clone()
        };
        out.write(&name, &input.read(i).unwrap()).unwrap();
    }
    out.finish().unwrap();
    let unwoven = java(&jdk, &jar, "app.Loader");
    assert_eq!(unwoven, "hidden 42\n");

    let aspect = write(d, "Calls.aj", HIDDEN_ASPECT);
    let woven = d.join("woven.jar");
    weave(&jdk, &aspect, &jar, &woven);
    let line = HIDDEN_JAVA
        .lines()
        .position(|l| l.contains("twice(21)"))
        .unwrap()
        + 1;
    assert_eq!(
        java(&jdk, &woven, "app.Loader"),
        format!("advice at call(int Hidden.twice(int)) Hidden.java:{line}\nhidden 42\n")
    );
    // Nothing was added beside the program's classes but the aspect and the
    // runtime: no extra class a loader would have to find.
    let added: Vec<String> = class_entries(&woven)
        .into_iter()
        .filter(|e| {
            !class_entries(&jar).contains(e)
                && !e.starts_with("major/runtime/")
                && !e.starts_with("org/aspectj/")
                && e != "Calls.class"
        })
        .collect();
    assert!(added.is_empty(), "entries added: {added:?}");
}
