//! Coverage against an independent oracle: a JVMTI agent
//! (`tests/jvmti/method_counter.c`, built here with the C compiler) counts
//! every method entry of a program (`tests/java/coverage`) run unwoven; the
//! same program woven with an execution counter (`tests/java/coverage/Counter.aj`:
//! every method, constructor and static initializer) must count the same
//! number of executions for every method. The only differences allowed are
//! named categories, each reported with its size:
//!
//! * static initialization join points of classes without a `<clinit>`
//!   (AspectJ has them; no method runs, so the oracle sees none);
//! * hidden classes the JDK spins at run time (lambda proxies): never in an
//!   archive, so never woven statically;
//! * synthetic methods (lambda bodies, `$values`, bridges): not join points
//!   in AspectJ.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use major_weaver::jdk::Jdk;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn run(c: &mut Command) -> Output {
    let o = c.output().unwrap_or_else(|e| panic!("{c:?}: {e}"));
    assert!(o.status.success(), "{c:?}: {}", text(&o));
    o
}

/// Builds the agent; `None` (after printing why) without a C compiler or
/// the JDK's JVMTI headers.
fn build_agent(jdk: &Jdk, dir: &Path) -> Option<PathBuf> {
    let include = jdk.home.join("include");
    if !include.join("jvmti.h").is_file() {
        eprintln!("SKIP: {} has no include/jvmti.h", jdk.home.display());
        return None;
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let lib = dir.join("libmethod_counter.so");
    let o = Command::new(&cc)
        .args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", include.display()))
        .arg(format!("-I{}", include.join("linux").display()))
        .arg("-o")
        .arg(&lib)
        .arg(repo().join("tests/jvmti/method_counter.c"))
        .output();
    match o {
        Ok(o) if o.status.success() => Some(lib),
        Ok(o) => panic!("{cc} failed on method_counter.c: {}", text(&o)),
        Err(e) => {
            eprintln!("SKIP: no C compiler ({cc}: {e})");
            None
        }
    }
}

/// `count class.nameDescriptor` lines into a map.
fn counts(file: &Path) -> BTreeMap<String, u64> {
    std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .lines()
        .map(|l| {
            let (n, k) = l.split_once(' ').expect("count and method");
            (k.to_string(), n.parse().expect("count"))
        })
        .collect()
}

/// The methods of the compiled program: `class.nameDescriptor` → synthetic,
/// and the classes that have a static initializer.
fn program_methods(classes: &Path) -> (BTreeMap<String, bool>, BTreeSet<String>) {
    let mut methods = BTreeMap::new();
    let mut with_clinit = BTreeSet::new();
    let archive = major_archive::Archive::open(classes).unwrap();
    for (i, e) in archive.entries().iter().enumerate() {
        if !e.name.ends_with(".class") {
            continue;
        }
        let bytes = archive.read(i).unwrap();
        let class = major_classfile::ClassFile::parse(&bytes).unwrap();
        let name = class.name().unwrap().into_owned();
        for m in &class.methods {
            let n = class.member_name(m).unwrap();
            let d = class.member_descriptor(m).unwrap();
            if n == "<clinit>" {
                with_clinit.insert(name.clone());
            }
            methods.insert(format!("{name}.{n}{d}"), m.access & 0x1000 != 0);
        }
    }
    (methods, with_clinit)
}

#[test]
fn woven_execution_counts_equal_a_jvmti_method_entry_count() {
    let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
        eprintln!("SKIP: no JDK with javac");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(agent) = build_agent(&jdk, d) else {
        return;
    };
    let src = repo().join("tests/java/coverage");
    let sources: Vec<PathBuf> = std::fs::read_dir(src.join("app"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "java"))
        .collect();
    let classes = d.join("classes");
    run(Command::new(jdk.javac().unwrap())
        .args(["--release", "11", "-g", "-d"])
        .arg(&classes)
        .args(&sources));

    // The oracle, on the unwoven program.
    let oracle_file = d.join("oracle.txt");
    let plain = run(Command::new(jdk.java())
        .arg(format!(
            "-agentpath:{}=out={},prefix=app/",
            agent.display(),
            oracle_file.display()
        ))
        .arg("-cp")
        .arg(&classes)
        .arg("app.Main"));
    // The woven program, counting itself.
    let woven = d.join("woven");
    run(Command::new(env!("CARGO_BIN_EXE_major"))
        .arg("weave")
        .arg("--java-home")
        .arg(&jdk.home)
        .arg("--no-cache")
        .arg("--aspect")
        .arg(src.join("Counter.aj"))
        .arg(&classes)
        .arg("-o")
        .arg(&woven));
    let major_file = d.join("major.txt");
    let counted = run(Command::new(jdk.java())
        .arg("-Xverify:all")
        .arg(format!("-Dcounter.out={}", major_file.display()))
        .arg("-cp")
        .arg(&woven)
        .arg("app.Main"));
    assert_eq!(
        plain.stdout, counted.stdout,
        "the woven program printed something else"
    );

    let oracle = counts(&oracle_file);
    let major = counts(&major_file);
    let (methods, with_clinit) = program_methods(&classes);
    let mut categories: BTreeMap<&str, (usize, u64)> = BTreeMap::new();
    let mut unexplained = Vec::new();
    let keys: BTreeSet<&String> = oracle.keys().chain(major.keys()).collect();
    for k in keys {
        let (o, m) = (
            oracle.get(k).copied().unwrap_or(0),
            major.get(k).copied().unwrap_or(0),
        );
        if o == m {
            continue;
        }
        let class = k.split_once('.').map_or(k.as_str(), |(c, _)| c);
        let category = if o == 0 && k.ends_with(".<clinit>()V") && !with_clinit.contains(class) {
            Some("static initialization of classes without <clinit>")
        } else if m == 0 && !methods.contains_key(k) && class.contains("$$Lambda") {
            Some("hidden classes spun at run time")
        } else if m == 0 && methods.get(k) == Some(&true) {
            Some("synthetic methods (not join points in AspectJ)")
        } else {
            None
        };
        match category {
            Some(c) => {
                let e = categories.entry(c).or_default();
                e.0 += 1;
                e.1 += o.abs_diff(m);
            }
            None => unexplained.push(format!("{k}: oracle {o}, major {m}")),
        }
    }
    let executed = oracle.len();
    let seen = oracle.keys().filter(|k| major.contains_key(*k)).count();
    eprintln!(
        "oracle: {executed} methods executed, {} executions; major's counter sees {seen} of them ({:.1}%)",
        oracle.values().sum::<u64>(),
        100.0 * seen as f64 / executed as f64
    );
    for (c, (n, diff)) in &categories {
        eprintln!("  difference: {c}: {n} methods, {diff} executions");
    }
    assert!(
        unexplained.is_empty(),
        "counts differ:\n  {}",
        unexplained.join("\n  ")
    );
    // The program is not trivial and the counter saw it.
    assert!(executed >= 25, "only {executed} methods executed");
    assert!(oracle.get("app/Main.fib(I)I") == Some(&2150), "{oracle:?}");
    assert!(seen * 10 >= executed * 8, "major saw {seen} of {executed}");
}
