//! `ProceedingJoinPoint.proceed(..)` end to end: a program compiled by javac,
//! woven by `major weave` (library entry point) and run under `-Xverify:all`.
//! Code-style around advice may proceed through `thisJoinPoint` (major types it
//! `ProceedingJoinPoint` in around advice, which ajc does not), annotation-style
//! around advice through its parameter, with `this(..)` / `target(..)` bound or
//! not, from a static or an instance context.

use std::path::Path;
use std::process::Command;

use major_weaver::jdk::Jdk;
use major_weaver::weave_run::{run, WeaveOptions};

const MAIN: &str = r#"public class Main {
    final String name;

    Main(String name) {
        this.name = name;
    }

    int scale(int x, long y) {
        return (int) (x * y);
    }

    static String tag(String s) {
        return "<" + s + ">";
    }

    public String toString() {
        return name;
    }

    public static void main(String[] args) {
        Main m = new Main("m");
        System.out.println(m.scale(2, 3L));
        System.out.println(tag("a"));
        System.out.println(m.call());
    }

    String call() {
        return new Main("n").name + scale(1, 1L);
    }
}
"#;

const CODE_STYLE: &str = r#"import org.aspectj.lang.ProceedingJoinPoint;

public aspect Twice {
    int around(): execution(int Main.scale(int, long)) {
        int first = (Integer) thisJoinPoint.proceed();
        Object second = thisJoinPoint.proceed(new Object[] {10, 4L});
        System.out.println("scale " + first + " then " + second);
        return first + (Integer) second;
    }

    String around(String s): call(String Main.tag(String)) && args(s) {
        return s + (String) thisJoinPoint.proceed(new Object[] {s.toUpperCase()});
    }
}
"#;

const ANNOTATION_STYLE: &str = r#"import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;

@Aspect
public class SwapAspect {
    @Around("execution(String Main.call()) && this(m)")
    public Object other(ProceedingJoinPoint pjp, Main m) throws Throwable {
        return "[" + pjp.proceed(new Object[] {new Main("swapped")}) + " was " + m + "]";
    }
}
"#;

fn javac(jdk: &Jdk, out: &Path, cp: &Path, files: &[&Path]) {
    let o = Command::new(jdk.javac().unwrap())
        .args(["--release", "11", "-nowarn", "-cp"])
        .arg(cp)
        .arg("-d")
        .arg(out)
        .args(files)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn proceeding_join_points_run_the_join_point() {
    let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
        eprintln!("SKIP: no JDK with javac");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    let write = |name: &str, text: &str| {
        let p = src.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let main = write("Main.java", MAIN);
    let twice = write("Twice.aj", CODE_STYLE);
    let swap = write("SwapAspect.java", ANNOTATION_STYLE);
    let classes = dir.path().join("classes");
    javac(&jdk, &classes, &classes, &[&main]);
    let woven = dir.path().join("woven");
    let report = run(&WeaveOptions {
        aspects: vec![twice, swap],
        inputs: vec![classes],
        output: woven.clone(),
        classpath: Vec::new(),
        jdk: jdk.clone(),
        bundle_runtime: true,
        strict: false,
        full_coverage: false,
        bypass: Default::default(),
        cache: None,
        jars: Default::default(),
        modules: Vec::new(),
        class_records: true,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(report.unsupported.is_empty(), "{:?}", report.unsupported);
    let o = Command::new(jdk.java())
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(&woven)
        .arg("Main")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        stdout,
        "scale 6 then 40\n46\na<A>\nscale 1 then 40\n[n41 was m]\n"
    );
}

/// The usual build for annotation style: the `@Aspect` class is compiled with
/// the program and is in the woven input too. The rewritten aspect class (with
/// `aspectOf()`) replaces the input's copy, and the report says so.
#[test]
fn aspect_class_in_the_input_is_replaced() {
    let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
        eprintln!("SKIP: no JDK with javac");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    let main = src.join("Main.java");
    std::fs::write(&main, MAIN).unwrap();
    let swap = src.join("SwapAspect.java");
    std::fs::write(&swap, ANNOTATION_STYLE).unwrap();
    let rt = dir.path().join("rt.jar");
    major_weaver::runtime::write_runtime_jar(&rt).unwrap();
    let classes = dir.path().join("classes");
    javac(&jdk, &classes, &rt, &[&main, &swap]);
    assert!(classes.join("SwapAspect.class").exists());
    let woven = dir.path().join("woven.jar");
    let report = run(&WeaveOptions {
        aspects: vec![swap],
        inputs: vec![classes],
        output: woven.clone(),
        classpath: Vec::new(),
        jdk: jdk.clone(),
        bundle_runtime: true,
        strict: false,
        full_coverage: false,
        bypass: Default::default(),
        cache: None,
        jars: Default::default(),
        modules: Vec::new(),
        class_records: true,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("SwapAspect.class: replaced by the aspect class")),
        "{:?}",
        report.notes
    );
    let o = Command::new(jdk.java())
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(&woven)
        .arg("Main")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(stdout, "6\n<a>\n[n1 was m]\n");
}
