//! The woven JDKs `major run --aspect` keeps in its cache
//! (`CACHE/woven-jdks/<key>/`): for a set of aspects, the JDK woven by
//! `major weave --jdk` (image form, with its own class-data sharing
//! archive). A run on one starts the JVM from it with the agent's
//! `woven-image` option: the JDK's classes are woven already, so the agent
//! needs no early class hook, which would turn class-data sharing off, and
//! weaves only what the image does not hold (the class path's classes,
//! custom loaders' and generated classes). The classes are those the agent
//! would weave as they load (the two modes weave the same classes into the
//! same bytes: `agent/tests/single_phase.rs`), so a run on a woven JDK
//! differs from one woven as it loads only in how fast it starts.
//!
//! The key names what the woven JDK is made of: this `major` binary (path,
//! size, time), the JDK (its `lib/modules` by path, size, time), the
//! aspects' sources and javac's classes of them, and the bypass form. The
//! agent checks, as it starts, that the image's added classes (the aspects
//! among them) are those it would add.
//!
//! A woven JDK is made by [`WovenJdkCache::build`] (`major run
//! --woven-jdk=build`: now, before the program), or, with `auto`, by such a
//! `major run` started in the background after a run whose aspects ran
//! before without one ([`WovenJdkCache::build_in_background`]): only from a
//! terminal, since it outlives the `major run` that started it. One process
//! weaves a key at a time (`<key>.building`); the weave writes into a
//! staging directory and renames it, so a run sees a whole woven JDK or
//! none. At most [`KEPT`] are kept, the least recently used removed first.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::aspects::cache::CacheKey;
use crate::aspects::CompiledAspects;
use crate::jdk::Jdk;
use crate::report::MajorError;
use crate::weave::bypass::BypassForm;
use crate::woven_jdk::{JdkForm, JdkWeaveOptions, WovenJdk};

/// The cache's subdirectory of woven JDKs.
pub const SUBDIR: &str = "woven-jdks";

/// How many woven JDKs are kept (each about the size of the JDK's
/// `lib/modules` and its CDS archive: 150 MB for JDK 17).
pub const KEPT: usize = 3;

/// A build marker older than this is taken for a build that died.
const STALE_BUILD: Duration = Duration::from_secs(15 * 60);

/// What `major run --aspect` does with woven JDKs (`--woven-jdk`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum WovenJdkMode {
    /// Run on the woven JDK of these aspects when the cache holds one; when
    /// it does not and these aspects ran before, weave one in the
    /// background after the program ends (from a terminal only).
    #[default]
    Auto,
    /// Weave the woven JDK of these aspects now if the cache does not hold
    /// it (a few seconds, once), then run on it.
    Build,
    /// Never: every class is woven as the JVM loads it.
    Off,
}

/// What [`WovenJdkCache::lookup`] finds under a key.
#[derive(Debug)]
pub enum Lookup {
    /// Nothing.
    Missing,
    /// A whole woven JDK.
    Ready(WovenJdk),
    /// Something that is not a whole woven JDK (why): a run goes without
    /// it, and a build replaces it.
    Damaged(String),
}

/// The woven JDKs in a cache directory.
#[derive(Debug, Clone)]
pub struct WovenJdkCache {
    dir: PathBuf,
}

/// What a woven JDK is woven from.
#[derive(Debug, Clone)]
pub struct WovenJdkSource {
    /// The JDK.
    pub jdk: Jdk,
    /// The aspect files.
    pub aspects: Vec<PathBuf>,
    /// The class path the aspects are compiled against.
    pub classpath: Vec<PathBuf>,
    /// The bypass form.
    pub bypass: BypassForm,
    /// The aspect cache.
    pub cache: PathBuf,
}

impl WovenJdkSource {
    /// The key of the woven JDK, `compiled` being javac's classes of the
    /// aspects (see the module documentation).
    pub fn key(&self, compiled: &CompiledAspects) -> Result<String, MajorError> {
        let mut k = CacheKey::new();
        if let Ok(exe) = std::env::current_exe() {
            k.path_stamp("major", &exe);
        }
        k.path_stamp("jdk", &self.jdk.modules());
        for a in &self.aspects {
            let text =
                std::fs::read(a).map_err(|e| MajorError::Usage(format!("{}: {e}", a.display())))?;
            k.bytes("aspect source", &text);
        }
        for (name, bytes) in &compiled.classes {
            k.bytes(name, bytes);
        }
        k.bytes(
            "bypass",
            crate::load_time::bypass_name(self.bypass).as_bytes(),
        );
        Ok(k.finish()[..32].to_string())
    }
}

impl WovenJdkCache {
    /// The woven JDKs under the aspect cache `cache`.
    pub fn new(cache: &Path) -> WovenJdkCache {
        WovenJdkCache {
            dir: cache.join(SUBDIR),
        }
    }

    /// The woven JDK of `key`, when the cache holds a whole one (its time
    /// refreshed: the least recently used go first).
    pub fn ready(&self, key: &str) -> Option<WovenJdk> {
        match self.lookup(key) {
            Lookup::Ready(w) => Some(w),
            _ => None,
        }
    }

    /// What the cache holds under `key`: a woven JDK is whole when its
    /// description reads, it is of the image form, and its `bin/java`,
    /// `lib/server/libjvm.so` and `lib/modules` (a run-time image that
    /// opens) are there; anything else under its name is damaged.
    pub fn lookup(&self, key: &str) -> Lookup {
        let dir = self.dir.join(key);
        if !dir.exists() {
            return Lookup::Missing;
        }
        let woven = match WovenJdk::open(&dir) {
            Ok(w) if w.form == JdkForm::Image => w,
            Ok(_) => return Lookup::Damaged(format!("{}: not of the image form", dir.display())),
            Err(e) => return Lookup::Damaged(e.to_string()),
        };
        for part in [woven.java(), dir.join("lib/server/libjvm.so")] {
            if !part.is_file() {
                return Lookup::Damaged(format!("{}: missing", part.display()));
            }
        }
        let modules = dir.join("lib").join("modules");
        if let Err(e) = major_archive::RuntimeImage::open(&modules) {
            return Lookup::Damaged(format!("{}: {e}", modules.display()));
        }
        let _ = std::fs::File::open(&dir).and_then(|f| f.set_modified(SystemTime::now()));
        Lookup::Ready(woven)
    }

    /// Weaves the JDK of `src` into the cache under `key` (nothing when a
    /// whole one is there already), and returns it. One process weaves a
    /// key at a time: it holds `<key>.building` (made with `O_EXCL`, removed
    /// when it is done); another waits for it to finish, or takes it over
    /// when it is older than [`STALE_BUILD`] (a weave that died).
    pub fn build(&self, key: &str, src: &WovenJdkSource) -> Result<WovenJdk, MajorError> {
        let cannot = |what: &str, p: &Path, e: std::io::Error| {
            MajorError::Usage(format!("{}: cannot {what}: {e}", p.display()))
        };
        std::fs::create_dir_all(&self.dir).map_err(|e| cannot("create", &self.dir, e))?;
        let marker = self.dir.join(format!("{key}.building"));
        let _held = loop {
            if let Some(w) = self.ready(key) {
                return Ok(w);
            }
            match BuildMarker::take(&marker) {
                Ok(Some(m)) => break m,
                Ok(None) => std::thread::sleep(Duration::from_millis(200)),
                Err(e) => return Err(cannot("create", &marker, e)),
            }
        };
        if let Some(w) = self.ready(key) {
            return Ok(w); // finished while the marker was taken
        }
        let out = self.dir.join(key);
        // What an interrupted weave left would be refused as an output.
        if out.exists() {
            std::fs::remove_dir_all(&out).map_err(|e| cannot("remove", &out, e))?;
        }
        self.prune(KEPT.saturating_sub(1));
        let opts = JdkWeaveOptions {
            form: JdkForm::Image,
            aspects: src.aspects.clone(),
            jdk: src.jdk.clone(),
            modules: Vec::new(),
            inputs: Vec::new(),
            classpath: src.classpath.clone(),
            output: out,
            cache: Some(src.cache.clone()),
            strict: false,
            signed_jars: Default::default(),
            bypass: src.bypass,
        };
        let (_, woven) = crate::woven_jdk::weave(&opts)?;
        Ok(woven)
    }

    /// Records a run of `key` without a woven JDK, and tells whether one was
    /// recorded before (then these aspects are being run again, and a woven
    /// JDK pays for itself).
    pub fn ran_before(&self, key: &str) -> bool {
        let marker = self.dir.join(format!("{key}.ran"));
        if marker.exists() {
            return true;
        }
        let _ = std::fs::create_dir_all(&self.dir).and_then(|()| std::fs::write(&marker, b""));
        false
    }

    /// Starts a process of its own that weaves the JDK of `src` (`major run
    /// --woven-jdk=build --print-command`: [`Self::build`] under the same
    /// key, the program not run), its output in `<key>.log`, unless one is
    /// building it already. Returns whether it started one.
    pub fn build_in_background(&self, key: &str, src: &WovenJdkSource) -> bool {
        let Ok(exe) = std::env::current_exe() else {
            return false;
        };
        if BuildMarker::fresh(&self.dir.join(format!("{key}.building"))) {
            return false;
        }
        let Ok(log) = std::fs::create_dir_all(&self.dir)
            .and_then(|()| std::fs::File::create(self.dir.join(format!("{key}.log"))))
        else {
            return false;
        };
        let absolute = |p: &PathBuf| std::path::absolute(p).unwrap_or_else(|_| p.clone());
        let mut c = std::process::Command::new(exe);
        c.args(["run", "--woven-jdk=build", "--print-command"])
            .arg("--java-home")
            .arg(&src.jdk.home)
            .arg("--cache-dir")
            .arg(&src.cache)
            .arg(format!(
                "--bypass={}",
                crate::load_time::bypass_name(src.bypass)
            ));
        for a in &src.aspects {
            c.arg("--aspect").arg(absolute(a));
        }
        let cp = std::env::join_paths(src.classpath.iter().map(absolute));
        let Ok(cp) = cp else {
            return false; // a path that holds the separator
        };
        // The class path the aspects were compiled against, as `java -cp`;
        // no main class: nothing runs.
        c.arg("--").arg("-cp").arg(cp);
        c.stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(log);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own process group: the terminal's ^C for the next program
            // does not reach it.
            c.process_group(0);
        }
        c.spawn().is_ok()
    }

    /// Removes woven JDKs beyond the `keep` most recently used (their
    /// markers and logs with them).
    pub fn prune(&self, keep: usize) {
        let Ok(rd) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut jdks: Vec<(SystemTime, PathBuf)> = Vec::new();
        for e in rd.flatten() {
            let path = e.path();
            // A hidden name is a weave still being written (or one that
            // died, which the next weave's output removes).
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() && WovenJdk::open(&path).is_ok() {
                jdks.push((meta.modified().unwrap_or(SystemTime::UNIX_EPOCH), path));
            }
        }
        jdks.sort_by_key(|j| std::cmp::Reverse(j.0));
        for (_, path) in jdks.into_iter().skip(keep) {
            if std::fs::remove_dir_all(&path).is_ok() {
                for ext in ["ran", "log", "building"] {
                    let _ = std::fs::remove_file(path.with_extension(ext));
                }
            }
        }
    }
}

/// The marker of a weave of a woven JDK in progress, removed when dropped.
struct BuildMarker(PathBuf);

impl BuildMarker {
    /// Whether a weave holds the marker at `path` (it is there and younger
    /// than [`STALE_BUILD`]).
    fn fresh(path: &Path) -> bool {
        std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age < STALE_BUILD)
    }

    /// Takes the marker at `path`: `None` while another weave holds it.
    fn take(path: &Path) -> std::io::Result<Option<BuildMarker>> {
        if BuildMarker::fresh(path) {
            return Ok(None);
        }
        // Stale, or none: whoever creates it first holds it.
        if !path.exists() || std::fs::remove_file(path).is_ok() || !path.exists() {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
            {
                Ok(_) => return Ok(Some(BuildMarker(path.to_path_buf()))),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(None),
                Err(e) => return Err(e),
            }
        }
        Ok(None)
    }
}

impl Drop for BuildMarker {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_recorded_once() {
        let t = tempfile::tempdir().unwrap();
        let c = WovenJdkCache::new(t.path());
        assert!(!c.ran_before("k1"));
        assert!(c.ran_before("k1"));
        assert!(!c.ran_before("k2"));
    }

    #[test]
    fn one_process_holds_a_build_marker_at_a_time() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("k.building");
        let held = BuildMarker::take(&path).unwrap().expect("free");
        assert!(BuildMarker::fresh(&path));
        assert!(BuildMarker::take(&path).unwrap().is_none(), "held");
        drop(held);
        assert!(!path.exists());
        // A marker left by a weave that died is taken over.
        std::fs::write(&path, b"").unwrap();
        let old = SystemTime::now() - STALE_BUILD - Duration::from_secs(1);
        std::fs::File::options()
            .append(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert!(!BuildMarker::fresh(&path));
        assert!(BuildMarker::take(&path).unwrap().is_some());
    }

    #[test]
    fn a_directory_that_is_no_woven_jdk_is_neither_ready_nor_pruned() {
        let t = tempfile::tempdir().unwrap();
        let c = WovenJdkCache::new(t.path());
        let half = t.path().join(SUBDIR).join("k1");
        std::fs::create_dir_all(half.join("lib")).unwrap();
        assert!(c.ready("k1").is_none());
        c.prune(0);
        assert!(half.is_dir(), "only whole woven JDKs are pruned");
    }

    #[test]
    fn a_woven_jdk_still_being_written_is_not_pruned() {
        let t = tempfile::tempdir().unwrap();
        let c = WovenJdkCache::new(t.path());
        let image = |dir: &Path| {
            std::fs::create_dir_all(dir.join("bin")).unwrap();
            std::fs::write(dir.join("bin/java"), b"").unwrap();
            let w = WovenJdk {
                dir: dir.to_path_buf(),
                form: JdkForm::Image,
                java_home: dir.to_path_buf(),
                version: 17,
                modules: vec!["java.base".into()],
                on_request: Vec::new(),
                inputs: Vec::new(),
                exports: Vec::new(),
                added_classes: Vec::new(),
            };
            std::fs::write(dir.join(crate::woven_jdk::INFO_FILE), w.info()).unwrap();
            assert!(WovenJdk::open(dir).is_ok());
        };
        let whole = t.path().join(SUBDIR).join("k1");
        let writing = t.path().join(SUBDIR).join(".k2.major-tmp-1-0");
        image(&whole);
        image(&writing);
        c.prune(0);
        assert!(!whole.exists(), "a whole woven JDK beyond `keep` is pruned");
        assert!(writing.is_dir(), "a hidden one is a weave being written");
    }
}
