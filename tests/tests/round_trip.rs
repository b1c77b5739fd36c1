//! Round trip over every class of this machine's JDKs and jars: read → write gives
//! identical bytes, and every method body decoded to the label list and encoded
//! again gives an identical `Code` attribute.

use std::path::{Path, PathBuf};

use major_archive::Archive;
use major_tests::{jdk17, jdk25, skip, system_jars};
use major_weaver::check::{check_archive, CheckOptions};
use major_weaver::index::ClassIndex;

fn check_all(inputs: &[PathBuf]) -> (usize, usize) {
    let empty = ClassIndex::new();
    let (mut classes, mut methods) = (0, 0);
    for p in inputs {
        let archive = Archive::open(p).unwrap_or_else(|e| panic!("{e}"));
        let r = check_archive(
            &archive,
            CheckOptions {
                codec: true,
                reframe: false,
                keep_frames: false,
            },
            &empty,
            &|_| true,
            None,
        );
        for f in &r.failures {
            eprintln!("  {f}");
        }
        assert!(r.ok(), "{}: {} failures", p.display(), r.failures.len());
        assert_eq!(r.round_trip_identical, r.classes);
        assert_eq!(r.codec_identical, r.classes);
        classes += r.classes;
        methods += r.methods;
    }
    (classes, methods)
}

#[test]
fn jdk17_jmods_round_trip() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17 at /usr/lib/jvm/java-17-openjdk-amd64");
    };
    let mut jmods: Vec<PathBuf> = std::fs::read_dir(home.join("jmods"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    jmods.retain(|p| p.extension().is_some_and(|e| e == "jmod"));
    jmods.sort();
    if jmods.is_empty() {
        return skip("JDK 17 has no jmods (install openjdk-17-jmods)");
    }
    let (c, m) = check_all(&jmods);
    eprintln!(
        "JDK 17 jmods: {} files, {c} classes, {m} methods identical",
        jmods.len()
    );
    assert!(c > 20_000, "expected the whole JDK, got {c} classes");
}

#[test]
fn jdk17_runtime_image_round_trip() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    let (c, m) = check_all(&[home.join("lib/modules")]);
    eprintln!("JDK 17 lib/modules: {c} classes, {m} methods identical");
    assert!(c > 20_000);
}

#[test]
fn jdk25_runtime_image_round_trip() {
    let Some(home) = jdk25() else {
        return skip("no JDK 25 at /usr/lib/jvm/temurin-25-jdk-amd64");
    };
    let (c, m) = check_all(&[home.join("lib/modules")]);
    eprintln!("JDK 25 lib/modules: {c} classes, {m} methods identical");
    assert!(c > 20_000);
}

#[test]
fn system_jars_round_trip() {
    let jars = system_jars();
    if jars.is_empty() {
        return skip("no jars under /usr/share/java");
    }
    let (c, m) = check_all(&jars);
    eprintln!(
        "/usr/share/java: {} jars, {c} classes, {m} methods identical",
        jars.len()
    );
    assert!(c > 0);
}

#[test]
fn class_directory_round_trip() {
    // A directory input: the classes of a small jar, extracted.
    let Some(jar) = system_jars().into_iter().find(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("commons-cli"))
    }) else {
        return skip("commons-cli jar not installed");
    };
    let tmp = tempfile::tempdir().unwrap();
    let a = Archive::open(&jar).unwrap();
    for (i, e) in a.entries().iter().enumerate() {
        if e.class_name().is_some() {
            let p = tmp.path().join(&e.name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, a.read(i).unwrap()).unwrap();
        }
    }
    let (c, _) = check_all(&[Path::new(tmp.path()).to_path_buf()]);
    assert!(c > 10);
}
