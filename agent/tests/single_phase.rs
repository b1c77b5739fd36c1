//! Single-phase weaving: programs run under the JVMTI agent
//! (`-agentpath:libmajor_agent.so=aspect=...`), every class woven as the
//! JVM loads it, from `java.lang.Object` on, on JDK 17 and JDK 25:
//!
//! * a program with threads and an executor gives the unwoven output under
//!   `-Xverify:all` while ExecutionCounter counts, with no class failing;
//! * the classes the agent weaves are byte for byte those of `major weave
//!   --jdk` (the two-phase mode) for the same aspects and program, in both
//!   bypass forms; the classes it leaves alone are those the two-phase mode
//!   leaves alone, the classes it adds are the same, and a counter of
//!   `ArrayList.add` counts the same in both modes;
//! * javac run under the agent writes the same class files as unwoven;
//! * a proxy class and a class a custom loader defines are woven;
//! * `major run --aspect` passes the program's exit status through, and
//!   bad agent options stop the JVM with a message.

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{
    agent_library, agreement, compile_program, count, here, major_binary, os, repo, run, summary,
    text, walk, ClassSource,
};
use major_tests::{jdk17, jdk25, skip};
use major_weaver::jdk::Jdk;
use major_weaver::weave::bypass::BypassForm;

/// The `java` command with the agent weaving `aspects`, then `args`.
fn agent_command(jdk: &Path, aspects: &[PathBuf], cache: &Path, args: &[OsString]) -> Command {
    common::agent_command(jdk, aspects, cache, &[], args)
}

/// [`agent_command`] with the bypass checks in the form `bypass`.
fn agent_command_with(
    jdk: &Path,
    aspects: &[PathBuf],
    bypass: BypassForm,
    cache: &Path,
    args: &[OsString],
) -> Command {
    common::agent_command_with(jdk, aspects, bypass, cache, &[], args)
}

fn program_runs_woven(jdk: &Path) {
    let work = tempfile::tempdir().unwrap();
    let classes = compile_program(jdk, work.path());
    let cache = work.path().join("cache");
    let args = os(&["-Xverify:all", "-cp", classes.to_str().unwrap(), "app.Main"]);
    let plain = run({
        let mut c = Command::new(jdk.join("bin/java"));
        c.args(&args);
        c
    });
    let woven = run(agent_command(
        jdk,
        &[repo().join("aspects/ExecutionCounter.aj")],
        &cache,
        &args,
    ));
    let err = text(&woven.stderr);
    assert_eq!(text(&woven.stdout), text(&plain.stdout), "stderr:\n{err}");
    assert!(text(&plain.stdout).contains("threads: ["));
    let executions = count(&err, "ExecutionCounter: ");
    let (seen, wove, failed) = summary(&err);
    eprintln!(
        "{}: {seen} classes seen, {wove} woven, {executions} executions counted",
        jdk.display()
    );
    assert_eq!(failed, 0, "{err}");
    assert!(wove > 300 && seen >= wove, "{err}");
    assert!(executions > 10_000, "{err}");
    // The program's three lambdas (and the JDK's) are hidden classes: never
    // handed to the hook, counted; every other class was seen.
    let line = err
        .lines()
        .find(|l| l.starts_with("major agent: not woven: "))
        .unwrap_or_else(|| panic!("no count of unwoven classes: {err}"));
    let lambdas: usize = line
        .split_once(" lambdas")
        .and_then(|(a, _)| a.rsplit('(').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no count of lambdas: {line}"));
    assert!(lambdas >= 3, "{line}");
    assert!(!line.contains("the hook never saw ("), "{line}");
    // Another aspect: counts in the JDK (ArrayList.add) and in the program.
    let woven = run(agent_command(
        jdk,
        &[here().join("aspects/counting/AddCounter.aj")],
        &cache,
        &args,
    ));
    let err = text(&woven.stderr);
    assert_eq!(text(&woven.stdout), text(&plain.stdout), "stderr:\n{err}");
    let adds = count(&err, "AddCounter: ");
    assert!(
        adds >= 10_000,
        "4 threads and 6 tasks add 1,000 each: {err}"
    );
    // Every call counted, with `thisJoinPointStaticPart` (a guard): a call
    // pointcut that matches the bypass decision's own call too, which must
    // not be a join point (the JVM crashed at its start when it was). Every
    // woven class verified, the same output, the top 20 calls printed.
    let woven = run(agent_command(
        jdk,
        &[repo().join("aspects/CallCounter.aj")],
        &cache,
        &args,
    ));
    let err = text(&woven.stderr);
    assert_eq!(text(&woven.stdout), text(&plain.stdout), "stderr:\n{err}");
    assert_eq!(summary(&err).2, 0, "{err}");
    let top = err
        .lines()
        .filter(|l| {
            l.trim_start()
                .split_once(' ')
                .is_some_and(|(n, s)| n.parse::<u64>().is_ok() && s.contains('('))
        })
        .count();
    assert_eq!(top, 20, "{err}");
    assert!(err.contains("java.lang.String."), "{err}");
}

#[test]
fn program_runs_woven_on_jdk17() {
    let Some(jdk) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    program_runs_woven(&jdk);
}

#[test]
fn program_runs_woven_on_jdk25() {
    let Some(jdk) = jdk25() else {
        return skip("JDK 25 is not installed");
    };
    program_runs_woven(&jdk);
}

fn agrees_with_two_phase(jdk: &Path, bypass: BypassForm) {
    let work = tempfile::tempdir().unwrap();
    let classes = compile_program(jdk, work.path());
    let cache = work.path().join("cache");
    // ExecutionCounter weaves nearly every class; AddCounter's counts are
    // compared; Signatures gives ArrayList an extra class of static parts.
    let aspects = [
        repo().join("aspects/ExecutionCounter.aj"),
        here().join("aspects/counting/AddCounter.aj"),
        here().join("aspects/counting/Signatures.aj"),
    ];
    // Two-phase: the whole JDK and the program woven into an image.
    let woven_dir = work.path().join("woven");
    let (_, woven) = major_weaver::woven_jdk::weave(&major_weaver::woven_jdk::JdkWeaveOptions {
        form: major_weaver::woven_jdk::JdkForm::Image,
        aspects: aspects.to_vec(),
        jdk: Jdk::at(jdk).unwrap(),
        modules: Vec::new(),
        inputs: vec![classes.clone()],
        classpath: Vec::new(),
        output: woven_dir.clone(),
        cache: Some(cache.clone()),
        strict: false,
        signed_jars: Default::default(),
        bypass,
    })
    .unwrap_or_else(|e| panic!("major weave --jdk: {e}"));
    let woven_classes = woven_dir.join(&woven.inputs[0]);
    let two_phase = run(woven.command(&os(&["-cp", woven_classes.to_str().unwrap(), "app.Main"])));
    // Single-phase, every class the agent changes dumped.
    let dump = work.path().join("dump");
    let mut c = agent_command_with(
        jdk,
        &aspects,
        bypass,
        &cache,
        &os(&["-cp", classes.to_str().unwrap(), "app.Main"]),
    );
    let agent_arg = c.get_args().next().unwrap().to_string_lossy().into_owned();
    let mut args: Vec<OsString> = c.get_args().skip(1).map(OsString::from).collect();
    args.insert(0, format!("{agent_arg},dump={}", dump.display()).into());
    c = Command::new(c.get_program());
    c.args(&args);
    let single = run(c);
    assert_eq!(text(&single.stdout), text(&two_phase.stdout));
    for prefix in ["AddCounter: ", "Signatures: "] {
        let line = |o: &Output| {
            text(&o.stderr)
                .lines()
                .find(|l| l.starts_with(prefix))
                .map(str::to_string)
                .unwrap_or_else(|| panic!("no count in:\n{}", text(&o.stderr)))
        };
        assert_eq!(
            line(&single),
            line(&two_phase),
            "the counts of the two modes differ"
        );
        assert!(count(&line(&single), prefix) > 0);
    }

    // Every class the agent saw: woven (or not) as the two-phase mode wove it.
    let woven_modules = woven_dir.join("lib/modules");
    let a = agreement(
        &dump,
        &ClassSource::new(std::slice::from_ref(&woven_classes), Some(&woven_modules)),
        &ClassSource::new(
            std::slice::from_ref(&classes),
            Some(&jdk.join("lib/modules")),
        ),
        &ClassSource::new(&[], Some(&woven_modules)),
    );
    eprintln!(
        "{} ({bypass:?}): {} classes woven identically, {} left alone by both, {} added \
         classes identical",
        jdk.display(),
        a.same_woven,
        a.same_plain,
        a.added
    );
    assert!(
        a.differ.is_empty(),
        "{} differences: {:#?}",
        a.differ.len(),
        a.differ
    );
    assert!(a.same_woven > 300 && a.same_plain > 0 && a.added > 10);
    for class in [
        "java/util/ArrayList",
        "java/lang/Thread",
        "jdk/internal/misc/VM",
        "app/Main",
    ] {
        assert!(
            dump.join(format!("{class}.class")).is_file(),
            "{class} not woven by the agent"
        );
    }
}

#[test]
fn agrees_with_two_phase_on_jdk17() {
    let Some(jdk) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    agrees_with_two_phase(&jdk, BypassForm::Guards);
}

#[test]
fn agrees_with_two_phase_on_jdk25() {
    let Some(jdk) = jdk25() else {
        return skip("JDK 25 is not installed");
    };
    agrees_with_two_phase(&jdk, BypassForm::Guards);
}

#[test]
fn agrees_with_two_phase_duplicating_on_jdk17() {
    let Some(jdk) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    agrees_with_two_phase(&jdk, BypassForm::Duplicate);
}

fn javac_unchanged(jdk: &Path) {
    let work = tempfile::tempdir().unwrap();
    let sources: Vec<PathBuf> = walk(&here().join("java/javac_input"));
    let plain = work.path().join("plain");
    let woven = work.path().join("woven");
    let javac_args = |out: &Path| {
        let mut a = os(&["-m", "jdk.compiler/com.sun.tools.javac.Main", "-g", "-d"]);
        a.push(out.into());
        a.extend(sources.iter().map(OsString::from));
        a
    };
    run({
        let mut c = Command::new(jdk.join("bin/java"));
        c.args(javac_args(&plain));
        c
    });
    let o = run(agent_command(
        jdk,
        &[repo().join("aspects/ExecutionCounter.aj")],
        &work.path().join("cache"),
        &javac_args(&woven),
    ));
    let err = text(&o.stderr);
    let (_, wove, failed) = summary(&err);
    assert_eq!(failed, 0, "{err}");
    assert!(wove > 1000, "javac's classes woven too: {err}");
    let files = |d: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        walk(d)
            .into_iter()
            .map(|p| {
                (
                    p.strip_prefix(d).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                )
            })
            .collect()
    };
    let (a, b) = (files(&plain), files(&woven));
    assert!(a.len() >= 6, "javac wrote {} files", a.len());
    assert_eq!(
        a.iter().map(|f| &f.0).collect::<Vec<_>>(),
        b.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    for ((p, x), (_, y)) in a.iter().zip(&b) {
        assert!(
            x == y,
            "{}: javac under the agent wrote other bytes",
            p.display()
        );
    }
}

#[test]
fn javac_unchanged_on_jdk17() {
    let Some(jdk) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    javac_unchanged(&jdk);
}

#[test]
fn javac_unchanged_on_jdk25() {
    let Some(jdk) = jdk25() else {
        return skip("JDK 25 is not installed");
    };
    javac_unchanged(&jdk);
}

#[test]
fn bad_options_stop_the_jvm_with_a_message() {
    let Some(jdk) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    let lib = agent_library();
    for (options, expected) in [
        ("", "no aspect given"),
        ("aspect=/nonexistent/A.aj", "/nonexistent/A.aj"),
        ("aspect=A.aj,colour=red", "unknown option `colour=red`"),
    ] {
        let o = Command::new(jdk.join("bin/java"))
            .arg(format!("-agentpath:{}={options}", lib.display()))
            .arg("-version")
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert!(!o.status.success(), "{options}: the JVM started");
        assert!(
            err.contains("major agent: cannot start") && err.contains(expected),
            "{options}: {err}"
        );
    }
}

/// `major run --aspect`, when the `major` binary was built beside the
/// agent (`cargo test --workspace`, `cargo build`).
#[test]
fn major_run_passes_the_exit_status_through() {
    let Some(jdk) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    let Some(major) = major_binary() else {
        return skip(
            "the major binary is not built beside the agent \
             (cargo build --release -p major-weaver)",
        );
    };
    let work = tempfile::tempdir().unwrap();
    let classes = compile_program(&jdk, work.path());
    let o = Command::new(&major)
        .args(["run", "--aspect"])
        .arg(repo().join("aspects/ExecutionCounter.aj"))
        .arg("--java-home")
        .arg(&jdk)
        .arg("--cache-dir")
        .arg(work.path().join("cache"))
        .args(["--", "-cp"])
        .arg(&classes)
        .args(["app.Main", "exit", "3"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "hello, world\n");
    assert!(text(&o.stderr).contains("ExecutionCounter: "));
    // An aspect that does not compile: exit 2 before java starts.
    let bad = work.path().join("Bad.aj");
    std::fs::write(
        &bad,
        "aspect Bad { before(): execution(* *(..)) { nosuch(); } }",
    )
    .unwrap();
    let o = Command::new(&major)
        .args(["run", "--aspect"])
        .arg(&bad)
        .arg("--java-home")
        .arg(&jdk)
        .args(["--", "-cp"])
        .arg(&classes)
        .arg("app.Main")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stdout).is_empty(), "the program ran");
}

/// A `java.lang.reflect.Proxy` and a class a custom loader defines from
/// bytes (neither on the class path) are woven as they are defined.
fn run_time_classes_woven(jdk: &Path) {
    let work = tempfile::tempdir().unwrap();
    let classes = work.path().join("classes");
    let plugin = work.path().join("plugin");
    let src = here().join("java/dynamic");
    major_tests::javac(jdk, "17", &classes, &[src.join("app/Dynamic.java")]);
    let status = Command::new(jdk.join("bin/javac"))
        .args(["--release", "17", "-cp"])
        .arg(&classes)
        .arg("-d")
        .arg(&plugin)
        .arg(src.join("gen/Plugin.java"))
        .status()
        .unwrap();
    assert!(status.success());
    let plugin_class = plugin.join("gen/Plugin.class");
    let args = os(&[
        "-Xverify:all",
        "-cp",
        classes.to_str().unwrap(),
        "app.Dynamic",
        plugin_class.to_str().unwrap(),
    ]);
    let plain = run({
        let mut c = Command::new(jdk.join("bin/java"));
        c.args(&args);
        c
    });
    let dump = work.path().join("dump");
    let mut c = agent_command(
        jdk,
        &[here().join("aspects/counting/Greetings.aj")],
        &work.path().join("cache"),
        &args,
    );
    let mut a: Vec<OsString> = c.get_args().map(OsString::from).collect();
    a[0].push(format!(",dump={}", dump.display()));
    c = Command::new(c.get_program());
    c.args(&a);
    let woven = run(c);
    let err = text(&woven.stderr);
    assert_eq!(text(&woven.stdout), text(&plain.stdout), "{err}");
    assert_eq!(count(&err, "Greetings: "), 2, "{err}");
    assert_eq!(summary(&err).2, 0, "{err}");
    assert!(dump.join("gen/Plugin.class").is_file());
    let proxies: Vec<PathBuf> = walk(&dump)
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("$Proxy"))
        .collect();
    assert!(!proxies.is_empty(), "no proxy class woven: {err}");
}

#[test]
fn run_time_classes_woven_on_jdk17() {
    let Some(jdk) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    run_time_classes_woven(&jdk);
}

#[test]
fn run_time_classes_woven_on_jdk25() {
    let Some(jdk) = jdk25() else {
        return skip("JDK 25 is not installed");
    };
    run_time_classes_woven(&jdk);
}

/// JDK 17 defines its generated reflection accessors in a
/// `DelegatingClassLoader` that HotSpot skips when it resolves names from
/// their code: an accessor whose weave needs an extra class of static parts
/// (its class file is older than Java 7) gets it defined in the loader's
/// parent, where the accessor's code finds it, and the extra class finds
/// the accessor by its frame. The accessor's advice runs, once per
/// reflective call, and its static part names the accessor.
#[test]
fn reflection_accessors_are_woven_with_static_parts_on_jdk17() {
    let Some(jdk) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    let work = tempfile::tempdir().unwrap();
    let classes = work.path().join("classes");
    major_tests::javac(
        &jdk,
        "17",
        &classes,
        &[here().join("java/reflective/app/Reflective.java")],
    );
    let args = os(&[
        "-Dsun.reflect.noInflation=true",
        "-cp",
        classes.to_str().unwrap(),
        "app.Reflective",
    ]);
    let cache = work.path().join("cache");
    // Twice: woven, then from the cache of woven classes.
    for round in ["woven", "cached"] {
        let woven = run(agent_command(
            &jdk,
            &[here().join("aspects/accessors/StaticParts.aj")],
            &cache,
            &args,
        ));
        let err = text(&woven.stderr);
        assert_eq!(
            text(&woven.stdout),
            "constructed 3 times\n\
             accessor newInstance in jdk.internal.reflect.GeneratedConstructorAccessorN: 3\n",
            "{round}: {err}"
        );
        assert_eq!(summary(&err).2, 0, "{round}: {err}");
        // The program's accessor and those the JDK makes for itself (with
        // `noInflation`, every reflective call has one).
        assert!(
            err.contains(" reflection accessors (jdk/internal/reflect/Generated*) woven"),
            "{round}: the accessors are not counted: {err}"
        );
    }
}

/// A class the weaver cannot read is loaded as it was (here the JVM then
/// rejects it too), named and counted; with `fatal`, it ends the JVM.
#[test]
fn a_class_that_fails_is_loaded_as_it_was() {
    let Some(jdk) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    let work = tempfile::tempdir().unwrap();
    let classes = work.path().join("classes");
    let src = here().join("java/dynamic");
    major_tests::javac(&jdk, "17", &classes, &[src.join("app/Dynamic.java")]);
    let status = Command::new(jdk.join("bin/javac"))
        .args(["--release", "17", "-cp"])
        .arg(&classes)
        .arg("-d")
        .arg(work.path().join("p"))
        .arg(src.join("gen/Plugin.java"))
        .status()
        .unwrap();
    assert!(status.success());
    let plugin_class = work.path().join("p/gen/Plugin.class");
    let args = os(&[
        "-cp",
        classes.to_str().unwrap(),
        "app.Dynamic",
        plugin_class.to_str().unwrap(),
        "40",
    ]);
    let cache = work.path().join("cache");
    let aspects = [here().join("aspects/counting/Greetings.aj")];
    let o = run(agent_command(&jdk, &aspects, &cache, &args));
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert!(out.contains("damaged class rejected"), "{out}{err}");
    assert!(
        err.contains("major agent: gen/Broken: not woven, loaded as it was"),
        "{err}"
    );
    assert_eq!(summary(&err).2, 1, "{err}");
    // fatal: the run ends at the damaged class.
    let mut c = agent_command(&jdk, &aspects, &cache, &args);
    let mut a: Vec<OsString> = c.get_args().map(OsString::from).collect();
    a[0].push(",fatal");
    c = Command::new(c.get_program());
    c.args(&a);
    let o = c.output().unwrap();
    assert_eq!(o.status.code(), Some(70), "{}", text(&o.stderr));
    assert!(!text(&o.stdout).contains("damaged class rejected"));
}
