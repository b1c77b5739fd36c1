//! Jars that are more than a list of classes: classes stored under another
//! path than their name, multi-release jars, signed jars and modular jars,
//! woven by the `major` binary and run by the JDK.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use major_archive::{Archive, OutputArchive, OutputKind};
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

/// Runs `c`, requiring success; stdout and stderr.
fn ok(c: &mut Command) -> String {
    let o = c.output().unwrap();
    assert!(o.status.success(), "{c:?}: {}", text(&o));
    text(&o)
}

/// Writes `sources` (path, text) under `dir/src` and compiles them into `out`
/// with `args` (e.g. `--release 11`).
fn javac(jdk: &Jdk, dir: &Path, out: &Path, args: &[&str], sources: &[(&str, &str)]) {
    let mut files = Vec::new();
    for (name, body) in sources {
        let p = dir.join("src").join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, body).unwrap();
        files.push(p);
    }
    ok(Command::new(jdk.javac().unwrap())
        .args(args)
        .args(["-nowarn", "-d"])
        .arg(out)
        .args(&files));
}

/// A jar of `entries` (name, bytes) in that order, written by major's writer.
fn write_jar(path: &Path, entries: &[(String, Vec<u8>)]) {
    let mut out = OutputArchive::create(path, OutputKind::Zip).unwrap();
    for (n, b) in entries {
        out.write(n, b).unwrap();
    }
    out.finish().unwrap();
}

/// Entry names and contents of a jar, in order.
fn contents(jar: &Path) -> Vec<(String, Vec<u8>)> {
    let a = Archive::open(jar).unwrap();
    (0..a.entries().len())
        .map(|i| (a.entries()[i].name.clone(), a.read(i).unwrap().into_owned()))
        .collect()
}

fn entry(jar: &Path, name: &str) -> Option<Vec<u8>> {
    contents(jar)
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, b)| b)
}

/// `major weave --java-home JDK --no-cache -a ASPECT` and `args`.
fn weave(jdk: &Jdk, aspect: &Path, args: &[&Path]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_major"));
    c.arg("weave")
        .arg("--java-home")
        .arg(&jdk.home)
        .arg("--no-cache")
        .arg("-a")
        .arg(aspect)
        .args(args);
    c
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn p(s: &str) -> &Path {
    Path::new(s)
}

/// A class stored under another path than its name (`Lib/Sub.class` holding
/// `q/Sub`) is indexed by its name: `within(p.Base+)` sees that it extends
/// `p.Base` and weaves it; the woven class, put where a class loader finds
/// it, runs the advice.
#[test]
fn a_class_stored_under_another_path_is_indexed_by_its_name() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let classes = dir.path().join("classes");
    javac(
        &jdk,
        dir.path(),
        &classes,
        &["--release", "11"],
        &[
            (
                "p/Base.java",
                "package p;\npublic class Base {\n    public String hello() { return \"base\"; }\n}\n",
            ),
            (
                "q/Sub.java",
                "package q;\npublic class Sub extends p.Base {\n    public String hello() { return \"sub\"; }\n    public static void main(String[] a) { System.out.println(new Sub().hello()); }\n}\n",
            ),
        ],
    );
    let read = |n: &str| std::fs::read(classes.join(n)).unwrap();
    let jar = dir.path().join("in.jar");
    write_jar(
        &jar,
        &[
            ("p/Base.class".into(), read("p/Base.class")),
            ("Lib/Sub.class".into(), read("q/Sub.class")),
        ],
    );
    let aspect = write(
        dir.path(),
        "Hello.aj",
        "package t;\npublic aspect Hello {\n    before(): execution(String hello()) && within(p.Base+) {\n        System.out.println(\"advised \" + thisJoinPointStaticPart.getSignature().getDeclaringTypeName());\n    }\n}\n",
    );
    let out = dir.path().join("out.jar");
    ok(&mut weave(&jdk, &aspect, &[&jar, p("-o"), &out]));
    let woven = entry(&out, "Lib/Sub.class").expect("the entry keeps its path");
    assert!(woven != read("q/Sub.class"), "Lib/Sub.class was not woven");
    // Where a class loader finds it, the woven class runs the advice.
    let fixed = dir.path().join("fixed");
    std::fs::create_dir_all(fixed.join("q")).unwrap();
    std::fs::write(fixed.join("q/Sub.class"), &woven).unwrap();
    let o = ok(Command::new(jdk.java())
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(std::env::join_paths([&fixed, &out]).unwrap())
        .arg("q.Sub"));
    assert_eq!(o, "advised q.Sub\nsub\n");
}

const GREETER_BASE: &str = "package app;\npublic class Greeter {\n    public static String greet(boolean c) {\n        return \"base\";\n    }\n}\n";

/// The release-17 Greeter uses classes only its release has (`Made*`, in
/// `META-INF/versions/17/` only): weaving it needs the index of release 17
/// (the frames of `greet` merge `MadeOne` and `MadeTwo` into `MadeBase`).
const GREETER_17: &str = "package app;\npublic class Greeter {\n    public static String greet(boolean c) {\n        MadeBase m = c ? new MadeOne() : new MadeTwo();\n        return \"release 17 \" + m.getClass().getSimpleName();\n    }\n}\nclass MadeBase {}\nclass MadeOne extends MadeBase {}\nclass MadeTwo extends MadeBase {}\n";

const MAIN: &str = "package app;\npublic class Main {\n    public static void main(String[] a) {\n        System.out.println(Greeter.greet(a.length == 0));\n    }\n}\n";

/// Advice on the greeter's execution (with a static part, loaded from the class
/// itself) and on the construction of the release-17 helpers.
const MR_ASPECT: &str = "package t;\npublic aspect Seen {\n    before(): execution(String app.Greeter.greet(..)) {\n        System.out.println(\"advised \" + thisJoinPointStaticPart.getSignature().getName());\n    }\n    after() returning(Object o): call(app..*.new(..)) && within(app.Greeter) {\n        System.out.println(\"made \" + o.getClass().getSimpleName());\n    }\n}\n";

/// A multi-release jar (base classes for release 11, a `versions/17`
/// Greeter): both versions are woven, each against its release's classes,
/// the summary counts release 17 apart, and JDK 17 and JDK 25 run the woven
/// release-17 class with its advice.
#[test]
fn every_version_of_a_multi_release_class_is_woven() {
    let Some(jdk) = jdk_with_javac() else { return };
    let jar_tool = jdk.home.join("bin/jar");
    if !jar_tool.is_file() {
        eprintln!("SKIP: no jar tool in {}", jdk.home.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (base, v17) = (dir.path().join("base"), dir.path().join("v17"));
    javac(
        &jdk,
        &dir.path().join("b"),
        &base,
        &["--release", "11"],
        &[("app/Greeter.java", GREETER_BASE), ("app/Main.java", MAIN)],
    );
    javac(
        &jdk,
        &dir.path().join("v"),
        &v17,
        &["--release", "17"],
        &[("app/Greeter.java", GREETER_17)],
    );
    let jar = dir.path().join("mr.jar");
    ok(Command::new(&jar_tool)
        .arg("--create")
        .arg("--file")
        .arg(&jar)
        .arg("-C")
        .arg(&base)
        .arg(".")
        .args(["--release", "17", "-C"])
        .arg(&v17)
        .arg("."));
    let aspect = write(dir.path(), "Seen.aj", MR_ASPECT);
    let out = dir.path().join("out.jar");
    let o = weave(&jdk, &aspect, &[&jar, p("-o"), &out])
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains(", release 17: 1 of 4 into"), "{t}");
    let before = contents(&jar);
    let after = contents(&out);
    let woven17 = entry(&out, "META-INF/versions/17/app/Greeter.class").unwrap();
    assert!(
        before
            .iter()
            .any(|(n, b)| n == "META-INF/versions/17/app/Greeter.class" && *b != woven17),
        "the release-17 Greeter was not woven"
    );
    // The static parts live in the woven classes themselves (dynamic
    // constants): no extra class beside either version.
    let names: Vec<&str> = after.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        !names.iter().any(|n| n.ends_with("$MajorStatics.class")),
        "{names:?}"
    );
    let mut ran = 0;
    for home in [
        PathBuf::from("/usr/lib/jvm/java-17-openjdk-amd64"),
        PathBuf::from("/usr/lib/jvm/temurin-25-jdk-amd64"),
    ] {
        let Some(run_jdk) = Jdk::at(&home) else {
            eprintln!("SKIP: no JDK at {}", home.display());
            continue;
        };
        let o = ok(Command::new(run_jdk.java())
            .arg("-Xverify:all")
            .arg("-cp")
            .arg(&out)
            .arg("app.Main"));
        assert_eq!(
            o,
            "advised greet\nmade MadeOne\nrelease 17 MadeOne\n",
            "{}",
            home.display()
        );
        ran += 1;
    }
    assert!(ran > 0, "no JDK 17 or 25 to run the woven jar");
}

/// Signs `jar` in place with a new key (keytool + jarsigner of `jdk`);
/// `false` (after printing SKIP) without those tools.
fn sign(jdk: &Jdk, dir: &Path, jar: &Path) -> bool {
    let (keytool, jarsigner) = (jdk.home.join("bin/keytool"), jdk.home.join("bin/jarsigner"));
    if !keytool.is_file() || !jarsigner.is_file() {
        eprintln!("SKIP: no keytool/jarsigner in {}", jdk.home.display());
        return false;
    }
    let ks = dir.join("keys.p12");
    if !ks.exists() {
        ok(Command::new(&keytool)
            .args(["-genkeypair", "-keystore"])
            .arg(&ks)
            .args([
                "-storepass",
                "secret1",
                "-keypass",
                "secret1",
                "-alias",
                "me",
                "-dname",
                "CN=major test",
                "-keyalg",
                "EC",
                "-validity",
                "2",
            ]));
    }
    ok(Command::new(&jarsigner)
        .arg("-keystore")
        .arg(&ks)
        .args(["-storepass", "secret1"])
        .arg(jar)
        .arg("me"));
    true
}

/// A signed jar whose classes weaving changes loses its signature (files and
/// manifest digests, the rest of the manifest kept) with a warning naming
/// it, and runs; `--signed-jars=refuse` fails instead and writes nothing; a
/// signed jar the aspects leave alone keeps its signature, still valid.
#[test]
fn a_signed_jar_loses_its_signature_only_when_woven() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (app, lib) = (dir.path().join("app"), dir.path().join("lib"));
    javac(
        &jdk,
        &dir.path().join("l"),
        &lib,
        &["--release", "11"],
        &[("l/Lib.java", "package l;\npublic class Lib {\n    public static String name() { return \"lib\"; }\n}\n")],
    );
    javac(
        &jdk,
        &dir.path().join("a"),
        &app,
        &["--release", "11", "-cp", lib.to_str().unwrap()],
        &[("app/Main.java", "package app;\npublic class Main {\n    public static void main(String[] a) {\n        System.out.println(new StringBuilder(\"app \").append(l.Lib.name()));\n    }\n}\n")],
    );
    let (app_jar, lib_jar) = (dir.path().join("app.jar"), dir.path().join("lib.jar"));
    for (from, to) in [(&app, &app_jar), (&lib, &lib_jar)] {
        ok(Command::new(jdk.home.join("bin/jar"))
            .arg("--create")
            .arg("--file")
            .arg(to)
            .args(["--main-class", "app.Main", "-C"])
            .arg(from)
            .arg("."));
        if !sign(&jdk, dir.path(), to) {
            return;
        }
    }
    let signed_names = |jar: &Path| -> Vec<String> {
        contents(jar)
            .into_iter()
            .map(|(n, _)| n)
            .filter(|n| n.starts_with("META-INF/ME."))
            .collect()
    };
    assert_eq!(signed_names(&app_jar).len(), 2, "jarsigner signed the jar");
    // Only app.jar has a constructor call the aspect advises.
    let aspect = write(
        dir.path(),
        "News.aj",
        "package t;\npublic aspect News {\n    after() returning(Object o): call(StringBuilder.new(..)) && !within(t.News) {\n        System.out.println(\"new \" + o.getClass().getSimpleName());\n    }\n}\n",
    );
    let out = dir.path().join("out");
    let o = weave(&jdk, &aspect, &[&app_jar, &lib_jar, p("-o"), &out])
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains(&format!("warning: {}: signed jar woven", app_jar.display())),
        "{t}"
    );
    assert!(!t.contains("lib.jar: signed"), "{t}");
    let woven_app = out.join("app.jar");
    assert!(signed_names(&woven_app).is_empty());
    let manifest = String::from_utf8(entry(&woven_app, "META-INF/MANIFEST.MF").unwrap()).unwrap();
    assert!(
        manifest.contains("Main-Class: app.Main") && !manifest.contains("-Digest"),
        "{manifest}"
    );
    // The untouched lib.jar is copied whole and still verifies.
    assert_eq!(contents(&out.join("lib.jar")), contents(&lib_jar));
    let v = ok(Command::new(jdk.home.join("bin/jarsigner"))
        .arg("-verify")
        .arg(out.join("lib.jar")));
    assert!(v.contains("jar verified"), "{v}");
    let cp = std::env::join_paths([
        &woven_app,
        &out.join("lib.jar"),
        &out.join("major-runtime.jar"),
    ])
    .unwrap();
    let run = ok(Command::new(jdk.java())
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(&cp)
        .arg("app.Main"));
    assert_eq!(run, "new StringBuilder\napp lib\n");
    // Refusing: the run fails naming the jar, and writes nothing.
    let refused = dir.path().join("refused");
    let o = weave(&jdk, &aspect, &[&app_jar, &lib_jar, p("-o"), &refused])
        .arg("--signed-jars=refuse")
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("app.jar: a signed jar"), "{t}");
    assert!(!refused.exists(), "nothing written");
}

/// A modular jar (`jar --create` lists the module's packages in
/// module-info's `ModulePackages`): the woven jar's module-info lists the
/// packages of the aspect and runtime classes too, and the woven jar runs
/// on the module path.
#[test]
fn a_modular_jar_runs_woven_on_the_module_path() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let classes = dir.path().join("classes");
    javac(
        &jdk,
        dir.path(),
        &classes,
        &["--release", "11"],
        &[
            ("module-info.java", "module demo.app {\n}\n"),
            (
                "app/Main.java",
                "package app;\npublic class Main {\n    public static void main(String[] a) {\n        System.out.println(new StringBuilder(\"modular\"));\n    }\n}\n",
            ),
        ],
    );
    let jar = dir.path().join("app.jar");
    ok(Command::new(jdk.home.join("bin/jar"))
        .arg("--create")
        .arg("--file")
        .arg(&jar)
        .args(["--main-class", "app.Main", "-C"])
        .arg(&classes)
        .arg("."));
    let aspect = write(
        dir.path(),
        "News.aj",
        "package t.aspects;\npublic aspect News {\n    after() returning(Object o): call(StringBuilder.new(..)) && !within(t.aspects.News) {\n        System.out.println(\"new \" + o.getClass().getSimpleName() + \" at \" + thisJoinPointStaticPart.getSourceLocation().getWithinType().getModule().getName());\n    }\n}\n",
    );
    let out = dir.path().join("out.jar");
    ok(&mut weave(&jdk, &aspect, &[&jar, p("-o"), &out]));
    let described = ok(Command::new(jdk.home.join("bin/jar"))
        .arg("--describe-module")
        .arg("--file")
        .arg(&out));
    for package in ["app", "t.aspects", "major.runtime", "org.aspectj.lang"] {
        assert!(
            described.contains(&format!("contains {package}\n"))
                || described.contains(&format!("contains {package}\r\n")),
            "{package}: {described}"
        );
    }
    let run = ok(Command::new(jdk.java())
        .arg("-Xverify:all")
        .arg("-p")
        .arg(&out)
        .args(["-m", "demo.app"]));
    assert_eq!(run, "new StringBuilder at demo.app\nmodular\n");
}
