//! The cache of woven classes: what the weave made of a class, kept on disk
//! under a content address, so that a second run of the same program weaves
//! nothing it wove before.
//!
//! * **Key**: a SHA-256 over the run's *environment* ([`Environment`]: this
//!   build of the agent, the aspects' sources and javac's classes of them,
//!   the runtime classes, the bypass form, the running JDK's run-time image
//!   and the class path, by path, size and modification time) and the class
//!   (its name and its bytes as the JVM hands them to the hook). The
//!   environment is in the key because a class's weave also reads the
//!   classes around it (the hierarchy for `Type+` patterns, the common super
//!   classes of frames).
//! * **Value**: the woven class and its extra class of static parts, or a
//!   marker saying the weave leaves the class as it is (so such classes are
//!   not examined again either).
//! * **Files**: `DIR/ab/cdef…` (the key in hex, its first byte a
//!   directory). Each file holds a magic, its own key, the value and a
//!   SHA-256 of everything before it. A file is written to a temporary file
//!   in the same directory and renamed into place: readers never see half a
//!   file, and JVMs that store the same class at once are harmless (both
//!   write the same bytes). Nothing is `fsync`ed: a file that a crash left
//!   short or empty fails its checksum.
//! * **Robustness**: a file that does not read back exactly (bad magic,
//!   another key, a bad checksum, a length past the end, an I/O error) is a
//!   miss: the class is woven and the entry written again; the first such
//!   file is named in a warning. A write that fails (a full disk, a
//!   read-only directory, a file where the directory should be) is a warning
//!   once; the run goes on uncached (nothing more is written).
//! * **Size**: after a run that stored classes, the oldest files beyond the
//!   bound ([`DEFAULT_MAX_BYTES`], the agent's `class-cache-max=MB`) are
//!   removed, down to three quarters of it; a hit older than a day
//!   refreshes its file's time, so classes in use stay.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

/// The name of the cache's directory inside `major`'s cache directory.
pub const SUBDIR: &str = "woven-classes";

/// The default bound on the cache's size: 512 MiB (a hello world's JDK
/// classes woven with an execution counter take about 5 MiB; javac's 20).
pub const DEFAULT_MAX_BYTES: u64 = 512 << 20;

const MAGIC: &[u8; 8] = b"MAJORWC1";
const UNCHANGED: u8 = 0;
const WOVEN: u8 = 1;
/// The prefix of temporary files (removed by pruning when older than a
/// day: a JVM killed while writing).
const TEMP_PREFIX: &str = ".tmp-";

/// A class's key: a SHA-256.
pub type Key = [u8; 32];

/// An entry for the writer thread: its file and its bytes.
type WriteJob = (PathBuf, Vec<u8>);

/// What the weave makes of a class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cached {
    /// The class stays as it is.
    Unchanged,
    /// The woven class, and its extra class of static parts (internal name,
    /// bytes) if it has one.
    Woven {
        /// The woven class file.
        bytes: Vec<u8>,
        /// The extra class to define in the same loader.
        extra: Option<(String, Vec<u8>)>,
    },
}

/// Everything besides a class's own bytes that its weave depends on; see
/// the module documentation.
pub struct Environment<'a> {
    /// The agent library (its path, size and modification time stand for
    /// this build of the weaver).
    pub agent: &'a Path,
    /// The aspect sources (path, text).
    pub aspect_sources: &'a [(PathBuf, Vec<u8>)],
    /// javac's classes of the aspects (entry name, bytes).
    pub aspect_classes: &'a [(String, Vec<u8>)],
    /// The form of the bypass checks (its name).
    pub bypass: &'a str,
    /// The running JDK's `lib/modules`.
    pub image: &'a Path,
    /// The class path (`java.class.path`).
    pub class_path: &'a [PathBuf],
}

impl Environment<'_> {
    /// The environment's part of every key (hex).
    pub fn key(&self) -> String {
        use major_weaver::aspects::cache::CacheKey;
        let mut k = CacheKey::new();
        k.bytes("woven class cache", MAGIC);
        k.path_stamp("agent", self.agent);
        for (p, text) in self.aspect_sources {
            k.bytes("aspect source", p.as_os_str().as_encoded_bytes());
            k.bytes("text", text);
        }
        for (n, b) in self.aspect_classes {
            k.bytes(n, b);
        }
        for (n, b) in major_weaver::runtime::RUNTIME_CLASSES {
            k.bytes(n, b);
        }
        k.bytes("bypass", self.bypass.as_bytes());
        k.path_stamp("image", self.image);
        for p in self.class_path {
            k.path_stamp(
                "classpath",
                &std::path::absolute(p).unwrap_or_else(|_| p.clone()),
            );
        }
        k.finish()
    }
}

/// Hits, misses and the rest, counted by the cache.
#[derive(Debug, Default)]
pub struct CacheStats {
    /// Hits of woven classes.
    pub hits_woven: AtomicU64,
    /// Hits of the "unchanged" marker.
    pub hits_unchanged: AtomicU64,
    /// Misses (including damaged entries).
    pub misses: AtomicU64,
    /// Entries that were damaged (counted among the misses too).
    pub damaged: AtomicU64,
    /// Entries written.
    pub stored: AtomicU64,
}

/// The cache of woven classes of one run (one environment).
pub struct ClassCache {
    dir: PathBuf,
    env: String,
    /// Cleared after the first failed write: the run goes on uncached.
    writable: AtomicBool,
    /// The first damaged entry was reported.
    warned_damaged: AtomicBool,
    /// The warnings not yet shown (the agent prints them).
    warnings: Mutex<Vec<String>>,
    /// Set while `warnings` is not empty (checked after every class).
    has_warnings: AtomicBool,
    /// The writer thread's queue, once [`start_writer`](Self::start_writer)
    /// started it.
    queue: Mutex<Option<std::sync::mpsc::Sender<WriteJob>>>,
    /// The writer thread.
    writer: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// The counts.
    pub stats: CacheStats,
}

impl ClassCache {
    /// The cache in `dir` for the environment whose key is `env`
    /// ([`Environment::key`]). Nothing is created until a class is stored.
    pub fn new(dir: impl Into<PathBuf>, env: String) -> ClassCache {
        ClassCache {
            dir: dir.into(),
            env,
            writable: AtomicBool::new(true),
            warned_damaged: AtomicBool::new(false),
            warnings: Mutex::new(Vec::new()),
            has_warnings: AtomicBool::new(false),
            queue: Mutex::new(None),
            writer: Mutex::new(None),
            stats: CacheStats::default(),
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The key of class `name` with the class file `bytes`.
    pub fn key(&self, name: &str, bytes: &[u8]) -> Key {
        let mut h = Sha256::new();
        for part in [self.env.as_bytes(), name.as_bytes(), bytes] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part);
        }
        h.finalize().into()
    }

    /// The file of `key`.
    pub fn file(&self, key: &Key) -> PathBuf {
        let hex = major_weaver::hex::hex(key);
        self.dir.join(&hex[..2]).join(&hex[2..])
    }

    /// The warnings since the last call (a damaged entry, a failed write),
    /// each once per run.
    pub fn take_warnings(&self) -> Vec<String> {
        if !self.has_warnings.swap(false, Ordering::Relaxed) {
            return Vec::new();
        }
        std::mem::take(&mut *self.warnings.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn warn(&self, w: String) {
        self.warnings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(w);
        self.has_warnings.store(true, Ordering::Relaxed);
    }

    /// What the cache holds for `key`; `None` on a miss (no file, or a file
    /// that does not read back exactly, which is reported once).
    pub fn get(&self, key: &Key) -> Option<Cached> {
        let path = self.file(key);
        let read = fs::File::open(&path).and_then(|mut f| {
            let mut data = Vec::new();
            f.read_to_end(&mut data)?;
            Ok((f, data))
        });
        let (file, data) = match read {
            Ok(r) => r,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                self.stats.misses.fetch_add(1, Ordering::Relaxed);
                return None;
            }
            Err(e) => {
                self.damaged(&path, &format!("cannot be read: {e}"));
                return None;
            }
        };
        match decode(&data, key) {
            Ok(c) => {
                let counter = match c {
                    Cached::Unchanged => &self.stats.hits_unchanged,
                    Cached::Woven { .. } => &self.stats.hits_woven,
                };
                counter.fetch_add(1, Ordering::Relaxed);
                refresh(&file);
                Some(c)
            }
            Err(why) => {
                self.damaged(&path, why);
                None
            }
        }
    }

    fn damaged(&self, path: &Path, why: &str) {
        self.stats.misses.fetch_add(1, Ordering::Relaxed);
        self.stats.damaged.fetch_add(1, Ordering::Relaxed);
        if !self.warned_damaged.swap(true, Ordering::Relaxed) {
            self.warn(format!(
                "warning: class cache: {}: {why}; taken as a miss (the class is woven \
                 again{}); damaged entries after this one are not named",
                path.display(),
                if self.writable.load(Ordering::Relaxed) {
                    " and the entry rewritten"
                } else {
                    ""
                }
            ));
        }
    }

    /// Stores `value` under `key`, unless a write failed before in this run:
    /// on the writer thread once [`start_writer`](Self::start_writer)
    /// started it, else now. A failure is a warning (once) and stops further
    /// writes.
    pub fn put(&self, key: &Key, value: &Cached) {
        if !self.writable.load(Ordering::Relaxed) {
            return;
        }
        let job = (self.file(key), encode(key, value));
        let job = match &*self.queue.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(q) => match q.send(job) {
                Ok(()) => return,
                Err(e) => e.0,
            },
            None => job,
        };
        self.write(&job.0, &job.1);
    }

    fn write(&self, path: &Path, data: &[u8]) {
        if !self.writable.load(Ordering::Relaxed) {
            return;
        }
        match write_atomically(path, data) {
            Ok(()) => {
                self.stats.stored.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                if self.writable.swap(false, Ordering::Relaxed) {
                    self.warn(format!(
                        "warning: class cache: cannot write {}: {e}; the run goes on \
                         without storing woven classes",
                        path.display()
                    ));
                }
            }
        }
    }

    /// Moves the writing of entries to a thread of its own, so that the
    /// threads loading classes do not wait for the file system; call
    /// [`finish`](Self::finish) before the process ends. Without a thread
    /// (it cannot be started), entries are written as they come.
    pub fn start_writer(&'static self) {
        let (tx, rx) = std::sync::mpsc::channel::<WriteJob>();
        let spawned = std::thread::Builder::new()
            .name("major class cache writer".into())
            .spawn(move || {
                for (path, data) in rx {
                    self.write(&path, &data);
                }
            });
        if let Ok(handle) = spawned {
            *self.queue.lock().unwrap_or_else(|e| e.into_inner()) = Some(tx);
            *self.writer.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle);
        }
    }

    /// Writes what the writer thread still holds, and ends it; later
    /// entries are written as they come. Returns how long it waited for the
    /// writer.
    pub fn finish(&self) -> Duration {
        let start = std::time::Instant::now();
        drop(self.queue.lock().unwrap_or_else(|e| e.into_inner()).take());
        let handle = self.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(h) = handle {
            let _ = h.join();
        }
        start.elapsed()
    }

    /// A line for the agent's summary: hits, misses, stored.
    pub fn summary(&self) -> String {
        let s = &self.stats;
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let hits = load(&s.hits_woven) + load(&s.hits_unchanged);
        let mut line = format!(
            "class cache {}: {hits} hits ({} woven, {} unchanged), {} misses",
            self.dir.display(),
            load(&s.hits_woven),
            load(&s.hits_unchanged),
            load(&s.misses),
        );
        if load(&s.damaged) > 0 {
            line.push_str(&format!(" ({} damaged)", load(&s.damaged)));
        }
        line.push_str(&format!(", {} stored", load(&s.stored)));
        if !self.writable.load(Ordering::Relaxed) {
            line.push_str(" (writing failed: the rest uncached)");
        }
        line
    }

    /// After a run that stored classes: removes the oldest entries while
    /// the cache holds more than `max_bytes`, down to three quarters of it,
    /// and temporary files older than a day. Returns the number of files
    /// removed.
    pub fn prune(&self, max_bytes: u64) -> usize {
        prune_dir(&self.dir, max_bytes)
    }
}

/// [`ClassCache::prune`] of the cache in `dir`.
pub fn prune_dir(dir: &Path, max_bytes: u64) -> usize {
    let day_ago = SystemTime::now() - Duration::from_secs(24 * 3600);
    let mut files: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
    let mut removed = 0;
    let Ok(top) = fs::read_dir(dir) else {
        return 0;
    };
    for sub in top.flatten() {
        let Ok(entries) = fs::read_dir(sub.path()) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(m) = e.metadata() else { continue };
            let t = m.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            if e.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
                if t < day_ago && fs::remove_file(e.path()).is_ok() {
                    removed += 1;
                }
                continue;
            }
            files.push((t, m.len(), e.path()));
        }
    }
    let mut total: u64 = files.iter().map(|f| f.1).sum();
    if total <= max_bytes {
        return removed;
    }
    files.sort();
    let target = max_bytes / 4 * 3;
    for (_, len, p) in files {
        if total <= target {
            break;
        }
        if fs::remove_file(&p).is_ok() {
            total = total.saturating_sub(len);
            removed += 1;
        }
    }
    removed
}

/// Refreshes the time of a hit's file when it is older than a day (the
/// pruning removes the oldest files first); a failure is harmless.
fn refresh(file: &fs::File) {
    let now = SystemTime::now();
    let old = file
        .metadata()
        .and_then(|m| m.modified())
        .is_ok_and(|t| t + Duration::from_secs(24 * 3600) < now);
    if old {
        let _ = file.set_modified(now);
    }
}

/// Writes `data` to a temporary file beside `path`, then renames it to
/// `path`.
fn write_atomically(path: &Path, data: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)?;
    tmp.write_all(data)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The file of `value` under `key`: `MAGIC`, the key, the kind (unchanged,
/// woven); for a woven class its length (u32 LE) and bytes, the extra
/// class's name length (0: none), name, length and bytes; then the SHA-256
/// of everything before it.
pub fn encode(key: &Key, value: &Cached) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(key);
    match value {
        Cached::Unchanged => out.push(UNCHANGED),
        Cached::Woven { bytes, extra } => {
            out.push(WOVEN);
            let mut part = |b: &[u8]| {
                out.extend_from_slice(&(b.len() as u32).to_le_bytes());
                out.extend_from_slice(b);
            };
            part(bytes);
            match extra {
                Some((n, x)) => {
                    part(n.as_bytes());
                    part(x);
                }
                None => part(&[]),
            }
        }
    }
    let sum = Sha256::digest(&out);
    out.extend_from_slice(&sum);
    out
}

/// The value in a file written by [`encode`] for `key`, or why it is not
/// one.
pub fn decode(data: &[u8], key: &Key) -> Result<Cached, &'static str> {
    let body_len = data
        .len()
        .checked_sub(32)
        .ok_or("shorter than a checksum")?;
    let (body, sum) = data.split_at(body_len);
    if !body.starts_with(MAGIC) {
        return Err("not an entry of this cache (bad magic)");
    }
    if Sha256::digest(body).as_slice() != sum {
        return Err("its checksum does not match its contents");
    }
    let mut rest = &body[MAGIC.len()..];
    let mut take = |n: usize| -> Result<&[u8], &'static str> {
        if rest.len() < n {
            return Err("a length runs past its end");
        }
        let (a, b) = rest.split_at(n);
        rest = b;
        Ok(a)
    };
    if take(32)? != key {
        return Err("it holds another key");
    }
    let value = match take(1)?[0] {
        UNCHANGED => Cached::Unchanged,
        WOVEN => {
            let mut part = || -> Result<Vec<u8>, &'static str> {
                let n = u32::from_le_bytes(take(4)?.try_into().expect("four bytes"));
                Ok(take(n as usize)?.to_vec())
            };
            let bytes = part()?;
            let name = part()?;
            let extra = if name.is_empty() {
                None
            } else {
                let name =
                    String::from_utf8(name).map_err(|_| "an extra class name is not UTF-8")?;
                Some((name, part()?))
            };
            Cached::Woven { bytes, extra }
        }
        _ => return Err("an unknown kind of entry"),
    };
    if !rest.is_empty() {
        return Err("bytes after its value");
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn woven() -> Cached {
        Cached::Woven {
            bytes: vec![0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 61],
            extra: Some(("p/A$MajorStatics".into(), vec![0xca, 0xfe, 1])),
        }
    }

    #[test]
    fn stored_values_read_back() {
        let d = tempfile::tempdir().unwrap();
        let c = ClassCache::new(d.path().join("c"), "env".into());
        let (a, b, x) = (c.key("p/A", b"a"), c.key("p/B", b"b"), c.key("p/X", b"x"));
        assert!(c.get(&a).is_none());
        c.put(&a, &woven());
        c.put(&b, &Cached::Unchanged);
        let plain = Cached::Woven {
            bytes: vec![1, 2, 3],
            extra: None,
        };
        c.put(&x, &plain);
        assert_eq!(c.get(&a), Some(woven()));
        assert_eq!(c.get(&b), Some(Cached::Unchanged));
        assert_eq!(c.get(&x), Some(plain));
        let s = &c.stats;
        assert_eq!(s.hits_woven.load(Ordering::Relaxed), 2);
        assert_eq!(s.hits_unchanged.load(Ordering::Relaxed), 1);
        assert_eq!(s.misses.load(Ordering::Relaxed), 1);
        assert_eq!(s.stored.load(Ordering::Relaxed), 3);
        assert!(c.take_warnings().is_empty());
    }

    #[test]
    fn the_writer_thread_writes_everything_before_finish_returns() {
        let d = tempfile::tempdir().unwrap();
        let c: &'static ClassCache =
            Box::leak(Box::new(ClassCache::new(d.path().join("c"), "env".into())));
        c.start_writer();
        let keys: Vec<Key> = (0..50u8).map(|i| c.key("p/A", &[i])).collect();
        for k in &keys {
            c.put(k, &woven());
        }
        c.finish();
        assert_eq!(c.stats.stored.load(Ordering::Relaxed), 50);
        for k in &keys {
            assert_eq!(c.get(k), Some(woven()));
        }
        // After finish, entries are written as they come.
        let late = c.key("p/Late", b"");
        c.put(&late, &Cached::Unchanged);
        assert_eq!(c.get(&late), Some(Cached::Unchanged));
    }

    #[test]
    fn keys_depend_on_the_environment_name_and_bytes() {
        let c = ClassCache::new("/x", "env".into());
        let other = ClassCache::new("/x", "env2".into());
        let k = c.key("p/A", b"abc");
        assert_eq!(k, c.key("p/A", b"abc"));
        assert_ne!(k, other.key("p/A", b"abc"));
        assert_ne!(k, c.key("p/B", b"abc"));
        assert_ne!(k, c.key("p/A", b"abd"));
        // Length prefixes keep name and bytes apart.
        assert_ne!(c.key("p/Ab", b"c"), c.key("p/A", b"bc"));
    }

    #[test]
    fn every_damage_is_a_miss_with_one_warning() {
        let d = tempfile::tempdir().unwrap();
        let c = ClassCache::new(d.path(), "env".into());
        let k = c.key("p/A", b"a");
        c.put(&k, &woven());
        let f = c.file(&k);
        let good = fs::read(&f).unwrap();
        let mut damaged: Vec<Vec<u8>> = [0, 7, 40, good.len() - 1]
            .iter()
            .map(|&n| good[..n].to_vec())
            .collect();
        for i in [0, 9, 41, 50, good.len() - 1] {
            let mut b = good.clone();
            b[i] ^= 0x20;
            damaged.push(b);
        }
        let mut longer = good.clone();
        longer.push(0);
        damaged.push(longer);
        for (i, bytes) in damaged.iter().enumerate() {
            fs::write(&f, bytes).unwrap();
            assert_eq!(c.get(&k), None, "damage {i} taken as a hit");
        }
        // Another key's (intact) file in this key's place.
        let k2 = c.key("p/B", b"b");
        c.put(&k2, &woven());
        fs::copy(c.file(&k2), &f).unwrap();
        assert_eq!(c.get(&k), None, "another key's file taken as a hit");
        let w = c.take_warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains(&*f.to_string_lossy()), "{w:?}");
        assert_eq!(
            c.stats.damaged.load(Ordering::Relaxed),
            damaged.len() as u64 + 1
        );
        // Written again, it is a hit.
        c.put(&k, &woven());
        assert_eq!(c.get(&k), Some(woven()));
    }

    #[test]
    fn a_failed_write_warns_once_and_stops_writing() {
        let d = tempfile::tempdir().unwrap();
        // A file where the cache directory should be.
        let file = d.path().join("file");
        fs::write(&file, b"x").unwrap();
        let c = ClassCache::new(file.join("cache"), "env".into());
        for i in 0..3 {
            let k = c.key("p/A", &[i]);
            c.put(&k, &Cached::Unchanged);
            assert_eq!(c.get(&k), None);
        }
        let w = c.take_warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("cannot write"), "{w:?}");
        assert_eq!(c.stats.stored.load(Ordering::Relaxed), 0);
        assert!(c.summary().contains("writing failed"));
    }

    #[test]
    fn pruning_removes_the_oldest_beyond_the_bound() {
        let d = tempfile::tempdir().unwrap();
        let c = ClassCache::new(d.path(), "env".into());
        let value = Cached::Woven {
            bytes: vec![7; 1000],
            extra: None,
        };
        let keys: Vec<Key> = (0..20u8).map(|i| c.key("p/A", &[i])).collect();
        let base = SystemTime::now() - Duration::from_secs(3600);
        for (i, k) in keys.iter().enumerate() {
            c.put(k, &value);
            let f = fs::File::options().append(true).open(c.file(k)).unwrap();
            f.set_modified(base + Duration::from_secs(i as u64))
                .unwrap();
        }
        let size = fs::metadata(c.file(&keys[0])).unwrap().len();
        // A stale temporary file of a killed JVM.
        let stale = c.file(&keys[0]).with_file_name(".tmp-stale");
        fs::write(&stale, b"partial").unwrap();
        fs::File::options()
            .append(true)
            .open(&stale)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(2 * 24 * 3600))
            .unwrap();
        assert_eq!(
            c.prune(size * 20),
            1,
            "within the bound: only the stale file"
        );
        assert!(!stale.exists());
        let removed = c.prune(size * 10);
        assert_eq!(removed, 13, "down to three quarters of ten entries");
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(c.file(k).exists(), i >= 13, "entry {i}");
        }
    }
}
