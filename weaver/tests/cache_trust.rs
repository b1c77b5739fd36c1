//! The aspect cache can be trusted: an entry swapped for another is a miss,
//! never shipped code; a cache that cannot be written costs only time (a
//! warning, an uncached run); a damaged class-data-sharing archive that makes
//! javac crash is deleted and rebuilt, and javac's crash reports stay out of
//! the current directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use major_weaver::jdk::Jdk;

const MAIN: &str = r#"package app;

public class Main {
    public static void main(String[] args) {
        System.out.println("main");
    }
}
"#;

/// The same aspect (same name, same classes) printing `message`.
fn aspect(message: &str) -> String {
    format!(
        "aspect Hello {{\n    before(): execution(* app.Main.main(..)) {{\n        System.out.println(\"{message}\");\n    }}\n}}\n"
    )
}

struct Fixture {
    dir: tempfile::TempDir,
    jdk: Jdk,
}

impl Fixture {
    fn new() -> Option<Fixture> {
        let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
            eprintln!("SKIP: no JDK with javac");
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("Main.java");
        std::fs::write(&src, MAIN).unwrap();
        let o = Command::new(jdk.javac().unwrap())
            .args(["--release", "11", "-d"])
            .arg(dir.path().join("classes"))
            .arg(&src)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        std::fs::create_dir(dir.path().join("run")).unwrap();
        Some(Fixture { dir, jdk })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Weaves the aspect printing `message` into `classes`, with the cache
    /// `cache`, from the directory `run`; the output must be usable.
    fn weave(&self, message: &str, cache: &Path) -> Output {
        let aj = self.path("Hello.aj");
        std::fs::write(&aj, aspect(message)).unwrap();
        let out = self.path("woven");
        let o = Command::new(env!("CARGO_BIN_EXE_major"))
            .current_dir(self.path("run"))
            .arg("weave")
            .arg("--java-home")
            .arg(&self.jdk.home)
            .arg("--cache-dir")
            .arg(cache)
            .arg("--timings")
            .arg("--aspect")
            .arg(&aj)
            .arg(self.path("classes"))
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        let run = Command::new(self.jdk.java())
            .arg("-cp")
            .arg(&out)
            .arg("app.Main")
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", text(&run));
        assert_eq!(
            String::from_utf8_lossy(&run.stdout),
            format!("{message}\nmain\n"),
            "the woven program should run the aspect as written"
        );
        o
    }
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn compiled(o: &Output) -> bool {
    stderr(o).contains("time: compile aspects")
}

/// The files of `dir` whose names end with `suffix`, sorted.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    v.sort();
    v
}

#[test]
fn an_entry_swapped_for_another_is_a_miss() {
    let Some(f) = Fixture::new() else { return };
    let cache = f.path("cache");
    assert!(compiled(&f.weave("first", &cache)));
    let first = files(&cache, ".classes");
    assert_eq!(first.len(), 1);
    assert!(!compiled(&f.weave("first", &cache)), "a hit expected");
    assert!(compiled(&f.weave("second", &cache)));
    let second: Vec<_> = files(&cache, ".classes")
        .into_iter()
        .filter(|p| !first.contains(p))
        .collect();
    assert_eq!(second.len(), 1);
    // The entry of "second" replaced by the intact entry of "first": weaving
    // "second" again must compile it (Fixture::weave checks the program
    // prints "second", not "first").
    std::fs::copy(&first[0], &second[0]).unwrap();
    assert!(compiled(&f.weave("second", &cache)));
    assert!(!compiled(&f.weave("second", &cache)), "stored again");
    assert!(!compiled(&f.weave("first", &cache)), "still a hit");
}

#[test]
fn a_cache_that_cannot_be_written_falls_back_to_an_uncached_run() {
    let Some(f) = Fixture::new() else { return };
    // A file in the cache directory's place.
    let file = f.path("cache-file");
    std::fs::write(&file, b"not a directory").unwrap();
    let o = f.weave("file", &file);
    assert!(compiled(&o));
    assert!(
        stderr(&o).contains("warning: the aspect cache"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"not a directory");
    // Below a file, and where nobody may create a directory (not even root).
    for dir in [file.join("below"), PathBuf::from("/proc/major-cache-test")] {
        let o = f.weave("unwritable", &dir);
        assert!(stderr(&o).contains("cannot be used"), "{}", stderr(&o));
    }
    // A read-only directory (where permissions bind: not for root).
    let ro = f.path("read-only");
    std::fs::create_dir(&ro).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    if std::fs::write(ro.join("probe"), b"").is_ok() {
        eprintln!("SKIP: read-only directories are writable here (root)");
    } else {
        let o = f.weave("read-only", &ro);
        assert!(stderr(&o).contains("cannot be used"), "{}", stderr(&o));
    }
    // A directory where the cached runtime jar belongs.
    let cache = f.path("cache");
    f.weave("jar", &cache);
    let jar = files(&cache, ".jar");
    assert_eq!(jar.len(), 1, "{jar:?}");
    std::fs::remove_file(&jar[0]).unwrap();
    std::fs::create_dir_all(jar[0].join("in-the-way")).unwrap();
    let o = f.weave("jar again", &cache);
    assert!(stderr(&o).contains("cannot be used"), "{}", stderr(&o));
}

#[test]
fn a_damaged_class_data_sharing_archive_is_rebuilt() {
    let Some(f) = Fixture::new() else { return };
    let cache = f.path("cache");
    f.weave("one", &cache);
    let jsa = files(&cache, ".jsa");
    if jsa.is_empty() {
        eprintln!("SKIP: this javac's JVM dumps no class-data-sharing archive");
        return;
    }
    let size = std::fs::metadata(&jsa[0]).unwrap().len();
    // Truncated: the JVM that maps it dies of SIGBUS.
    let f_ = std::fs::File::options().write(true).open(&jsa[0]).unwrap();
    f_.set_len(size / 2).unwrap();
    drop(f_);
    let o = f.weave("two", &cache);
    assert!(compiled(&o));
    // Rebuilt whole, and the crash report did not land in the current directory.
    assert_eq!(files(&cache, ".jsa"), jsa);
    assert!(std::fs::metadata(&jsa[0]).unwrap().len() > size / 2);
    let run_dir: Vec<_> = std::fs::read_dir(f.path("run")).unwrap().collect();
    assert!(run_dir.is_empty(), "{run_dir:?}");
    // The rebuilt archive serves the next run.
    let o = f.weave("three", &cache);
    assert!(compiled(&o));
    assert!(std::fs::read_dir(f.path("run")).unwrap().next().is_none());
}

/// A small tmpfs mounted for a test (root only), unmounted on drop.
struct SmallFs(PathBuf);

impl SmallFs {
    fn mount(at: PathBuf, size: &str) -> Option<SmallFs> {
        std::fs::create_dir_all(&at).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&at)
            .output()
            .is_ok_and(|o| o.status.success());
        ok.then_some(SmallFs(at))
    }

    fn read_only(&self) -> bool {
        Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(&self.0)
            .output()
            .is_ok_and(|o| o.status.success())
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).output();
    }
}

#[test]
fn a_full_or_read_only_cache_file_system_costs_only_time() {
    let Some(f) = Fixture::new() else { return };
    let at = f.path("small");
    // Room for the runtime jar and compiled aspects, not for javac's
    // class-data-sharing archive (about 10 MB).
    let Some(fs) = SmallFs::mount(at.clone(), "256k") else {
        eprintln!("SKIP: cannot mount a tmpfs here (needs root)");
        return;
    };
    let cache = at.join("cache");
    f.weave("small", &cache);
    // Full: not even the probe fits.
    let mut fill = std::fs::File::create(at.join("fill")).unwrap();
    let chunk = vec![0u8; 4096];
    while std::io::Write::write_all(&mut fill, &chunk).is_ok() {}
    drop(fill);
    let o = f.weave("full", &cache);
    assert!(stderr(&o).contains("cannot be used"), "{}", stderr(&o));
    // Read-only, for root too.
    std::fs::remove_file(at.join("fill")).unwrap();
    if fs.read_only() {
        let o = f.weave("read-only", &cache);
        assert!(stderr(&o).contains("cannot be used"), "{}", stderr(&o));
    } else {
        eprintln!("SKIP: cannot remount the tmpfs read-only");
    }
}
