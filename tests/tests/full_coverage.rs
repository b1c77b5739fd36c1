//! Full coverage, two-phase: JDK 17's `java.base` woven with the real
//! ExecutionCounter and ObjectTracker aspects (`major weave --full-coverage`),
//! behind the bootstrap and thread-local bypasses. The woven `java.base` must
//! start the JVM, run a real program under `-Xverify:all` with the same output
//! as the plain JDK while the advice counts, and every one of its classes must
//! link under the verifier (LinkAll on the woven JDK itself). An aspect using
//! `thisJoinPoint` (whose argument boxing calls woven library code) and one
//! with around advice inside the library run too.
//! Both bypasses are needed: without the thread-local one ObjectTracker's
//! advice recurses, without the bootstrap one the JVM does not start.

use std::path::{Path, PathBuf};
use std::process::Command;

use major_archive::{Archive, OutputArchive, OutputKind};
use major_tests::method_counts::{
    access_flags, build_oracle, compare_counts, count_both, RunTimeClasses,
};
use major_tests::{javac, jdk17, jdk25, linkall, run_linkall, skip};
use major_weaver::index::ClassIndex;
use major_weaver::jdk::Jdk;
use major_weaver::weave::bypass::{bypass_class_with, dispatches_in, BypassForm, Bypasses, BYPASS};
use major_weaver::weave_run::{run, WeaveOptions, WeaveReport};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Weaves `java.base.jmod` of `home` with the aspect file `aspect` into `out`.
fn weave_java_base(home: &Path, aspect: &Path, out: &Path) -> WeaveReport {
    weave_java_base_with(home, &[aspect.to_path_buf()], out)
}

/// [`weave_java_base`] with several aspect files.
fn weave_java_base_with(home: &Path, aspects: &[PathBuf], out: &Path) -> WeaveReport {
    weave_java_base_in(home, aspects, BypassForm::default(), out)
}

/// [`weave_java_base_with`] in the given bypass form.
fn weave_java_base_in(
    home: &Path,
    aspects: &[PathBuf],
    bypass: BypassForm,
    out: &Path,
) -> WeaveReport {
    let aspect = &aspects[0];
    let jdk = Jdk::at(home).expect("a JDK");
    let opts = WeaveOptions {
        aspects: aspects.to_vec(),
        inputs: vec![home.join("jmods/java.base.jmod")],
        output: out.to_path_buf(),
        classpath: Vec::new(),
        jdk,
        bundle_runtime: true,
        strict: false,
        full_coverage: true,
        bypass,
        jars: Default::default(),
        modules: Vec::new(),
        class_records: true,
        cache: None,
    };
    run(&opts).unwrap_or_else(|e| panic!("weaving java.base with {}: {e}", aspect.display()))
}

/// `aspects/<name>.aj`.
fn aspect(name: &str) -> PathBuf {
    repo().join(format!("aspects/{name}.aj"))
}

/// A copy of the woven jar `from` whose bypass class checks only `bypasses`
/// (with the same dispatch methods, which the woven code calls).
fn with_bypasses(from: &Path, to: &Path, bypasses: Bypasses) -> PathBuf {
    let index = ClassIndex::new();
    let input = Archive::open(from).unwrap();
    let name = format!("{BYPASS}.class");
    let at = input.entries().iter().position(|e| e.name == name).unwrap();
    let dispatches = dispatches_in(&input.read(at).unwrap()).unwrap();
    let class = bypass_class_with(52, &index, bypasses, &dispatches).unwrap();
    let mut out = OutputArchive::create(to, OutputKind::Zip).unwrap();
    for (i, e) in input.entries().iter().enumerate() {
        if e.name == name {
            out.write(&name, &class).unwrap();
        } else {
            out.write(&e.name, &input.read(i).unwrap()).unwrap();
        }
    }
    out.finish().unwrap();
    to.to_path_buf()
}

/// Runs `java [opts] app.Main` on the coverage program; (stdout, stderr).
fn run_program(java: &Path, opts: &[&str], classes: &Path) -> (String, String) {
    let o = Command::new(java)
        .args(opts)
        .arg("-cp")
        .arg(classes)
        .arg("app.Main")
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "{java:?} {opts:?}: {out}{err}");
    (out, err)
}

/// The number in a line `<prefix> <n> ...` of `text`.
fn count_after(text: &str, prefix: &str) -> u64 {
    let line = text
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line in:\n{text}"));
    line[prefix.len()..]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {line}"))
}

#[test]
fn java_base_woven_with_execution_counter_and_object_tracker_runs_and_links() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    if !home.join("jmods/java.base.jmod").is_file() {
        return skip("JDK 17 has no jmods (Debian package openjdk-17-jmods)");
    }
    let java = home.join("bin/java");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sources: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/java/coverage/app"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let classes = d.join("classes");
    javac(&home, "11", &classes, &sources);
    let (plain, _) = run_program(&java, &["-Xverify:all"], &classes);

    // ExecutionCounter: every method and constructor of java.base.
    let counter = d.join("counter.jar");
    let report = weave_java_base(&home, &aspect("ExecutionCounter"), &counter);
    assert!(report.woven > 5000, "only {} classes woven", report.woven);
    let patch = format!("java.base={}", counter.display());
    let opts = ["-Xverify:all", "--patch-module", &patch];
    let v = Command::new(&java)
        .args(opts)
        .arg("-version")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&v.stderr);
    assert!(v.status.success(), "java -version on the woven JDK: {err}");
    let at_version = count_after(&err, "ExecutionCounter:");
    assert!(at_version > 0, "{err}");
    let (out, err) = run_program(&java, &opts, &classes);
    assert_eq!(
        out, plain,
        "the program printed something else on the woven JDK"
    );
    let executions = count_after(&err, "ExecutionCounter:");
    assert!(
        executions > 10 * at_version,
        "only {executions} JDK executions counted for the program ({at_version} for -version)"
    );
    eprintln!("ExecutionCounter on woven java.base: -version {at_version}, program {executions}");

    // Every class of the woven java.base links under the verifier.
    let r = run_linkall(
        &java,
        &linkall(&home),
        &["--patch-module", &patch],
        &[&counter],
        "boot",
    );
    let summary = r
        .output
        .lines()
        .find(|l| l.starts_with("linked "))
        .unwrap_or("");
    eprintln!("LinkAll on the woven java.base: {summary}");
    assert_eq!(r.verify_errors, 0, "{}", r.output);
    assert_eq!(r.format_errors, 0, "{}", r.output);
    assert!(r.linked > 6000, "only {} classes linked", r.linked);

    // ObjectTracker: every constructor call in java.base, its advice
    // allocating (a WeakReference per object) without recursing.
    let tracker = d.join("tracker.jar");
    let report = weave_java_base(&home, &aspect("ObjectTracker"), &tracker);
    assert!(
        report.advised.values().sum::<usize>() > 20_000,
        "{:?}",
        report.advised
    );
    let patch = format!("java.base={}", tracker.display());
    let (out, err) = run_program(&java, &["-Xverify:all", "--patch-module", &patch], &classes);
    assert_eq!(
        out, plain,
        "the program printed something else on the woven JDK"
    );
    let allocations = count_after(&err, "ObjectTracker:");
    assert!(allocations > 1000, "{err}");
    eprintln!("ObjectTracker on woven java.base: {allocations} allocations");

    // Both at once: an execution's advice and constructor-call shadows in
    // one method (`Objects.requireNonNull(Object, Supplier)`: a `new` whose
    // arguments branch, which takes the full analysis that adds labels) —
    // the execution's advice once went between the bypass decision and its
    // store, and the VM did not start.
    let both = d.join("both.jar");
    weave_java_base_with(
        &home,
        &[aspect("ExecutionCounter"), aspect("ObjectTracker")],
        &both,
    );
    let patch = format!("java.base={}", both.display());
    let (out, err) = run_program(&java, &["-Xverify:all", "--patch-module", &patch], &classes);
    assert_eq!(
        out, plain,
        "the program printed something else on the JDK woven with both aspects"
    );
    assert!(count_after(&err, "ExecutionCounter:") > 0, "{err}");
    assert!(count_after(&err, "ObjectTracker:") > 1000, "{err}");

    // thisJoinPoint: the arguments are boxed with the DIB set.
    let jp = d.join("jp.jar");
    weave_java_base(
        &home,
        &repo().join("tests/java/fullcov/JoinPointArgs.aj"),
        &jp,
    );
    let patch = format!("java.base={}", jp.display());
    let (out, err) = run_program(&java, &["-Xverify:all", "--patch-module", &patch], &classes);
    assert_eq!(
        out, plain,
        "the program printed something else on the woven JDK"
    );
    let args = count_after(&err, "JoinPointArgs:");
    assert!(args > 1000, "{err}");
    eprintln!("JoinPointArgs on woven java.base: {args} arguments");

    // around: closures made with the DIB set, join points run with it clear.
    let around = d.join("around.jar");
    weave_java_base(
        &home,
        &repo().join("tests/java/fullcov/AroundCount.aj"),
        &around,
    );
    let patch = format!("java.base={}", around.display());
    let (out, err) = run_program(&java, &["-Xverify:all", "--patch-module", &patch], &classes);
    assert_eq!(
        out, plain,
        "the program printed something else on the woven JDK"
    );
    let proceeds = count_after(&err, "AroundCount:");
    assert!(proceeds > 1000, "{err}");
    eprintln!("AroundCount on woven java.base: {proceeds} proceeds");

    // A thread the aspect starts while the DIB is set inherits it.
    let inherit = d.join("inherit.jar");
    weave_java_base(
        &home,
        &repo().join("tests/java/fullcov/InheritedBypass.aj"),
        &inherit,
    );
    let patch = format!("java.base={}", inherit.display());
    let (out, err) = run_program(&java, &["-Xverify:all", "--patch-module", &patch], &classes);
    assert_eq!(
        out, plain,
        "the program printed something else on the woven JDK"
    );
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("InheritedBypass:"))
        .collect();
    // The aspect's thread inherits the bypass, the program's thread (the
    // coverage program starts one) does not.
    assert!(
        lines.contains(&"InheritedBypass: from-aspect true"),
        "{err}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("InheritedBypass: Thread-") && l.ends_with(" false")),
        "{err}"
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.starts_with("InheritedBypass: Thread-") && l.ends_with(" true")),
        "{err}"
    );

    // Two modules in one run: java.base and java.xml, one woven jmod each
    // (the aspect and runtime in java.base's), java.xml allowed to call them.
    let xml_src = repo().join("tests/java/fullcov/xml/XmlMain.java");
    let xml_classes = d.join("xml-classes");
    javac(&home, "11", &xml_classes, &[xml_src]);
    let run_xml = |opts: &[&str]| {
        let o = Command::new(&java)
            .args(opts)
            .arg("-cp")
            .arg(&xml_classes)
            .arg("XmlMain")
            .output()
            .unwrap();
        let t = (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        );
        assert!(o.status.success(), "{opts:?}: {}{}", t.0, t.1);
        t
    };
    let (xml_plain, _) = run_xml(&["-Xverify:all"]);
    let modules = d.join("modules");
    let jdk = Jdk::at(&home).unwrap();
    run(&WeaveOptions {
        aspects: vec![aspect("ExecutionCounter")],
        inputs: vec![
            home.join("jmods/java.base.jmod"),
            home.join("jmods/java.xml.jmod"),
        ],
        output: modules.clone(),
        classpath: Vec::new(),
        jdk,
        bundle_runtime: true,
        strict: false,
        full_coverage: true,
        bypass: Default::default(),
        jars: major_weaver::weave_run::JarOptions {
            runtime_jar: Some("java.base.jmod".to_string()),
            ..Default::default()
        },
        modules: Vec::new(),
        class_records: true,
        cache: None,
    })
    .expect("weaving java.base and java.xml");
    let base = format!("java.base={}", modules.join("java.base.jmod").display());
    let xml = format!("java.xml={}", modules.join("java.xml.jmod").display());
    let (xml_out, xml_err) = run_xml(&[
        "-Xverify:all",
        "--patch-module",
        &base,
        "--patch-module",
        &xml,
        "--add-exports",
        "java.base/major.aspects=java.xml",
        "--add-exports",
        "java.base/major.runtime=java.xml",
        "--add-exports",
        "java.base/org.aspectj.lang=java.xml",
    ]);
    assert_eq!(xml_out, xml_plain);
    let xml_executions = count_after(&xml_err, "ExecutionCounter:");
    eprintln!("ExecutionCounter on woven java.base and java.xml: {xml_executions} executions");

    // Without the DIB, ObjectTracker's advice (which allocates) recurses.
    let no_dib = with_bypasses(
        &tracker,
        &d.join("no-dib.jar"),
        Bypasses {
            bib: true,
            dib: false,
        },
    );
    let patch = format!("java.base={}", no_dib.display());
    let error_file = format!("-XX:ErrorFile={}/hs_err_%p.log", d.display());
    let o = Command::new(&java)
        .current_dir(d)
        .arg(&error_file)
        .args(["--patch-module", &patch, "-cp"])
        .arg(&classes)
        .arg("app.Main")
        .output()
        .unwrap();
    let t = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!o.status.success(), "ran without the DIB:\n{t}");
    eprintln!("without the DIB: exit {:?}", o.status.code());

    // Without the BIB, the JVM does not start.
    let no_bib = with_bypasses(
        &counter,
        &d.join("no-bib.jar"),
        Bypasses {
            bib: false,
            dib: true,
        },
    );
    let patch = format!("java.base={}", no_bib.display());
    let o = Command::new(&java)
        .current_dir(d)
        .arg(&error_file)
        .args(["--patch-module", &patch, "-version"])
        .output()
        .unwrap();
    assert!(!o.status.success(), "java -version ran without the BIB");
    eprintln!("without the BIB: exit {:?}", o.status.code());
}

/// Coverage against an independent count: every method and constructor of
/// `java.util` woven into `java.base` with a per-join-point counter
/// (`tests/java/fullcov/UtilCounter.aj` over `ExecutionCounts.aj`); in the
/// same run, the JVMTI agent counts the `MethodEntry` events that woven code
/// advises (after boot, with the thread's bypass clear) and has the counter
/// take its snapshot when it stops counting. Per method, the two must be
/// equal; the differences allowed are named categories ([`compare_counts`]),
/// each reported with its size.
#[test]
fn java_util_execution_counts_equal_a_jvmti_count_of_the_same_run() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    let jmod = home.join("jmods/java.base.jmod");
    if !jmod.is_file() {
        return skip("JDK 17 has no jmods (Debian package openjdk-17-jmods)");
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(agent) = build_oracle(&home, d) else {
        return;
    };
    let classes = coverage_program(&home, d);
    let fullcov = repo().join("tests/java/fullcov");
    // Both bypass forms count exactly.
    for bypass in [BypassForm::Guards, BypassForm::Duplicate] {
        let woven = d.join(format!("util-{bypass:?}.jar"));
        let report = weave_java_base_in(
            &home,
            &[
                fullcov.join("ExecutionCounts.aj"),
                fullcov.join("UtilCounter.aj"),
            ],
            bypass,
            &woven,
        );
        let patch = vec![
            "--patch-module".into(),
            format!("java.base={}", woven.display()).into(),
        ];
        let args = vec!["-cp".into(), classes.clone().into(), "app.Main".into()];
        let (counted, _) = count_both(&home, &agent, "java/util/", &patch, &args, d);
        let access = access_flags(&Archive::open(&jmod).unwrap(), "java/util/");
        let c = compare_counts(
            &counted,
            &access,
            &report.skipped_methods,
            RunTimeClasses::NotWoven,
        );
        c.print(&format!("java.util ({bypass:?})"));
        assert!(
            c.unexplained.is_empty(),
            "counts differ:\n  {}",
            c.unexplained.join("\n  ")
        );
        assert!(
            c.executed >= 100,
            "only {} java.util methods executed",
            c.executed
        );
        assert!(
            c.seen * 10 >= c.executed * 9,
            "major saw {} of {}",
            c.seen,
            c.executed
        );
    }
}

/// The same for the whole JDK and the program: every module woven with
/// `--jdk` and a counter of every execution (`JdkCounter.aj`); every
/// method's count equals the JVMTI oracle's, but for the named categories.
#[test]
fn whole_jdk_execution_counts_equal_a_jvmti_count_of_the_same_run() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(agent) = build_oracle(&home, d) else {
        return;
    };
    let classes = coverage_program(&home, d);
    let fullcov = repo().join("tests/java/fullcov");
    let jdk = Jdk::at(&home).unwrap();
    let woven_dir = d.join("woven");
    let (report, woven) =
        major_weaver::woven_jdk::weave(&major_weaver::woven_jdk::JdkWeaveOptions {
            form: major_weaver::woven_jdk::JdkForm::Image,
            aspects: vec![
                fullcov.join("ExecutionCounts.aj"),
                fullcov.join("JdkCounter.aj"),
            ],
            jdk: jdk.clone(),
            modules: Vec::new(),
            inputs: vec![classes.clone()],
            classpath: Vec::new(),
            output: woven_dir.clone(),
            cache: None,
            strict: false,
            signed_jars: Default::default(),
            bypass: Default::default(),
        })
        .expect("weaving the JDK with JdkCounter");
    let options: Vec<std::ffi::OsString> = woven
        .java_options(&[])
        .into_iter()
        .map(Into::into)
        .collect();
    // The woven image is a JDK home of its own: its java runs it.
    let woven_classes = woven.woven_input(&classes).expect("the program woven");
    let args = vec!["-cp".into(), woven_classes.into(), "app.Main".into()];
    let (counted, _) = count_both(&woven.java_home, &agent, "", &options, &args, d);
    let access = access_flags(&Archive::open(&jdk.modules()).unwrap(), "");
    let mut app = access_flags(&Archive::open(&classes).unwrap(), "");
    app.extend(access);
    let c = compare_counts(
        &counted,
        &app,
        &report.skipped_methods,
        RunTimeClasses::NotWoven,
    );
    c.print("the whole JDK and the program");
    assert!(
        c.unexplained.is_empty(),
        "counts differ:\n  {}",
        c.unexplained.join("\n  ")
    );
    assert!(c.executed >= 1000, "only {} methods executed", c.executed);
    // The rest are native, intrinsic, bridge and generated methods, static
    // initializers and the few classes never woven (the categories above).
    assert!(
        c.seen * 100 >= c.executed * 85,
        "major saw {} of {}",
        c.seen,
        c.executed
    );
}

/// The coverage program (`tests/java/coverage/app`) compiled into `d/classes`.
fn coverage_program(home: &Path, d: &Path) -> PathBuf {
    let sources: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/java/coverage/app"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let classes = d.join("classes");
    javac(home, "11", &classes, &sources);
    classes
}

/// JDK 25 has no jmods: its `java.base` is read from the run-time image
/// (`lib/modules`, `--module java.base`), woven with ExecutionCounter into
/// `java.base.jar`, runs the coverage program with JDK 25's own output under
/// `-Xverify:all`, and links whole.
#[test]
fn jdk25_java_base_from_the_image_runs_and_links() {
    let Some(home) = jdk25() else {
        return skip("no JDK 25 (/usr/lib/jvm/temurin-25-jdk-amd64)");
    };
    let Some(home17) = jdk17() else {
        return skip("no JDK 17 (compiles the program)");
    };
    let java = home.join("bin/java");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sources: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/java/coverage/app"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let classes = d.join("classes");
    javac(&home17, "11", &classes, &sources);
    let (plain, _) = run_program(&java, &["-Xverify:all"], &classes);
    let jar = d.join("java.base.jar");
    let report = run(&WeaveOptions {
        aspects: vec![aspect("ExecutionCounter")],
        inputs: vec![home.join("lib/modules")],
        output: jar.clone(),
        classpath: Vec::new(),
        jdk: Jdk::at(&home).expect("JDK 25"),
        bundle_runtime: true,
        strict: false,
        full_coverage: true,
        bypass: Default::default(),
        jars: Default::default(),
        modules: vec!["java.base".to_string()],
        class_records: true,
        cache: None,
    })
    .expect("weaving JDK 25's java.base from lib/modules");
    assert!(report.woven > 6000, "only {} classes woven", report.woven);
    let patch = format!("java.base={}", jar.display());
    let (woven_out, err) =
        run_program(&java, &["-Xverify:all", "--patch-module", &patch], &classes);
    assert_eq!(
        woven_out, plain,
        "the program printed something else on the woven JDK 25"
    );
    let executions = count_after(&err, "ExecutionCounter:");
    assert!(executions > 10_000, "{err}");
    eprintln!("ExecutionCounter on JDK 25's woven java.base: {executions} executions");
    let r = run_linkall(
        &java,
        &linkall(&home17),
        &["--patch-module", &patch],
        &[&jar],
        "boot",
    );
    let summary = r
        .output
        .lines()
        .find(|l| l.starts_with("linked "))
        .unwrap_or("");
    eprintln!("LinkAll on JDK 25's woven java.base: {summary}");
    assert_eq!(r.verify_errors, 0, "{}", r.output);
    assert_eq!(r.format_errors, 0, "{}", r.output);
    // The patch holds the changed classes (and the added ones): all link.
    let in_patch = major_archive::Archive::open(&jar)
        .unwrap()
        .entries()
        .iter()
        .filter(|e| e.class_name().is_some_and(|n| !n.ends_with("module-info")))
        .count();
    assert_eq!(r.linked, in_patch, "{}", r.output);
    assert!(r.linked > 6000, "only {} classes linked", r.linked);
}

/// Initialization advice everywhere in `java.base`, in both bypass forms:
/// the constructors that delegate with `this(..)` are woven again with the
/// delegated constructor inlined, and keep the bypasses (before they did,
/// the duplicated form lost them there). The program runs under the
/// verifier with its plain output, and the advice sees initializations
/// begin and complete.
#[test]
fn initialization_advice_on_delegating_constructors_keeps_the_bypasses() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    if !home.join("jmods/java.base.jmod").is_file() {
        return skip("JDK 17 has no jmods (Debian package openjdk-17-jmods)");
    }
    let java = home.join("bin/java");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let classes = coverage_program(&home, d);
    let (plain, _) = run_program(&java, &["-Xverify:all"], &classes);
    let aspect = repo().join("tests/java/fullcov/InitCounter.aj");
    for bypass in [BypassForm::Guards, BypassForm::Duplicate] {
        let woven = d.join(format!("init-{bypass:?}.jar"));
        let report = weave_java_base_in(&home, std::slice::from_ref(&aspect), bypass, &woven);
        assert!(
            report.advised.get("initialization").copied().unwrap_or(0) > 1000,
            "{bypass:?}: initialization advised at {:?}",
            report.advised
        );
        let patch = format!("java.base={}", woven.display());
        let opts = ["-Xverify:all", "--patch-module", &patch];
        let (out, err) = run_program(&java, &opts, &classes);
        assert_eq!(out, plain, "{bypass:?}: the program printed something else");
        let inits = count_after(&err, "InitCounter:");
        let completed = err
            .split("initializations, ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no completed count in {err}"));
        eprintln!("{bypass:?}: {inits} initializations, {completed} completed");
        assert!(inits > 1000, "{bypass:?}: only {inits} initializations");
        // Every initialization the advice saw begin completed, but for those
        // that threw or were still running at exit.
        assert!(
            completed <= inits && completed * 100 >= inits * 99,
            "{bypass:?}: {completed} of {inits} initializations completed"
        );
    }
}

/// A tracer that keeps its depth in a thread-local, on all of `java.base`:
/// the VM constructs the `Thread` object of a thread it attaches (the main
/// thread, `DestroyJavaVM`) on that thread itself, where the constructor
/// would reset the thread-locals the advice had just made. Every bypass is
/// on while a thread's own `Thread` object is being constructed: the
/// program runs, and its exit runs the shutdown sequence, traced (before,
/// the advice threw `IllegalArgumentException` in the constructor of the
/// `DestroyJavaVM` thread, which then could not attach: no shutdown hook
/// ran, and the trace ended in `Thread.nextThreadID()`).
#[test]
fn a_thread_under_construction_runs_no_advice() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    if !home.join("jmods/java.base.jmod").is_file() {
        return skip("JDK 17 has no jmods (Debian package openjdk-17-jmods)");
    }
    let java = home.join("bin/java");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let classes = coverage_program(&home, d);
    let (plain, _) = run_program(&java, &["-Xverify:all"], &classes);
    let woven = d.join("tracer.jar");
    weave_java_base(&home, &aspect("ExecutionTracer"), &woven);
    let patch = format!("java.base={}", woven.display());
    // `timeout`: a JVM that hangs at exit fails the test instead of CI.
    let o = Command::new("timeout")
        .arg("120")
        .arg(&java)
        .args(["-Xverify:all", "--patch-module", &patch, "-cp"])
        .arg(&classes)
        .arg("app.Main")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let tail: Vec<&str> = err.lines().rev().take(5).collect();
    assert!(o.status.success(), "{:?}: {tail:?}", o.status);
    assert_eq!(String::from_utf8_lossy(&o.stdout), plain);
    let traced = err
        .lines()
        .filter(|l| l.trim_start().starts_with("> "))
        .count();
    assert!(traced > 1000, "only {traced} executions traced");
    assert!(
        err.contains("java.lang.Shutdown.shutdown()"),
        "the shutdown sequence did not run: {tail:?}"
    );
}
