//! End-to-end checks against real files of the machine (jars, a JDK's
//! jmods, a jlink-made compressed image), each skipped with a message when
//! what it needs is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use major_archive::{Archive, ArchiveKind, OutputArchive, OutputKind};

const CAFEBABE: &[u8] = b"\xCA\xFE\xBA\xBE";

/// Reads every entry; returns how many are classes. Class files must start
/// with the class-file magic.
fn read_all(archive: &Archive) -> usize {
    let mut classes = 0;
    for (i, entry) in archive.entries().iter().enumerate() {
        let bytes = archive
            .read(i)
            .unwrap_or_else(|e| panic!("{}: {e}", archive.path().display()));
        assert_eq!(bytes.len() as u64, entry.size, "{}", entry.name);
        if entry.class_name().is_some() {
            classes += 1;
            assert_eq!(&bytes[..4], CAFEBABE, "{}", entry.name);
        }
    }
    classes
}

#[test]
fn every_jar_in_usr_share_java() {
    let dir = Path::new("/usr/share/java");
    let Ok(listing) = std::fs::read_dir(dir) else {
        eprintln!("skipping: no {}", dir.display());
        return;
    };
    let mut jars: Vec<PathBuf> = listing
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jar") && !p.is_symlink())
        .collect();
    jars.sort();
    let mut classes = 0;
    for jar in &jars {
        let archive = Archive::open(jar).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(archive.kind(), ArchiveKind::Zip);
        classes += read_all(&archive);
    }
    eprintln!("{} jars, {classes} classes", jars.len());
}

#[test]
fn jdk17_java_base_jmod() {
    let path = Path::new("/usr/lib/jvm/java-17-openjdk-amd64/jmods/java.base.jmod");
    if !path.exists() {
        eprintln!("skipping: {} does not exist", path.display());
        return;
    }
    let jmod = Archive::open(path).unwrap();
    assert_eq!(jmod.kind(), ArchiveKind::Jmod);
    let classes = read_all(&jmod);
    assert!(classes > 5_000, "{classes}");
    let object = jmod.find("classes/java/lang/Object.class").unwrap();
    assert_eq!(
        jmod.entries()[object].class_name(),
        Some("java/lang/Object")
    );
    let info = jmod.find("classes/module-info.class").unwrap();
    assert_eq!(jmod.entries()[info].class_name(), Some("module-info"));
    assert!(jmod
        .entries()
        .iter()
        .any(|e| e.name.starts_with("lib/") && e.class_name().is_none()));

    // Written out, a jmod becomes a plain jar with the same entries.
    let dir = tempfile::tempdir().unwrap();
    let jar = dir.path().join("java.base.jar");
    let mut out = OutputArchive::create(&jar, OutputKind::Zip).unwrap();
    for i in 0..jmod.entries().len() {
        out.copy_raw(&jmod, i).unwrap();
    }
    out.finish().unwrap();
    let copy = Archive::open(&jar).unwrap();
    assert_eq!(copy.kind(), ArchiveKind::Zip);
    let names = |a: &Archive| {
        a.entries()
            .iter()
            .map(|e| e.name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&copy), names(&jmod));
    let i = copy.find("classes/java/lang/Object.class").unwrap();
    assert_eq!(copy.read(i).unwrap(), jmod.read(object).unwrap());
}

/// An image made by jlink with `--compress=zip-6`: nearly every resource is
/// compressed by the "zip" plugin.
#[test]
fn jlink_zip_compressed_image() {
    let jlink = Path::new("/usr/lib/jvm/temurin-25-jdk-amd64/bin/jlink");
    if !jlink.exists() {
        eprintln!("skipping: {} does not exist", jlink.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("image");
    let status = Command::new(jlink)
        .args(["--add-modules", "java.base", "--compress=zip-6", "--output"])
        .arg(&image)
        .status();
    match status {
        Ok(status) if status.success() => {}
        other => {
            eprintln!("skipping: jlink did not make an image: {other:?}");
            return;
        }
    }
    let archive = Archive::open(&image.join("lib/modules")).unwrap();
    assert_eq!(archive.kind(), ArchiveKind::JImage);
    let classes = read_all(&archive);
    assert!(classes > 5_000, "{classes}");
    let object = archive.find("/java.base/java/lang/Object.class").unwrap();
    assert_eq!(&archive.read(object).unwrap()[..4], CAFEBABE);
}
