//! Re-framing under HotSpot's verifier: every method of every class of java.base
//! (JDK 17 and 25) and of guava is decoded, its StackMapTable dropped and
//! recomputed, and written; HotSpot then loads and links every class with
//! `-Xverify:all`. Zero VerifyError and ClassFormatError are allowed.
//!
//! The same with kept frames: stack-neutral code goes before every third
//! instruction of every method, and the original frames are moved rather than
//! recomputed wherever `kept_frames` allows (most methods).

use std::path::{Path, PathBuf};

use major_archive::{Archive, OutputArchive, OutputKind};
use major_tests::{jdk17, jdk25, linkall, run_linkall, skip, system_jars};
use major_weaver::check::{check_archive, module_filter, CheckOptions};
use major_weaver::index::ClassIndex;

/// Re-frames the classes of `input` (optionally one module of an image) into
/// `out`, with `keep_frames` as in [`CheckOptions`]. Returns the number of classes.
fn reframe(
    input: &Path,
    module: Option<&str>,
    hierarchy: &[PathBuf],
    out: &Path,
    kind: OutputKind,
    keep_frames: bool,
) -> usize {
    let archive = Archive::open(input).unwrap();
    let mut index = ClassIndex::new();
    index.add_archive(&archive);
    for h in hierarchy {
        index.add_archive(&Archive::open(h).unwrap());
    }
    let mut output = OutputArchive::create(out, kind).unwrap();
    let filter = module_filter(module);
    let r = check_archive(
        &archive,
        CheckOptions {
            codec: false,
            reframe: true,
            keep_frames,
        },
        &index,
        &filter,
        Some(&mut output),
    );
    output.finish().unwrap();
    // Inserted code makes a few huge methods too large: those classes are
    // copied unchanged.
    let too_large = |f: &major_weaver::report::MajorError| {
        keep_frames && f.to_string().contains("over the JVM's limit")
    };
    for f in &r.failures {
        eprintln!("  {f}");
    }
    let failures = r.failures.iter().filter(|f| !too_large(f)).count();
    assert_eq!(failures, 0, "{failures} re-framing failures");
    assert!(
        r.classes - r.reframed <= 3,
        "{} of {} re-framed",
        r.reframed,
        r.classes
    );
    if keep_frames {
        eprintln!(
            "{} of {} methods kept their frames",
            r.frames_kept, r.methods
        );
        assert!(
            r.frames_kept * 10 > r.methods * 8,
            "only {} of {} methods kept their frames",
            r.frames_kept,
            r.methods
        );
    }
    eprintln!(
        "{}: re-framed {} classes, {} methods",
        input.display(),
        r.classes,
        r.methods
    );
    r.classes
}

fn java_base(home: &Path, input: &Path, module: Option<&str>, keep_frames: bool) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("java.base");
    let n = reframe(
        input,
        module,
        &[home.join("lib/modules")],
        &out,
        OutputKind::Directory,
        keep_frames,
    );
    assert!(n > 5000);
    let patch = format!("java.base={}", out.display());
    let r = run_linkall(
        &home.join("bin/java"),
        &linkall(&jdk17().unwrap_or(home.to_path_buf())),
        &["--patch-module", &patch],
        &[&out],
        "boot",
    );
    eprintln!("{}", r.output.lines().last().unwrap_or(""));
    assert_eq!(r.verify_errors, 0, "{}", r.output);
    assert_eq!(r.format_errors, 0, "{}", r.output);
    assert_eq!(r.other_errors, 0, "{}", r.output);
    assert_eq!(
        r.linked + r.skipped,
        n,
        "only {} of {n} classes linked",
        r.linked
    );
}

#[test]
fn jdk17_java_base_reframed_verifies() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    let jmod = home.join("jmods/java.base.jmod");
    if jmod.is_file() {
        java_base(&home, &jmod, None, false);
    } else {
        java_base(&home, &home.join("lib/modules"), Some("java.base"), false);
    }
}

#[test]
fn jdk17_java_base_with_kept_frames_verifies() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    let jmod = home.join("jmods/java.base.jmod");
    if jmod.is_file() {
        java_base(&home, &jmod, None, true);
    } else {
        java_base(&home, &home.join("lib/modules"), Some("java.base"), true);
    }
}

#[test]
fn jdk25_java_base_reframed_verifies() {
    let Some(home) = jdk25() else {
        return skip("no JDK 25 at /usr/lib/jvm/temurin-25-jdk-amd64");
    };
    if jdk17().is_none() {
        return skip("the LinkAll harness is compiled with JDK 17's javac");
    }
    java_base(&home, &home.join("lib/modules"), Some("java.base"), false);
}

#[test]
fn guava_reframed_verifies() {
    guava(false);
}

#[test]
fn guava_with_kept_frames_verifies() {
    guava(true);
}

fn guava(keep_frames: bool) {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    let Some(guava) = system_jars().into_iter().find(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("guava"))
    }) else {
        return skip("guava not installed (Debian package libguava-java)");
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("guava-reframed.jar");
    let n = reframe(
        &guava,
        None,
        &[home.join("lib/modules")],
        &out,
        OutputKind::Zip,
        keep_frames,
    );
    let r = run_linkall(&home.join("bin/java"), &linkall(&home), &[], &[&out], "jar");
    eprintln!("{}", r.output.lines().last().unwrap_or(""));
    assert_eq!(r.verify_errors, 0, "{}", r.output);
    assert_eq!(r.format_errors, 0, "{}", r.output);
    assert!(
        r.linked > n * 9 / 10,
        "only {} of {n} classes linked:\n{}",
        r.linked,
        r.output
    );
}

/// The oracle can fail: a class whose frames were dropped is rejected.
#[test]
fn verifier_rejects_missing_frames() {
    let Some(home) = jdk17() else {
        return skip("no JDK 17");
    };
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("Branchy.java");
    std::fs::write(&src, "public class Branchy { public static int f(int x) { int s = 0; for (int i = 0; i < x; i++) { s += i; } return s; } }").unwrap();
    let classes = tmp.path().join("classes");
    major_tests::javac(&home, "11", &classes, &[src]);
    let bytes = std::fs::read(classes.join("Branchy.class")).unwrap();
    let class = major_classfile::ClassFile::parse(&bytes).unwrap();
    let mut edit = major_classfile::ClassEdit::new(&class);
    for (i, m) in class.methods.iter().enumerate() {
        let attr = m.attribute("Code").unwrap();
        let parsed = major_classfile::CodeAttribute::parse(attr, &class.pool).unwrap();
        let mut code = major_classfile::Code::decode(&parsed, &class.pool).unwrap();
        code.set_stack_map(0, None);
        let mut out = Vec::new();
        code.write_attribute(attr.name_index, &code.layout(), &mut out)
            .unwrap();
        edit.methods
            .insert(i, major_classfile::method_with_code(m, &out));
    }
    let broken = major_classfile::write_class(&class, &edit);
    let jar = tmp.path().join("broken.jar");
    let mut o = OutputArchive::create(&jar, OutputKind::Zip).unwrap();
    o.write("Branchy.class", &broken).unwrap();
    o.finish().unwrap();
    let r = run_linkall(&home.join("bin/java"), &linkall(&home), &[], &[&jar], "jar");
    assert_eq!(r.verify_errors, 1, "{}", r.output);
}
