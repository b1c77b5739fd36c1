//! Coverage against the JVMTI oracle under the single-phase agent: the
//! agent weaves every class as it loads with a counter of every execution
//! (`tests/java/fullcov/JdkCounter.aj` over `ExecutionCounts.aj`) while the
//! oracle (`tests/jvmti/method_counter.c`, a second JVMTI agent in the same
//! JVM) counts `MethodEntry` events; per method the two counts must be
//! equal, but for the named categories of the two-phase comparison
//! (`major_tests::method_counts`, shared with `tests/tests/full_coverage.rs`)
//! minus one: classes defined at run time are woven now. Shown on the
//! coverage program (`tests/java/coverage`) and on a program that makes a
//! `java.lang.reflect.Proxy` and defines `gen.Plugin` through a custom class
//! loader (`agent/tests/java/dynamic`): the proxy's and the plugin's methods
//! count exactly what the oracle counts. Only hidden classes (lambdas, lambda
//! forms), which the JVM never hands to the class file load hook, stay a
//! category.

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use common::{here, plain_java, repo, run, text};
use major_archive::Archive;
use major_tests::method_counts::{
    access_flags, build_oracle, compare_counts, count_both, is_hidden, RunTimeClasses,
};
use major_tests::{jdk17, jdk25, skip};

fn counts_equal_the_oracle(jdk: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(oracle) = build_oracle(jdk, d) else {
        return;
    };
    // The coverage program and the dynamic one, in one class directory;
    // the plugin's class apart (only the custom loader defines it).
    let classes = d.join("classes");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/java/coverage/app"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    sources.push(here().join("java/dynamic/app/Dynamic.java"));
    major_tests::javac(jdk, "17", &classes, &sources);
    let plugin = d.join("plugin");
    let status = std::process::Command::new(jdk.join("bin/javac"))
        .args(["--release", "17", "-cp"])
        .arg(&classes)
        .arg("-d")
        .arg(&plugin)
        .arg(here().join("java/dynamic/gen/Plugin.java"))
        .status()
        .unwrap();
    assert!(status.success(), "javac of gen/Plugin.java failed");
    let plugin_class = plugin.join("gen/Plugin.class");
    let fullcov = repo().join("tests/java/fullcov");
    let aspects = [
        fullcov.join("ExecutionCounts.aj"),
        fullcov.join("JdkCounter.aj"),
    ];
    let cp: OsString = classes.clone().into();
    let agent = common::agent_jvm_options(
        jdk,
        &aspects,
        &d.join("cache"),
        &[],
        &["-cp".into(), cp.clone()],
    );
    // Access flags (native, bridge, intrinsic) of the JDK's and the
    // programs' methods; the proxy has none (it is in no archive).
    let mut access = access_flags(&Archive::open(&jdk.join("lib/modules")).unwrap(), "");
    access.extend(access_flags(&Archive::open(&classes).unwrap(), ""));
    access.extend(access_flags(&Archive::open(&plugin).unwrap(), ""));

    for program in [
        vec!["app.Main".into()],
        vec!["app.Dynamic".into(), plugin_class.clone().into_os_string()],
    ] {
        let mut args: Vec<OsString> = vec!["-cp".into(), cp.clone()];
        args.extend(program.iter().cloned());
        let name = program[0].to_string_lossy().into_owned();
        let out = d.join(&name);
        std::fs::create_dir_all(&out).unwrap();
        let plain = run(plain_java(jdk, &args));
        let (counted, stdout) = count_both(jdk, &oracle, "", &agent, &args, &out);
        assert_eq!(
            stdout,
            text(&plain.stdout),
            "{name} printed something else under the agent and the oracle"
        );
        let c = compare_counts(&counted, &access, &[], RunTimeClasses::Woven);
        c.print(&format!("{name} under the agent on {}", jdk.display()));
        assert!(
            c.unexplained.is_empty(),
            "{name}: counts differ from the oracle's:\n  {}",
            c.unexplained.join("\n  ")
        );
        assert!(c.executed >= 1000, "only {} methods executed", c.executed);
        assert!(
            c.seen * 100 >= c.executed * 85,
            "major saw {} of {}",
            c.seen,
            c.executed
        );
        if name == "app.Dynamic" {
            // The classes defined at run time: counted, and as the oracle counts.
            for (what, prefix) in [("the proxy", "/$Proxy"), ("the plugin", "gen/Plugin.")] {
                let methods: Vec<(&String, &u64)> = counted
                    .oracle
                    .iter()
                    .filter(|(k, _)| k.contains(prefix) && !is_hidden(k) && !k.contains("<clinit>"))
                    .collect();
                assert!(
                    !methods.is_empty(),
                    "the oracle saw no method of {what} ({prefix})"
                );
                for (k, n) in &methods {
                    assert_eq!(
                        counted.major.get(*k),
                        Some(*n),
                        "{k}: the oracle counted {n}, major {:?}",
                        counted.major.get(*k)
                    );
                }
                eprintln!(
                    "  {what}: {} methods ({}), {} executions, counted exactly",
                    methods.len(),
                    methods
                        .iter()
                        .map(|(k, _)| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    methods.iter().map(|(_, n)| **n).sum::<u64>()
                );
            }
        }
    }
}

#[test]
fn execution_counts_under_the_agent_equal_the_oracle_on_jdk17() {
    let Some(jdk) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    counts_equal_the_oracle(&jdk);
}

#[test]
fn execution_counts_under_the_agent_equal_the_oracle_on_jdk25() {
    let Some(jdk) = jdk25() else {
        return skip("JDK 25 is not installed");
    };
    counts_equal_the_oracle(&jdk);
}
