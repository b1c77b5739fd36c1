//! A real multi-jar application under the agent: Maven itself (plexus
//! classworlds' launcher, class realms of its own for its core and each
//! plugin, Sisu's dependency injection, javac in-process, the plugin
//! descriptor generator scanning class files) builds major's Maven plugin
//! (`maven/`) offline with `mvn package`, once as it is and once with every
//! class woven as it loads by ExecutionCounter, ObjectTracker and an aspect
//! using `around`, `cflow` and `thisJoinPoint`, all three together: the woven
//! build writes the same jar entries as the plain one, and no class fails to
//! weave.

mod common;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use common::{agent_command, count, plain_java, repo, run, summary, text};
use major_tests::{jdk17, skip};

/// Maven's launcher jar and its class-realm configuration (Debian package
/// maven).
const CLASSWORLDS: &str = "/usr/share/maven/boot/plexus-classworlds-2.x.jar";
const M2_CONF: &str = "/usr/share/maven/bin/m2.conf";
const MAVEN_HOME: &str = "/usr/share/maven";

/// What `mvn package` of the plugin needs from Debian's repository (packages
/// named in `.ci/run`).
const NEEDED: &[&str] = &[
    "/usr/share/maven-repo/org/apache/maven/plugins/maven-plugin-plugin/3.7.1",
    "/usr/share/maven-repo/org/apache/maven/plugins/maven-compiler-plugin/3.10.1",
    "/usr/share/maven-repo/org/apache/maven/plugins/maven-jar-plugin/3.3.0",
];

/// Why Maven cannot run here, if it cannot.
fn missing() -> Option<String> {
    [CLASSWORLDS, M2_CONF]
        .iter()
        .chain(NEEDED)
        .find(|p| !Path::new(p).exists())
        .map(|p| format!("{p} is missing (Debian packages maven, libmaven-plugin-tools-java, ...)"))
}

/// A copy of the plugin's project in `dir`.
fn project(dir: &Path) {
    let src = repo().join("maven");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::copy(src.join("pom.xml"), dir.join("pom.xml")).unwrap();
    copy_tree(&src.join("src"), &dir.join("src"));
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// The java arguments of `mvn -o -q package` in `project`, with the local
/// repository `local` (what Debian's `mvn` script passes, plus the offline
/// settings).
fn maven_args(project: &Path, local: &Path) -> Vec<OsString> {
    let mut a: Vec<OsString> = Vec::new();
    a.push("-classpath".into());
    a.push(CLASSWORLDS.into());
    a.push(format!("-Dclassworlds.conf={M2_CONF}").into());
    a.push(format!("-Dmaven.home={MAVEN_HOME}").into());
    a.push(format!("-Dmaven.multiModuleProjectDirectory={}", project.display()).into());
    a.push("org.codehaus.plexus.classworlds.launcher.Launcher".into());
    for s in ["-o", "-q", "-B", "-f"] {
        a.push(s.into());
    }
    a.push(project.join("pom.xml").into());
    a.push("-s".into());
    a.push(repo().join("maven/offline-settings.xml").into());
    a.push("-Daether.offline.protocols=file".into());
    a.push(format!("-Dmaven.repo.local={}", local.display()).into());
    a.push("package".into());
    a
}

/// The entries of the jar at `path`: name to contents.
fn entries(path: &Path) -> BTreeMap<String, Vec<u8>> {
    let a = major_archive::Archive::open(path).unwrap();
    a.entries()
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.is_dir)
        .map(|(i, e)| (e.name.clone(), a.read(i).unwrap().into_owned()))
        .collect()
}

/// `s` without its ANSI escape sequences (`ESC [ parameters letter`).
fn without_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn escapes_are_taken_out() {
    assert_eq!(
        without_escapes("\u{1b}[0m\u{1b}[0mObjectTracker: 5 allocations\n\u{1b}[1;31mx\u{1b}[m"),
        "ObjectTracker: 5 allocations\nx"
    );
}

fn built_jar(project: &Path) -> PathBuf {
    project.join("target/major-maven-plugin-0.1.0.jar")
}

#[test]
fn maven_builds_the_same_jar_woven_on_jdk17() {
    let Some(jdk) = jdk17() else {
        return skip("JDK 17 is not installed");
    };
    if let Some(why) = missing() {
        return skip(&why);
    }
    let work = tempfile::tempdir().unwrap();
    let plain_dir = work.path().join("plain");
    let woven_dir = work.path().join("woven");
    project(&plain_dir);
    project(&woven_dir);

    let plain = run(plain_java(
        &jdk,
        &maven_args(&plain_dir, &work.path().join("repo-plain")),
    ));
    let plain_jar = entries(&built_jar(&plain_dir));
    assert!(
        plain_jar.contains_key("META-INF/maven/plugin.xml")
            && plain_jar.keys().filter(|n| n.ends_with(".class")).count() > 10,
        "the plain build wrote no plugin: {:?}\n{}",
        plain_jar.keys().collect::<Vec<_>>(),
        text(&plain.stderr)
    );

    let woven = run(agent_command(
        &jdk,
        &[
            repo().join("aspects/ExecutionCounter.aj"),
            repo().join("aspects/ObjectTracker.aj"),
            repo().join("tests/workloads/aspects/WorkloadProfiler.aj"),
        ],
        &work.path().join("cache"),
        &[],
        &maven_args(&woven_dir, &work.path().join("repo-woven")),
    ));
    // Maven's console resets its colours (`ESC[0m`) without a newline
    // before the aspects' reports, which its shutdown hooks print in any
    // order: the escapes are taken out before the lines are read.
    let err = without_escapes(&text(&woven.stderr));
    let (seen, wove, failed) = summary(&err);
    let executions = count(&err, "ExecutionCounter: ");
    let allocations = count(&err, "ObjectTracker: ");
    eprintln!(
        "Maven under the agent: {seen} classes seen, {wove} woven, {executions} executions, \
         {allocations} allocations"
    );
    assert_eq!(failed, 0, "{err}");
    // Maven's realms load thousands of classes; most are woven.
    assert!(wove > 3_000 && seen >= wove, "{err}");
    assert!(executions > 10_000_000, "{err}");
    assert!(
        err.contains("WorkloadProfiler: ") && err.contains(" proceeds"),
        "the around advice did not report: {err}"
    );
    assert!(allocations > 100_000, "{err}");

    let woven_jar = entries(&built_jar(&woven_dir));
    assert_eq!(
        woven_jar.keys().collect::<Vec<_>>(),
        plain_jar.keys().collect::<Vec<_>>(),
        "the woven build wrote other entries"
    );
    for (name, bytes) in &plain_jar {
        assert!(
            woven_jar[name] == *bytes,
            "{name} differs between the plain and the woven build"
        );
    }
}
