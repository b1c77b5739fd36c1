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
        .args(["weave", "--no-cache", "--java-home"])
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

/// ajc 1.9.5 (where installed) weaves `classes` with `<dir>/<aspect>` into
/// `<dir>/ajc`; `app.<main>` runs from there under `-Xverify:all`: its output.
/// `None` (with a SKIP line) when ajc is not installed.
fn ajc_run(jdk: &Jdk, dir: &Path, classes: &Path, aspect: &str, main: &str) -> Option<String> {
    let tools = Path::new("/usr/share/java/aspectjtools.jar");
    let rt = Path::new("/usr/share/java/aspectjrt.jar");
    if !tools.is_file() || !rt.is_file() {
        eprintln!("SKIP: ajc's side (Debian package aspectj) not installed");
        return None;
    }
    let ajc_out = dir.join("ajc");
    let o = Command::new(jdk.java())
        .arg("-Xmx1g")
        .arg("-cp")
        .arg(std::env::join_paths([tools, rt]).unwrap())
        .arg("org.aspectj.tools.ajc.Main")
        .args(["-11", "-inpath"])
        .arg(classes)
        .arg("-cp")
        .arg(rt)
        .arg("-d")
        .arg(&ajc_out)
        .arg(dir.join(aspect))
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "ajc: {}", text(&o));
    let o = Command::new(jdk.java())
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(std::env::join_paths([ajc_out.as_path(), rt]).unwrap())
        .arg(format!("app.{main}"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    Some(String::from_utf8_lossy(&o.stdout).into_owned())
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

/// javac's messages about an aspect are shown once each, at the aspect's
/// text, in javac's words: the headline does not repeat them, an `if(..)` of
/// a named pointcut that several advice use (compiled once per advice) is
/// reported once, and no message names major's internals (generated member
/// names such as `major$proceed$..`, or Rust paths such as `aspect::javac`).
#[test]
fn javac_messages_about_an_aspect_appear_once_in_plain_words() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let classes = compile(
        &jdk,
        dir.path(),
        "Calc",
        "package app;\n\npublic class Calc {\n    static int twice(int n) { return 2 * n; }\n\n    public static void main(String[] args) { System.out.println(twice(3)); }\n}\n",
    );
    let aspect = r#"public aspect Bad {
    pointcut p(int n): execution(int app.Calc.twice(int)) && args(n) && if(n.isBig());

    before(int n): p(n) {
        System.out.println("before " + n);
    }

    int around(int n): p(n) {
        String s = proceed(n);
        return 1;
    }

    after(int n): p(n) {
        int x = "text";
    }
}
"#;
    let o = weave(&jdk, dir.path(), &classes, "Bad.aj", aspect);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(!dir.path().join("woven").exists(), "output written: {t}");
    assert!(t.contains("the aspects do not compile (3 errors)"), "{t}");
    // miette wraps long messages: `\n  │ ` continues a line.
    let t = t.replace("\n  │ ", " ");
    for (message, at) in [
        ("int cannot be dereferenced", "Bad.aj:2:77"),
        ("int cannot be converted to String", "Bad.aj:9:20"),
        ("String cannot be converted to int", "Bad.aj:14:17"),
    ] {
        assert_eq!(t.matches(message).count(), 1, "{message}:\n{t}");
        let line = t.lines().find(|l| l.contains(message)).unwrap();
        assert!(line.contains(at), "{message} not at {at}:\n{t}");
    }
    // The offending text is shown under each message.
    assert!(t.contains("String s = proceed(n);"), "{t}");
    for internal in ["major$", "::", "Diagnostic", "Error {"] {
        assert!(!t.contains(internal), "{internal:?} in:\n{t}");
    }
}

/// A method with thousands of advised constructor calls that ajc weaves
/// within the JVM's 64 KiB limit is woven by major too, and major's advice
/// call sequence is as compact as ajc's: the value kept in a local with the
/// one-byte `astore_<n>`/`aload_<n>`, `invokestatic aspectOf()`, `invokevirtual`
/// the advice: 9 bytes per call (it used to be 12, with the two-byte forms).
/// ajc takes a new local per call, so its calls cost 10 bytes, then 12 from
/// local 4 on, 16 from local 256 on: 2600 calls of 8 bytes are 62 KiB woven
/// by ajc, 44 KiB by major. Where ajc is installed, it weaves the same method
/// and both programs run.
#[test]
fn a_method_ajc_weaves_within_64_kib_is_woven() {
    const CALLS: usize = 2600;
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let java = format!(
        "package app;\n\npublic class Big {{\n    static void big() {{\n{}    }}\n\n    public static void main(String[] args) {{\n        big();\n    }}\n}}\n",
        "        new Object();\n".repeat(CALLS)
    );
    let classes = compile(&jdk, dir.path(), "Big", &java);
    let aspect = r#"public aspect Allocs {
    static int count;

    after() returning(Object o): call(*.new(..)) && within(app.Big) {
        count++;
    }

    after() returning: execution(void app.Big.main(..)) {
        System.out.println("allocations " + count);
    }
}
"#;
    let o = weave(&jdk, dir.path(), &classes, "Allocs.aj", aspect);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(!t.contains("left unwoven"), "{t}");
    assert!(
        t.contains(&format!("constructor-call {CALLS}")),
        "every call advised:\n{t}"
    );
    let expected = format!("allocations {CALLS}\n");
    assert_eq!(run(&jdk, dir.path(), "Big"), expected);
    // The woven method's size, from the dump's `length=`.
    let dump = Command::new(env!("CARGO_BIN_EXE_major"))
        .arg("dump")
        .arg(dir.path().join("woven"))
        .args(["app/Big", "--method", "big"])
        .output()
        .unwrap();
    let dump = String::from_utf8_lossy(&dump.stdout).into_owned();
    let length: usize = dump
        .split("length=")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no length in:\n{}", &dump[..dump.len().min(500)]));
    assert!(
        length <= 8 * CALLS + 9 * CALLS + 16,
        "big() is {length} bytes: more than 9 per advised call"
    );

    // ajc, where installed, weaves the same method within the limit too.
    if let Some(out) = ajc_run(&jdk, dir.path(), &classes, "Allocs.aj", "Big") {
        assert_eq!(out, expected);
    }
}

/// A method whose advice calls would take it over 64 KiB inline: 2,000 calls
/// `m(a, b, c)` with before advice (no context) and after returning advice
/// binding the result. ajc weaves it within the limit (it leaves the
/// arguments on the stack); woven inline, major's code would be over 64 KiB
/// (the arguments go to temps and back). major weaves it again with the
/// advice calls in helper methods: the before advice's dispatch is one helper
/// for every call, the after returning advice's another taking the result. It
/// runs under `-Xverify:all` and prints what ajc's woven program prints.
#[test]
fn a_method_over_64_kib_inline_is_woven_with_helper_methods() {
    const CALLS: usize = 2000;
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let java = format!(
        "package app;\n\npublic class Big {{\n    static int total;\n\n    static int m(int a, int b, int c) {{\n        total += a + b + c;\n        return total % 7;\n    }}\n\n    static void big(int a, int b, int c) {{\n{}    }}\n\n    public static void main(String[] args) {{\n        big(1, 2, 3);\n        System.out.println(\"total \" + total);\n    }}\n}}\n",
        "        m(a, b, c);\n".repeat(CALLS)
    );
    let classes = compile(&jdk, dir.path(), "Big", &java);
    let aspect = r#"public aspect Calls {
    static int count;
    static long sum;

    before(): call(* app.Big.m(..)) && withincode(* app.Big.big(..)) {
        count++;
    }

    after() returning(int r): call(int app.Big.m(..)) && withincode(* app.Big.big(..)) {
        sum = sum * 31 + r;
    }

    after() returning: execution(void app.Big.main(..)) {
        System.out.println("calls " + count + " sum " + sum);
    }
}
"#;
    let o = weave(&jdk, dir.path(), &classes, "Calls.aj", aspect);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(!t.contains("left unwoven"), "{t}");
    assert!(
        t.contains(&format!("method-call {CALLS}")),
        "every call advised:\n{t}"
    );
    let out = run(&jdk, dir.path(), "Big");
    assert!(out.starts_with(&format!("total {}\n", 6 * CALLS)), "{out}");
    assert!(out.contains(&format!("calls {CALLS} sum ")), "{out}");
    // The advice calls are helper calls: two helpers, each called per call.
    let dump = Command::new(env!("CARGO_BIN_EXE_major"))
        .arg("dump")
        .arg(dir.path().join("woven"))
        .args(["app/Big", "--method", "big"])
        .output()
        .unwrap();
    let dump = String::from_utf8_lossy(&dump.stdout).into_owned();
    for helper in ["major$advice$0", "major$advice$1"] {
        let calls = dump.matches(helper).count();
        assert!(
            calls >= CALLS,
            "{helper} called {calls} times in:\n{}",
            &dump[..dump.len().min(2000)]
        );
    }
    assert!(
        !dump.contains("major$advice$2"),
        "more helpers than dispatches"
    );

    // ajc weaves the same method within 64 KiB, and prints the same.
    if let Some(ajc) = ajc_run(&jdk, dir.path(), &classes, "Calls.aj", "Big") {
        assert_eq!(ajc, out);
    }
}
