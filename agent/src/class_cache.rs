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
//! * **Files**: *packs*, one file holding many entries. A run that weaves
//!   classes appends their entries to a temporary file of its own
//!   (`DIR/.tmp-…`) and at its end renames it to
//!   `DIR/<environment>-<time>-<pid>.pack` (the environment's key, first 32
//!   hex digits); a run reads every pack of its environment once, as it
//!   starts, into an index by key. One file per run instead of one per class:
//!   creating a file (an inode, a directory entry) costs more than writing
//!   its bytes, on some file systems far more (ext4 without a journal skips
//!   recently deleted inodes one by one), and a warm run opens a few files
//!   instead of hundreds. A record is the key (32 bytes), the entry's length
//!   (u32 LE) and the entry: a magic, its own key, the value and a SHA-256
//!   of all that. JVMs that store the same classes at once write separate
//!   packs (a key in two packs: the later pack's entry is taken); readers
//!   never see a pack before it is whole. Nothing is `fsync`ed: a record
//!   that a crash left short ends the pack's reading; one whose bytes
//!   changed fails its checksum. When an environment has more than
//!   [`MAX_PACKS`] packs, a run that stored classes merges them into one.
//! * **Robustness**: an entry that does not read back exactly (bad magic,
//!   another key, a bad checksum, a length past the end) is a miss: the
//!   class is woven and stored again (in this run's pack, which later runs
//!   read after the damaged one); the first such entry is named in a
//!   warning. A pack that cannot be read is a warning, and its classes are
//!   misses. A write that fails (a full disk, a read-only directory, a file
//!   where the directory should be) is a warning once; what was written
//!   before it is kept (the pack is cut back to its last whole record and
//!   renamed into place), and the run goes on without storing more.
//! * **Size**: after a run that stored classes, the oldest files beyond the
//!   bound ([`DEFAULT_MAX_BYTES`], the agent's `class-cache-max=MB`) are
//!   removed, down to three quarters of it; a pack older than a day that
//!   gives a hit has its time refreshed, so packs in use stay.
use std::collections::HashMap;
use std::fs;
use std::io::Write;
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

/// How many packs an environment may have before a run that stored
/// classes merges them into one.
pub const MAX_PACKS: usize = 8;

/// The end of a pack's file name.
const PACK_SUFFIX: &str = ".pack";

/// The bytes of a record before its entry: the key and the entry's length.
const RECORD_HEADER: usize = 36;

/// An entry for the writer thread: its key and its value, encoded
/// ([`encode`]: a copy and a checksum) on the writer thread.
type WriteJob = (Key, Cached);

/// How long the writer thread sleeps between two looks at the entries put
/// since its last one, while it finds some. The threads that put entries
/// never wake it: a wake-up per class (a futex call, the other core
/// interrupted) was 12% of the loading thread's time in the class hook of a
/// first run.
const WRITER_PERIOD: Duration = Duration::from_millis(20);

/// The longest sleep of the writer thread: after each look that finds
/// nothing it sleeps twice as long, up to this (a program that runs for
/// hours after its start-up loads few classes, and the thread should not
/// wake 50 times a second for them).
const WRITER_MAX_PERIOD: Duration = Duration::from_secs(2);

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

/// A pack read as the run started.
struct Pack {
    path: PathBuf,
    data: Vec<u8>,
    /// Whether a hit already checked the pack's time in this run.
    refreshed: AtomicBool,
}

/// The packs of one environment, and where each key's entry is.
#[derive(Default)]
struct Packs {
    packs: Vec<Pack>,
    /// Key → (pack, offset of the entry, its length); a later pack's entry
    /// wins.
    index: HashMap<Key, (usize, usize, usize)>,
}

/// The pack this run writes: a temporary file until [`ClassCache::publish`].
#[derive(Default)]
struct PackWriter {
    /// The file and the length of its whole records.
    file: Option<(tempfile::NamedTempFile, u64)>,
}

/// The records of a pack: each entry's key, offset and length, in the
/// pack's order, up to the first record that runs past the end (the rest of
/// a pack cut short).
pub fn records(data: &[u8]) -> Vec<(Key, usize, usize)> {
    let mut out = Vec::new();
    let mut p = 0;
    while data.len() - p >= RECORD_HEADER {
        let key: Key = data[p..p + 32].try_into().expect("32 bytes");
        let n = u32::from_le_bytes(data[p + 32..p + 36].try_into().expect("4 bytes")) as usize;
        let start = p + RECORD_HEADER;
        if n > data.len() - start {
            break;
        }
        out.push((key, start, n));
        p = start + n;
    }
    out
}

/// The packs of the environment whose file names start with `prefix` in
/// `dir`, oldest first (their names hold the time they were written).
fn pack_files(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.starts_with(prefix) && n.ends_with(PACK_SUFFIX)
        })
        .map(|e| e.path())
        .collect();
    files.sort();
    files
}

/// The cache of woven classes of one run (one environment).
pub struct ClassCache {
    dir: PathBuf,
    env: String,
    /// The start of the names of this environment's packs.
    prefix: String,
    /// The packs as the run started.
    packs: Packs,
    /// Cleared after the first failed write: the run goes on uncached.
    writable: AtomicBool,
    /// The first damaged entry was reported.
    warned_damaged: AtomicBool,
    /// The warnings not yet shown (the agent prints them).
    warnings: Mutex<Vec<String>>,
    /// Set while `warnings` is not empty (checked after every class).
    has_warnings: AtomicBool,
    /// The entries put since the writer thread last took them, once
    /// [`start_writer`](Self::start_writer) started it (until
    /// [`finish`](Self::finish)).
    pending: Mutex<Option<Vec<WriteJob>>>,
    /// Set by [`finish`](Self::finish): the writer thread takes what is
    /// pending a last time and ends.
    stop: AtomicBool,
    /// The writer thread.
    writer: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// The pack being written.
    pack: Mutex<PackWriter>,
    /// The counts.
    pub stats: CacheStats,
}

impl ClassCache {
    /// The cache in `dir` for the environment whose key is `env`
    /// ([`Environment::key`]): its packs are read now. Nothing is created
    /// until a class is stored.
    pub fn new(dir: impl Into<PathBuf>, env: String) -> ClassCache {
        let dir = dir.into();
        let prefix = format!("{}-", &env[..env.len().min(32)]);
        let mut cache = ClassCache {
            dir,
            env,
            prefix,
            packs: Packs::default(),
            writable: AtomicBool::new(true),
            warned_damaged: AtomicBool::new(false),
            warnings: Mutex::new(Vec::new()),
            has_warnings: AtomicBool::new(false),
            pending: Mutex::new(None),
            stop: AtomicBool::new(false),
            writer: Mutex::new(None),
            pack: Mutex::new(PackWriter::default()),
            stats: CacheStats::default(),
        };
        for path in pack_files(&cache.dir, &cache.prefix) {
            let data = match fs::read(&path) {
                Ok(d) => d,
                // Merged into another pack by a run that just ended.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => {
                    cache.warn(format!(
                        "warning: class cache: {}: cannot be read: {e}; its classes are \
                         misses",
                        path.display()
                    ));
                    continue;
                }
            };
            let i = cache.packs.packs.len();
            for (key, at, len) in records(&data) {
                cache.packs.index.insert(key, (i, at, len));
            }
            cache.packs.packs.push(Pack {
                path,
                data,
                refreshed: AtomicBool::new(false),
            });
        }
        cache
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

    /// What the cache held for `key` as the run started; `None` on a miss
    /// (no entry, or an entry that does not read back exactly, which is
    /// reported once).
    pub fn get(&self, key: &Key) -> Option<Cached> {
        let Some(&(i, at, len)) = self.packs.index.get(key) else {
            self.stats.misses.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        let pack = &self.packs.packs[i];
        match decode(&pack.data[at..at + len], key) {
            Ok(c) => {
                let counter = match c {
                    Cached::Unchanged => &self.stats.hits_unchanged,
                    Cached::Woven { .. } => &self.stats.hits_woven,
                };
                counter.fetch_add(1, Ordering::Relaxed);
                if !pack.refreshed.swap(true, Ordering::Relaxed) {
                    refresh(&pack.path);
                }
                Some(c)
            }
            Err(why) => {
                self.damaged(&pack.path, at, why);
                None
            }
        }
    }

    /// The number of entries the cache held as the run started.
    pub fn len(&self) -> usize {
        self.packs.index.len()
    }

    /// Whether the cache held no entry as the run started.
    pub fn is_empty(&self) -> bool {
        self.packs.index.is_empty()
    }

    /// Whether the cache held an entry for `key` as the run started (not
    /// read, not counted).
    pub fn holds(&self, key: &Key) -> bool {
        self.packs.index.contains_key(key)
    }

    fn damaged(&self, path: &Path, at: usize, why: &str) {
        self.stats.misses.fetch_add(1, Ordering::Relaxed);
        self.stats.damaged.fetch_add(1, Ordering::Relaxed);
        if !self.warned_damaged.swap(true, Ordering::Relaxed) {
            self.warn(format!(
                "warning: class cache: {}: the entry at byte {at}: {why}; taken as a miss (the \
                 class is woven again{}); damaged entries after this one are not named",
                path.display(),
                if self.writable.load(Ordering::Relaxed) {
                    " and stored again"
                } else {
                    ""
                }
            ));
        }
    }

    /// Stores `value` under `key` (for later runs: this run's reads see
    /// the cache as it started), unless a write failed before in this run:
    /// on the writer thread once [`start_writer`](Self::start_writer)
    /// started it, into the pack [`finish`](Self::finish) renames into
    /// place; after `finish`, or without a thread, into a pack of its own,
    /// now. A failure is a warning (once) and stops further writes.
    pub fn put(&self, key: &Key, value: Cached) {
        if !self.writable.load(Ordering::Relaxed) {
            return;
        }
        if let Some(jobs) = &mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()) {
            jobs.push((*key, value));
            return;
        }
        self.write(key, &encode(key, &value));
        self.publish();
    }

    /// Takes the entries put since the last call (all of them, and no
    /// writer thread from now on, when `last`).
    fn take_pending(&self, last: bool) -> Vec<WriteJob> {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if last {
            pending.take().unwrap_or_default()
        } else {
            pending.as_mut().map(std::mem::take).unwrap_or_default()
        }
    }

    /// Encodes and appends the entries of `jobs` to this run's pack.
    fn write_jobs(&self, jobs: Vec<WriteJob>) {
        for (key, value) in jobs {
            self.write(&key, &encode(&key, &value));
        }
    }

    /// Appends a record to this run's pack.
    fn write(&self, key: &Key, entry: &[u8]) {
        if !self.writable.load(Ordering::Relaxed) {
            return;
        }
        let mut w = self.pack.lock().unwrap_or_else(|e| e.into_inner());
        match append(&mut w, &self.dir, key, entry) {
            Ok(()) => {
                self.stats.stored.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                if self.writable.swap(false, Ordering::Relaxed) {
                    self.warn(format!(
                        "warning: class cache: cannot write {}: {e}; the run goes on \
                         without storing more woven classes",
                        w.file
                            .as_ref()
                            .map_or(self.dir.as_path(), |(f, _)| f.path())
                            .display()
                    ));
                }
            }
        }
    }

    /// Renames this run's pack into place (the whole records written so
    /// far), if it has any.
    fn publish(&self) {
        let taken = self
            .pack
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .file
            .take();
        let Some((file, len)) = taken else {
            return;
        };
        if len == 0 {
            return; // removed when dropped
        }
        let path = self.dir.join(self.new_pack_name());
        if let Err(e) = file.persist(&path) {
            self.writable.store(false, Ordering::Relaxed);
            self.warn(format!(
                "warning: class cache: cannot write {}: {}; the classes of this run are \
                 not stored",
                path.display(),
                e.error
            ));
        }
    }

    /// A name for a new pack of this environment: after those written
    /// before it (the time in nanoseconds, 20 digits), unique (the process,
    /// a counter).
    fn new_pack_name(&self) -> String {
        static COUNT: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        format!(
            "{}{nanos:020}-{}-{}{PACK_SUFFIX}",
            self.prefix,
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        )
    }

    /// Moves the writing of entries to a thread of its own, so that the
    /// threads loading classes do not wait for the file system; call
    /// [`finish`](Self::finish) before the process ends. Without a thread
    /// (it cannot be started), entries are written as they come.
    pub fn start_writer(&'static self) {
        let spawned = std::thread::Builder::new()
            .name("major class cache writer".into())
            .spawn(move || {
                let mut period = WRITER_PERIOD;
                loop {
                    let last = self.stop.load(Ordering::Acquire);
                    let jobs = self.take_pending(false);
                    period = if jobs.is_empty() {
                        (period * 2).min(WRITER_MAX_PERIOD)
                    } else {
                        WRITER_PERIOD
                    };
                    self.write_jobs(jobs);
                    if last {
                        break;
                    }
                    std::thread::park_timeout(period);
                }
            });
        if let Ok(handle) = spawned {
            *self.pending.lock().unwrap_or_else(|e| e.into_inner()) = Some(Vec::new());
            *self.writer.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle);
        }
    }

    /// Writes what the writer thread still holds, ends it, and renames the
    /// run's pack into place; later entries are written as they come.
    /// Returns how long it waited for the writer.
    pub fn finish(&self) -> Duration {
        let start = std::time::Instant::now();
        self.stop.store(true, Ordering::Release);
        let handle = self.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(h) = handle {
            h.thread().unpark();
            let _ = h.join();
        }
        // What was put after the thread's last look.
        self.write_jobs(self.take_pending(true));
        self.publish();
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

    /// After [`finish`](Self::finish): when this environment has more than
    /// `max_packs` packs, merges them into one (each key's entry from the
    /// latest pack whose entry for it reads back exactly) and removes them.
    /// Returns the number of packs merged (0: none). A failure leaves the
    /// packs as they are.
    pub fn merge_packs(&self, max_packs: usize) -> usize {
        let files = pack_files(&self.dir, &self.prefix);
        if files.len() <= max_packs || !self.writable.load(Ordering::Relaxed) {
            return 0;
        }
        let mut entries: HashMap<Key, Vec<u8>> = HashMap::new();
        let mut order: Vec<Key> = Vec::new();
        for f in &files {
            let Ok(data) = fs::read(f) else { continue };
            for (key, at, len) in records(&data) {
                let entry = &data[at..at + len];
                if decode(entry, &key).is_ok() && entries.insert(key, entry.to_vec()).is_none() {
                    order.push(key);
                }
            }
        }
        let mut w = PackWriter::default();
        for key in &order {
            if append(&mut w, &self.dir, key, &entries[key]).is_err() {
                return 0; // the temporary file is removed when dropped
            }
        }
        let Some((file, _)) = w.file.take() else {
            return 0;
        };
        if file.persist(self.dir.join(self.new_pack_name())).is_err() {
            return 0;
        }
        for f in &files {
            let _ = fs::remove_file(f);
        }
        files.len()
    }

    /// After a run that stored classes: removes the oldest files while the
    /// cache holds more than `max_bytes`, down to three quarters of it, and
    /// temporary files older than a day. Returns the number of files
    /// removed.
    pub fn prune(&self, max_bytes: u64) -> usize {
        prune_dir(&self.dir, max_bytes)
    }
}

/// Appends the record of `entry` under `key` to the pack `w` writes (a
/// temporary file in `dir`, made on the first record). A failed write cuts
/// the file back to its last whole record.
fn append(w: &mut PackWriter, dir: &Path, key: &Key, entry: &[u8]) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    if w.file.is_none() {
        fs::create_dir_all(dir)?;
        major_weaver::aspects::cache::tag_cache_dir(dir);
        let f = tempfile::Builder::new()
            .prefix(TEMP_PREFIX)
            .tempfile_in(dir)?;
        w.file = Some((f, 0));
    }
    let (f, len) = w.file.as_mut().expect("the pack's file");
    let n = u32::try_from(entry.len()).map_err(|_| std::io::Error::other("an entry over 4 GiB"))?;
    let mut record = Vec::with_capacity(RECORD_HEADER + entry.len());
    record.extend_from_slice(key);
    record.extend_from_slice(&n.to_le_bytes());
    record.extend_from_slice(entry);
    if let Err(e) = f.as_file_mut().write_all(&record) {
        let _ = f.as_file().set_len(*len);
        let _ = f.as_file_mut().seek(SeekFrom::Start(*len));
        return Err(e);
    }
    *len += record.len() as u64;
    Ok(())
}

/// [`ClassCache::prune`] of the cache in `dir`: its packs and temporary
/// files, and the files of one entry each in its subdirectories that
/// earlier versions wrote.
pub fn prune_dir(dir: &Path, max_bytes: u64) -> usize {
    let day_ago = SystemTime::now() - Duration::from_secs(24 * 3600);
    let mut files: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
    let mut removed = 0;
    let Ok(top) = fs::read_dir(dir) else {
        return 0;
    };
    let mut consider = |e: fs::DirEntry| {
        if e.file_name() == major_weaver::aspects::cache::CACHE_TAG {
            return; // the directory's tag, no entry
        }
        let Ok(m) = e.metadata() else { return };
        let t = m.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        if e.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            if t < day_ago && fs::remove_file(e.path()).is_ok() {
                removed += 1;
            }
            return;
        }
        files.push((t, m.len(), e.path()));
    };
    for e in top.flatten() {
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            if let Ok(entries) = fs::read_dir(e.path()) {
                entries.flatten().for_each(&mut consider);
            }
        } else {
            consider(e);
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

/// Refreshes the time of a pack that gave a hit when it is older than a day
/// (the pruning removes the oldest files first); a failure is harmless.
fn refresh(path: &Path) {
    let now = SystemTime::now();
    let old = fs::metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t + Duration::from_secs(24 * 3600) < now);
    if old {
        if let Ok(f) = fs::File::options().append(true).open(path) {
            let _ = f.set_modified(now);
        }
    }
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

    /// The cache as a later run sees it.
    fn reopen(c: &ClassCache) -> ClassCache {
        ClassCache::new(c.dir(), c.env.clone())
    }

    #[test]
    fn stored_values_read_back_in_later_runs() {
        let d = tempfile::tempdir().unwrap();
        let c = ClassCache::new(d.path().join("c"), "env".into());
        let (a, b, x) = (c.key("p/A", b"a"), c.key("p/B", b"b"), c.key("p/X", b"x"));
        assert!(c.get(&a).is_none());
        c.put(&a, woven());
        c.put(&b, Cached::Unchanged);
        let plain = Cached::Woven {
            bytes: vec![1, 2, 3],
            extra: None,
        };
        c.put(&x, plain.clone());
        // This run reads the cache as it started.
        assert!(c.get(&b).is_none());
        assert_eq!(c.stats.stored.load(Ordering::Relaxed), 3);
        // Without a writer thread, each entry is a pack of its own.
        assert_eq!(pack_files(c.dir(), &c.prefix).len(), 3);
        let later = reopen(&c);
        assert_eq!(later.get(&a), Some(woven()));
        assert_eq!(later.get(&b), Some(Cached::Unchanged));
        assert_eq!(later.get(&x), Some(plain));
        assert!(later.get(&later.key("p/Y", b"y")).is_none());
        let s = &later.stats;
        assert_eq!(s.hits_woven.load(Ordering::Relaxed), 2);
        assert_eq!(s.hits_unchanged.load(Ordering::Relaxed), 1);
        assert_eq!(s.misses.load(Ordering::Relaxed), 1);
        assert!(c.take_warnings().is_empty() && later.take_warnings().is_empty());
        // Another environment in the same directory sees none of them.
        let other = ClassCache::new(c.dir(), "other env".into());
        assert!(other.get(&a).is_none());
    }

    /// The writer thread takes what was put on its own (nobody wakes it),
    /// within its period; `finish` takes the rest.
    #[test]
    fn the_writer_thread_writes_entries_without_being_woken() {
        let d = tempfile::tempdir().unwrap();
        let c: &'static ClassCache =
            Box::leak(Box::new(ClassCache::new(d.path().join("c"), "env".into())));
        c.start_writer();
        let keys: Vec<Key> = (0..5u8).map(|i| c.key("p/A", &[i])).collect();
        for k in &keys {
            c.put(k, woven());
        }
        let waited = std::time::Instant::now();
        while c.stats.stored.load(Ordering::Relaxed) < 5 {
            assert!(
                waited.elapsed() < Duration::from_secs(10),
                "the writer thread wrote nothing on its own"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        c.put(&c.key("p/B", b""), Cached::Unchanged);
        c.finish();
        assert_eq!(c.stats.stored.load(Ordering::Relaxed), 6);
        assert_eq!(reopen(c).get(&c.key("p/B", b"")), Some(Cached::Unchanged));
    }

    #[test]
    fn the_writer_thread_writes_one_pack_before_finish_returns() {
        let d = tempfile::tempdir().unwrap();
        let c: &'static ClassCache =
            Box::leak(Box::new(ClassCache::new(d.path().join("c"), "env".into())));
        c.start_writer();
        let keys: Vec<Key> = (0..50u8).map(|i| c.key("p/A", &[i])).collect();
        for k in &keys {
            c.put(k, woven());
        }
        c.finish();
        assert_eq!(c.stats.stored.load(Ordering::Relaxed), 50);
        assert_eq!(pack_files(c.dir(), &c.prefix).len(), 1);
        let later = reopen(c);
        for k in &keys {
            assert_eq!(later.get(k), Some(woven()));
        }
        // After finish, entries are written as they come.
        let late = c.key("p/Late", b"");
        c.put(&late, Cached::Unchanged);
        assert_eq!(reopen(c).get(&late), Some(Cached::Unchanged));
        // No temporary file is left (beside the packs, the directory's tag).
        let names: Vec<String> = fs::read_dir(c.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != major_weaver::aspects::cache::CACHE_TAG)
            .collect();
        assert!(names.iter().all(|n| n.ends_with(PACK_SUFFIX)), "{names:?}");
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
        c.put(&k, woven());
        let f = pack_files(c.dir(), &c.prefix).pop().unwrap();
        let good = fs::read(&f).unwrap()[RECORD_HEADER..].to_vec();
        let record = |entry: &[u8]| {
            let mut r = k.to_vec();
            r.extend_from_slice(&(entry.len() as u32).to_le_bytes());
            r.extend_from_slice(entry);
            r
        };
        assert_eq!(fs::read(&f).unwrap(), record(&good));
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
        // Another key's (intact) entry under this key.
        let k2 = c.key("p/B", b"b");
        damaged.push(encode(&k2, &woven()));
        for (i, entry) in damaged.iter().enumerate() {
            fs::write(&f, record(entry)).unwrap();
            let later = reopen(&c);
            assert_eq!(later.get(&k), None, "damage {i} taken as a hit");
            assert_eq!(later.stats.damaged.load(Ordering::Relaxed), 1);
            let w = later.take_warnings();
            assert_eq!(w.len(), 1, "{w:?}");
            assert!(w[0].contains(&*f.to_string_lossy()), "{w:?}");
        }
        // A pack cut short in a record's header or entry: the record is
        // not there (a miss, no warning).
        let whole = record(&good);
        for n in [10, RECORD_HEADER + 5] {
            fs::write(&f, &whole[..n]).unwrap();
            let later = reopen(&c);
            assert_eq!(later.get(&k), None);
            assert_eq!(later.stats.damaged.load(Ordering::Relaxed), 0);
        }
        // Stored again (a later pack), it is a hit.
        fs::write(&f, record(&damaged[5])).unwrap();
        c.put(&k, woven());
        assert_eq!(reopen(&c).get(&k), Some(woven()));
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
            c.put(&k, Cached::Unchanged);
            assert_eq!(c.get(&k), None);
        }
        let w = c.take_warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("cannot write"), "{w:?}");
        assert_eq!(c.stats.stored.load(Ordering::Relaxed), 0);
        assert!(c.summary().contains("writing failed"));
    }

    #[test]
    fn many_packs_are_merged_into_one() {
        let d = tempfile::tempdir().unwrap();
        let c = ClassCache::new(d.path(), "env".into());
        let keys: Vec<Key> = (0..10u8).map(|i| c.key("p/A", &[i])).collect();
        for k in &keys {
            c.put(k, woven());
        }
        // The same class stored twice, and a damaged entry in the first pack
        // that a later pack stores again.
        c.put(&keys[3], woven());
        let first = pack_files(c.dir(), &c.prefix)[0].clone();
        let mut b = fs::read(&first).unwrap();
        let n = b.len();
        b[n - 1] ^= 1;
        fs::write(&first, b).unwrap();
        c.put(&keys[0], Cached::Unchanged);
        assert_eq!(c.merge_packs(20), 0, "within the bound");
        assert_eq!(c.merge_packs(MAX_PACKS), 12);
        let packs = pack_files(c.dir(), &c.prefix);
        assert_eq!(packs.len(), 1);
        assert_eq!(records(&fs::read(&packs[0]).unwrap()).len(), 10);
        let later = reopen(&c);
        assert_eq!(later.get(&keys[0]), Some(Cached::Unchanged));
        for k in &keys[1..] {
            assert_eq!(later.get(k), Some(woven()));
        }
        assert_eq!(later.stats.damaged.load(Ordering::Relaxed), 0);
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
        for k in &keys {
            c.put(k, value.clone());
        }
        let packs = pack_files(c.dir(), &c.prefix);
        assert_eq!(packs.len(), 20);
        let base = SystemTime::now() - Duration::from_secs(3600);
        let set_time = |f: &Path, t: SystemTime| {
            fs::File::options()
                .append(true)
                .open(f)
                .unwrap()
                .set_modified(t)
                .unwrap();
        };
        for (i, p) in packs.iter().enumerate() {
            set_time(p, base + Duration::from_secs(i as u64 + 1));
        }
        let size = fs::metadata(&packs[0]).unwrap().len();
        // An entry file of an earlier version, older than every pack.
        let legacy = d.path().join("ab").join("cdef");
        fs::create_dir_all(legacy.parent().unwrap()).unwrap();
        fs::write(&legacy, vec![0; size as usize]).unwrap();
        set_time(&legacy, base);
        // A stale temporary file of a killed JVM.
        let stale = d.path().join(".tmp-stale");
        fs::write(&stale, b"partial").unwrap();
        set_time(
            &stale,
            SystemTime::now() - Duration::from_secs(2 * 24 * 3600),
        );
        assert_eq!(
            c.prune(size * 21),
            1,
            "within the bound: only the stale file"
        );
        assert!(!stale.exists());
        let removed = c.prune(size * 10);
        assert_eq!(removed, 14, "down to three quarters of ten entries");
        assert!(!legacy.exists());
        for (i, p) in packs.iter().enumerate() {
            assert_eq!(p.exists(), i >= 13, "pack {i}");
        }
    }
}
