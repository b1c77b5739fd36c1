//! The `major` binary end to end: exit codes, errors that name the entry, and
//! deterministic output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use major_archive::{OutputArchive, OutputKind};

fn major(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_major"))
        .args(args)
        .output()
        .expect("run major")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A minimal valid class file: `public class <name> extends java/lang/Object {}`.
fn tiny_class(name: &str) -> Vec<u8> {
    let mut b = vec![0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 52];
    b.extend_from_slice(&5u16.to_be_bytes()); // 4 entries
    for s in [name, "java/lang/Object"] {
        b.push(1);
        b.extend_from_slice(&(s.len() as u16).to_be_bytes());
        b.extend_from_slice(s.as_bytes());
    }
    b.extend_from_slice(&[7, 0, 1, 7, 0, 2]); // #3 = Class #1, #4 = Class #2
    b.extend_from_slice(&[0x00, 0x21, 0, 3, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0]);
    b
}

fn jar_with(dir: &Path, entries: &[(&str, Vec<u8>)]) -> PathBuf {
    let p = dir.join("in.jar");
    let mut o = OutputArchive::create(&p, OutputKind::Zip).unwrap();
    for (n, d) in entries {
        o.write(n, d).unwrap();
    }
    o.finish().unwrap();
    p
}

#[test]
fn good_classes_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let jar = jar_with(
        tmp.path(),
        &[
            ("a/Good.class", tiny_class("a/Good")),
            ("README.txt", b"not a class".to_vec()),
        ],
    );
    let o = major(&["check", "--codec", jar.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("1 classes, 1 round-trip identical, 1 codec identical"),
        "{}",
        text(&o)
    );
}

#[test]
fn broken_classes_are_named_and_fail_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tiny_class("a/Good");
    let mut bad_magic = good.clone();
    bad_magic[0] = 0xDE;
    let truncated = good[..good.len() - 5].to_vec();
    let mut bad_index = good.clone();
    let n = bad_index.len();
    bad_index[n - 11] = 99; // this_class → #99
    let jar = jar_with(
        tmp.path(),
        &[
            ("a/Good.class", good),
            ("a/BadMagic.class", bad_magic),
            ("a/Truncated.class", truncated),
            ("a/BadIndex.class", bad_index),
        ],
    );
    let o = major(&["check", jar.to_str().unwrap()]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains("1 round-trip identical") && t.contains("3 failures"),
        "{t}"
    );
    assert!(
        t.contains("in.jar!a/BadMagic.class") && t.contains("bad magic"),
        "{t}"
    );
    assert!(
        t.contains("in.jar!a/Truncated.class") && t.contains("truncated"),
        "{t}"
    );
    assert!(
        t.contains("in.jar!a/BadIndex.class") && t.contains("index 99"),
        "{t}"
    );
}

#[test]
fn unreadable_archives_exit_2_naming_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let jar = jar_with(tmp.path(), &[("a/Good.class", tiny_class("a/Good"))]);
    let bytes = std::fs::read(&jar).unwrap();
    let cut = tmp.path().join("cut.jar");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let o = major(&["check", cut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("cut.jar"), "{}", text(&o));
    let o = major(&["check", tmp.path().join("missing.jar").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn reframed_output_is_deterministic_across_thread_counts() {
    let Some(guava) = [
        "/usr/share/java/commons-lang3.jar",
        "/usr/share/java/guava.jar",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists()) else {
        eprintln!("SKIP: neither commons-lang3 nor guava under /usr/share/java");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut outs = Vec::new();
    for threads in ["1", "2"] {
        let out = tmp.path().join(format!("out-{threads}.jar"));
        let o = Command::new(env!("CARGO_BIN_EXE_major"))
            .env("RAYON_NUM_THREADS", threads)
            .args([
                "check",
                "--reframe",
                "-o",
                out.to_str().unwrap(),
                guava.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        outs.push(std::fs::read(&out).unwrap());
    }
    assert!(outs[0] == outs[1], "outputs differ between 1 and 2 threads");
    // Mirrored: the same entries, in the same order, non-class entries unchanged.
    let input = major_archive::Archive::open(&guava).unwrap();
    let output = major_archive::Archive::open(&tmp.path().join("out-1.jar")).unwrap();
    let names = |a: &major_archive::Archive| {
        a.entries()
            .iter()
            .map(|e| e.name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&input), names(&output));
    for (i, e) in input.entries().iter().enumerate() {
        if !e.name.ends_with(".class") && !e.is_dir {
            assert_eq!(
                input.read(i).unwrap(),
                output.read(i).unwrap(),
                "{}",
                e.name
            );
        }
    }
}

#[test]
fn dump_prints_a_method() {
    let home = Path::new("/usr/lib/jvm/java-17-openjdk-amd64/lib/modules");
    if !home.exists() {
        eprintln!("SKIP: no JDK 17 run-time image");
        return;
    }
    let o = major(&[
        "dump",
        home.to_str().unwrap(),
        "java/lang/Object",
        "--method",
        "equals",
    ]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("method equals(Ljava/lang/Object;)Z") && t.contains("if_acmpne"),
        "{t}"
    );
}
