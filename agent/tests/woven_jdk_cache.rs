//! Runs on a JDK woven ahead (`major run --aspect --woven-jdk`,
//! `major_weaver::woven_jdk_cache`), on JDK 17 and JDK 25:
//!
//! * the program gives the unwoven output with class-data sharing on
//!   (`-Xshare:on`: the JVM refuses to start without it; the class path's
//!   classes verified, as by default: the archive forbids `-Xverify:all`;
//!   woven JDKs link under it in `weaver/tests/woven_jdk.rs`), the agent weaves
//!   only what the woven JDK does not hold (the class path's classes, a
//!   proxy, a custom loader's class), and those are byte for byte the
//!   classes the agent weaves when it weaves every class as it loads;
//! * a second run finds the woven JDK in the cache and weaves no other; a
//!   damaged one is not used (the run goes as if there were none), and a
//!   build replaces it;
//! * the agent told the JDK is woven when it is not stops the JVM with a
//!   message;
//! * `major run` weaves a woven JDK in the background only from a terminal,
//!   after the aspects ran once before, and later runs start from it.

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{agent_library, count, here, major_binary, os, repo, run, summary, text, walk};
use major_tests::{jdk17, jdk25, skip};
use major_weaver::jdk::Jdk;
use major_weaver::load_time::{AgentCommand, AgentRun};
use major_weaver::woven_jdk_cache::WovenJdkMode;

/// The agent run of `aspects` over `args`, its woven JDK as `mode` says.
fn prepare(
    jdk: &Path,
    aspects: &[PathBuf],
    cache: &Path,
    mode: WovenJdkMode,
    args: &[OsString],
) -> AgentCommand {
    AgentRun {
        aspects: aspects.to_vec(),
        jdk: Jdk::at(jdk).expect("a JDK"),
        cache: Some(cache.to_path_buf()),
        agent: agent_library(),
        verbose: true,
        bypass: Default::default(),
        no_class_cache: false,
        fatal: false,
        woven_jdk: mode,
    }
    .prepare(args)
    .unwrap_or_else(|e| panic!("preparing the agent run: {e}"))
}

/// `c` with `dump=DIR` added to the agent's options.
fn dumping(c: &Command, dir: &Path) -> Command {
    let mut a: Vec<OsString> = c.get_args().map(OsString::from).collect();
    a[0].push(format!(",dump={}", dir.display()));
    let mut out = Command::new(c.get_program());
    out.args(&a);
    out
}

/// The classes the agent wove, by path under its dump (its lists and the
/// added classes left out).
fn woven_classes(dump: &Path) -> Vec<PathBuf> {
    walk(dump)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "class"))
        .map(|p| p.strip_prefix(dump).unwrap().to_path_buf())
        .filter(|p| !p.starts_with("added"))
        .collect()
}

fn runs_on_a_woven_jdk(jdk: &Path) {
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
    let cache = work.path().join("cache");
    let aspects = [
        here().join("aspects/counting/Greetings.aj"),
        repo().join("aspects/ExecutionCounter.aj"),
    ];
    let program = |share: &str| {
        os(&[
            share,
            "-cp",
            classes.to_str().unwrap(),
            "app.Dynamic",
            plugin_class.to_str().unwrap(),
        ])
    };
    let plain = run({
        let mut c = Command::new(jdk.join("bin/java"));
        c.args(program("-Xshare:auto"));
        c
    });

    // Woven ahead: built once, then run with class-data sharing required.
    let on = prepare(
        jdk,
        &aspects,
        &cache,
        WovenJdkMode::Build,
        &program("-Xshare:on"),
    );
    let woven_jdk = on.woven_jdk.clone().expect("a woven JDK");
    assert!(woven_jdk.dir.starts_with(cache.join("woven-jdks")));
    let dump_on = work.path().join("dump-on");
    let o = run(dumping(&on.command, &dump_on));
    let err = text(&o.stderr);
    assert_eq!(text(&o.stdout), text(&plain.stdout), "{err}");
    assert_eq!(count(&err, "Greetings: "), 2, "{err}");
    assert!(count(&err, "ExecutionCounter: ") > 1_000, "{err}");
    assert!(err.contains("major agent: on a woven JDK ("), "{err}");
    let (seen, wove, failed) = summary(&err);
    assert_eq!(failed, 0, "{err}");
    // The woven JDK's classes pass as they are: only the program's, the
    // plugin and the proxy are woven here.
    assert!(wove < 20 && seen > wove, "{err}");
    let on_classes = woven_classes(&dump_on);
    for expected in ["app/Dynamic.class", "gen/Plugin.class"] {
        assert!(
            on_classes.iter().any(|p| p == Path::new(expected)),
            "{expected} not woven: {on_classes:?}\n{err}"
        );
    }
    assert!(
        on_classes
            .iter()
            .any(|p| p.to_string_lossy().contains("$Proxy")),
        "no proxy woven: {on_classes:?}"
    );

    // Every class woven as it loads: the same bytes for the same classes.
    let off = prepare(
        jdk,
        &aspects,
        &cache,
        WovenJdkMode::Off,
        &program("-Xshare:auto"),
    );
    assert!(off.woven_jdk.is_none());
    let dump_off = work.path().join("dump-off");
    let o = run(dumping(&off.command, &dump_off));
    assert_eq!(text(&o.stdout), text(&plain.stdout));
    for c in &on_classes {
        // A proxy's name holds a number that may differ between runs.
        if c.to_string_lossy().contains("$Proxy") {
            continue;
        }
        assert_eq!(
            std::fs::read(dump_on.join(c)).unwrap(),
            std::fs::read(dump_off.join(c)).unwrap_or_default(),
            "{} differs between the modes",
            c.display()
        );
    }

    // A second run finds it (auto), and nothing else was woven.
    let again = prepare(
        jdk,
        &aspects,
        &cache,
        WovenJdkMode::Auto,
        &program("-Xshare:on"),
    );
    assert_eq!(
        again.woven_jdk.as_ref().map(|w| &w.dir),
        Some(&woven_jdk.dir)
    );
    let kept: Vec<_> = std::fs::read_dir(cache.join("woven-jdks"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir() && !e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert_eq!(kept.len(), 1);

    // A damaged woven JDK is not used (a warning), and a build replaces it.
    let modules = woven_jdk.dir.join("lib/modules");
    std::fs::write(&modules, b"not an image").unwrap();
    let damaged = prepare(
        jdk,
        &aspects,
        &cache,
        WovenJdkMode::Auto,
        &program("-Xshare:auto"),
    );
    assert!(damaged.woven_jdk.is_none());
    let o = run(damaged.command);
    assert_eq!(text(&o.stdout), text(&plain.stdout));
    let rebuilt = prepare(
        jdk,
        &aspects,
        &cache,
        WovenJdkMode::Build,
        &program("-Xshare:on"),
    );
    assert!(rebuilt.woven_jdk.is_some());
    let o = run(rebuilt.command);
    assert_eq!(text(&o.stdout), text(&plain.stdout));

    // The agent told that the plain JDK is woven refuses to start.
    let mut wrong = Command::new(jdk.join("bin/java"));
    let mut a: Vec<OsString> = on.command.get_args().map(OsString::from).collect();
    wrong.current_dir(work.path());
    a.retain(|x| !x.to_string_lossy().starts_with("-Xshare"));
    wrong.args(&a);
    let o = wrong.output().unwrap();
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("is not a JDK woven with these aspects"),
        "{err}"
    );
    assert!(
        !walk(work.path())
            .iter()
            .any(|p| p.to_string_lossy().contains("hs_err")),
        "the JVM crashed"
    );
}

#[test]
fn runs_on_a_woven_jdk_on_jdk17() {
    let Some(jdk) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    runs_on_a_woven_jdk(&jdk);
}

#[test]
fn runs_on_a_woven_jdk_on_jdk25() {
    let Some(jdk) = jdk25() else {
        return skip("JDK 25 is not installed");
    };
    runs_on_a_woven_jdk(&jdk);
}

/// `script` runs a command on a pseudo-terminal (util-linux).
fn script() -> Option<PathBuf> {
    ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

#[test]
fn major_run_weaves_the_jdk_in_the_background_from_a_terminal() {
    let Some(jdk) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    let Some(major) = major_binary() else {
        return skip(
            "the major binary is not built beside the agent \
             (cargo build --release -p major-weaver)",
        );
    };
    let Some(script) = script() else {
        return skip("`script` (util-linux) is not installed: no terminal to run major in");
    };
    let work = tempfile::tempdir().unwrap();
    let classes = common::compile_program(&jdk, work.path());
    let cache = work.path().join("cache");
    let line = |extra: &str| {
        format!(
            "{} run {extra} --aspect {} --java-home {} --cache-dir {} -- -cp {} app.Main exit 0",
            major.display(),
            repo().join("aspects/ExecutionCounter.aj").display(),
            jdk.display(),
            cache.display(),
            classes.display()
        )
    };
    // A woven JDK is built in a hidden sibling (`.<key>.major-tmp-...`),
    // which holds its description a moment before it is renamed into place.
    let built = || {
        std::fs::read_dir(cache.join("woven-jdks"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .find(|e| e.path().join("woven-jdk.txt").is_file())
            .map(|e| e.path())
    };
    // Without a terminal, repeated runs build nothing.
    for _ in 0..2 {
        let o = Command::new("sh").arg("-c").arg(line("")).output().unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
    }
    assert!(!cache.join("woven-jdks").exists());
    // From a terminal: the first run records the aspects, the second starts
    // the weave in the background.
    let mut said = String::new();
    for _ in 0..2 {
        let o = Command::new(&script)
            .args(["-qec", &line(""), "/dev/null"])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o.stdout));
        said.push_str(&text(&o.stdout));
    }
    assert!(
        said.contains("weaving the JDK with them in the background"),
        "{said}"
    );
    let started = std::time::Instant::now();
    let dir = loop {
        if let Some(d) = built() {
            break d;
        }
        let log: String = walk(&cache.join("woven-jdks"))
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "log"))
            .map(|p| std::fs::read_to_string(p).unwrap_or_default())
            .collect();
        assert!(
            started.elapsed().as_secs() < 300,
            "no woven JDK after 5 minutes; the build's log:\n{log}"
        );
        std::thread::sleep(std::time::Duration::from_millis(250));
    };
    // A later run starts from it.
    let o = Command::new("sh")
        .arg("-c")
        .arg(line("--verbose"))
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(text(&o.stdout), "hello, world\n");
    assert!(
        err.contains(&format!("on a woven JDK ({}", dir.display())),
        "{err}"
    );
}
