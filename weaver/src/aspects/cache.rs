//! A cache of compiled aspects: javac's class files, keyed by everything that
//! can change them, so that weaving again with unchanged aspects skips javac
//! (about a second of JVM start-up and compilation).
//!
//! **The key** (the entry's file name) is a SHA-256 over, in order: major's
//! version and the digest of the embedded runtime classes; the `javac` used
//! (canonical path, size, mtime) and its JDK's `release` file; the *names* of
//! the class files on the program's class path ([`ClassPathView`]: the union
//! over its elements, never their paths or stamps); and every source unit
//! handed to javac (its relative path and text). A change to any of them is a
//! miss.
//!
//! **The classes javac read.** Aspects may name program types, so javac sees
//! the program's classes (the weave's inputs among them); but its output
//! depends only on the class files it read, and on which names exist (a
//! name's absence decides how a simple name resolves). So javac runs with
//! `-verbose`, its `[loading ...]` lines say which class files it read, and
//! the entry records those of the program's class path with the SHA-256 of
//! their bytes ([`ClassRead`]). On lookup the entry is valid only if each
//! recorded class, looked up as javac would (the first element holding it),
//! still has those bytes: an edit to a class the aspects do not read keeps the
//! entry, an edit to one they read (or a class added or removed anywhere on
//! the class path, which changes the key) runs javac again. A class read from
//! anywhere else than the class path, the runtime jar or the JDK (a jar named
//! by a `Class-Path` manifest attribute, say) makes the compilation
//! uncacheable. Only successful compilations are stored; a failing one runs
//! javac again, so its diagnostics are always fresh.
//!
//! One file per key (`<hex>.classes`), written to a temporary file in the same
//! directory and renamed into place, so readers never see half a file and
//! concurrent `major` runs storing the same key are harmless. Each file holds
//! its own key and ends with a SHA-256 of everything before it: a file that
//! does not read back exactly (bad magic, truncation, checksum) or that holds
//! another key (a file copied or renamed over another) is a miss and is
//! removed, so a cache hit is always what javac made for that key and those
//! class-path classes. At most [`MAX_ENTRIES`] files are kept; the least
//! recently used go first (a hit refreshes the file's modification time).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use sha2::{Digest, Sha256};

/// How many compiled aspect sets the cache keeps.
pub const MAX_ENTRIES: usize = 64;

const MAGIC: &[u8; 8] = b"MAJORAC3";
const SUFFIX: &str = ".classes";

/// The file that marks a directory as a cache (the cache directory tagging
/// convention that backup tools honour): major's cache directories hold
/// one, and [`CacheKey::path_stamp`] leaves out every directory below a
/// class path directory that holds one. Without that, a cache inside a
/// class path directory (`major run -- -cp .` in the home directory, whose
/// `.cache/major` is the default cache) would change the key of everything
/// stored in it with every entry stored: nothing would ever hit.
pub const CACHE_TAG: &str = "CACHEDIR.TAG";

/// Marks `dir` (which exists) as a cache ([`CACHE_TAG`]) unless it is
/// marked already. A failure is ignored: the tag only spares the keys.
pub fn tag_cache_dir(dir: &Path) {
    let tag = dir.join(CACHE_TAG);
    if tag.is_file() {
        return;
    }
    let text = "Signature: 8a477f597d28d172789f06886806bc55\n\
                # A cache of major, the aspect weaver: what is here is made again when missing.\n";
    if let Ok(mut f) = tempfile::Builder::new()
        .prefix(".major-tag-")
        .tempfile_in(dir)
    {
        if f.write_all(text.as_bytes()).is_ok() {
            let _ = f.persist(&tag);
        }
    }
}

/// The default cache directory: `$MAJOR_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/major`, else `$HOME/.cache/major`; `None` when none is set.
pub fn default_dir() -> Option<PathBuf> {
    let nonempty = |v: &str| std::env::var_os(v).filter(|s| !s.is_empty());
    if let Some(d) = nonempty("MAJOR_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = nonempty("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("major"));
    }
    nonempty("HOME").map(|h| PathBuf::from(h).join(".cache").join("major"))
}

/// The key being built: feed it everything javac's output depends on.
#[derive(Clone)]
pub struct CacheKey {
    hash: Sha256,
}

impl Default for CacheKey {
    fn default() -> Self {
        Self::new()
    }
}

impl CacheKey {
    /// A key seeded with major's version and the options javac gets for
    /// aspects ([`JAVAC_OPTIONS`](super::compile::JAVAC_OPTIONS)).
    pub fn new() -> CacheKey {
        let mut k = CacheKey {
            hash: Sha256::new(),
        };
        k.bytes("major", env!("CARGO_PKG_VERSION").as_bytes());
        k.bytes(
            "javac options",
            super::compile::JAVAC_OPTIONS.join("\0").as_bytes(),
        );
        k
    }

    /// Adds a labelled byte string (length-prefixed, so parts cannot run into
    /// each other).
    pub fn bytes(&mut self, label: &str, data: &[u8]) {
        for part in [label.as_bytes(), data] {
            self.hash.update((part.len() as u64).to_le_bytes());
            self.hash.update(part);
        }
    }

    /// Adds a file or directory by path, size and modification time (of every
    /// file below it, for a directory, but those of caches below it: see
    /// [`tag_cache_dir`]); a missing path is recorded as missing.
    pub fn path_stamp(&mut self, label: &str, path: &Path) {
        self.bytes(label, path.as_os_str().as_encoded_bytes());
        match fs::metadata(path) {
            Ok(m) if m.is_dir() => {
                let mut files: Vec<(PathBuf, u64, u128)> = walkdir::WalkDir::new(path)
                    .into_iter()
                    .filter_entry(|e| {
                        e.depth() == 0
                            || !e.file_type().is_dir()
                            || !e.path().join(CACHE_TAG).is_file()
                    })
                    .filter_map(Result::ok)
                    .filter(|e| e.file_type().is_file())
                    .filter_map(|e| {
                        let m = e.metadata().ok()?;
                        Some((e.path().to_path_buf(), m.len(), mtime_nanos(&m)))
                    })
                    .collect();
                files.sort();
                for (p, len, t) in files {
                    self.bytes("file", p.as_os_str().as_encoded_bytes());
                    self.bytes("stamp", &stamp(len, t));
                }
            }
            Ok(m) => self.bytes("stamp", &stamp(m.len(), mtime_nanos(&m))),
            Err(_) => self.bytes("stamp", b"missing"),
        }
    }

    /// The key as a file-name-safe hex string.
    pub fn finish(self) -> String {
        crate::hex::hex(&self.hash.finalize())
    }
}

fn stamp(len: u64, mtime: u128) -> Vec<u8> {
    let mut v = len.to_le_bytes().to_vec();
    v.extend_from_slice(&mtime.to_le_bytes());
    v
}

fn mtime_nanos(m: &fs::Metadata) -> u128 {
    m.modified()
        .ok()
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// A class file javac read from the program's class path, as a cache entry
/// records it: its name within the class-path element (`p/A.class`,
/// `META-INF/versions/9/p/A.class`) and the SHA-256 of its bytes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ClassRead {
    /// The entry name, `/`-separated, relative to its class-path element.
    pub entry: String,
    /// The SHA-256 of the bytes javac read.
    pub sha256: [u8; 32],
}

/// What one cache entry holds: javac's class files and the program classes
/// javac read to make them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Compilation {
    /// The class files (entry name, bytes), sorted by name.
    pub classes: Vec<(String, Vec<u8>)>,
    /// The class-path classes javac read, sorted by entry name.
    pub reads: Vec<ClassRead>,
}

/// The program's class path as javac sees it: its elements (class
/// directories and jars) opened, to name the class files it holds (part of
/// the key) and to hash the ones javac read (recorded, then checked on
/// lookup). An element that cannot be opened (missing, not an archive) holds
/// nothing, as for javac.
pub struct ClassPathView {
    elements: Vec<(PathBuf, Option<Arc<major_archive::Archive>>)>,
}

impl ClassPathView {
    /// Opens each element of `classpath`, in order.
    pub fn open(classpath: &[PathBuf]) -> ClassPathView {
        Self::open_with(classpath, &[])
    }

    /// [`open`](Self::open), taking the element `classpath[i]` from
    /// `opened[i]` where the caller has it open already (a weave's inputs:
    /// listing a class directory again costs more than the lookup).
    pub fn open_with(
        classpath: &[PathBuf],
        opened: &[Option<Arc<major_archive::Archive>>],
    ) -> ClassPathView {
        ClassPathView {
            elements: classpath
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let a = match opened.get(i) {
                        Some(Some(a)) => Some(a.clone()),
                        _ => major_archive::Archive::open(p).ok().map(Arc::new),
                    };
                    (p.clone(), a)
                })
                .collect(),
        }
    }

    /// Adds the names of every class file on the class path to `key`: the
    /// sorted union over the elements (no paths, no stamps, no contents). A
    /// class that appears or disappears anywhere changes the key, since javac's
    /// resolution of a name can depend on what is absent.
    pub fn add_names(&self, key: &mut CacheKey) {
        let mut names: Vec<&str> = self
            .elements
            .iter()
            .filter_map(|(_, a)| a.as_ref())
            .flat_map(|a| a.entries().iter())
            .filter(|e| !e.is_dir && e.class_name().is_some())
            .map(|e| e.name.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        key.bytes("classpath classes", &(names.len() as u64).to_le_bytes());
        // The same bytes as a `bytes("class", name)` per name, hashed in one
        // update instead of four per name.
        let mut buf = Vec::with_capacity(names.iter().map(|n| n.len() + 29).sum());
        for n in names {
            for part in [b"class".as_slice(), n.as_bytes()] {
                buf.extend_from_slice(&(part.len() as u64).to_le_bytes());
                buf.extend_from_slice(part);
            }
        }
        key.hash.update(&buf);
    }

    /// The SHA-256 of `entry` as javac finds it: in the first element that
    /// holds it. `None` if no element does or it cannot be read.
    fn sha256_of(&self, entry: &str) -> Option<[u8; 32]> {
        let a = self
            .elements
            .iter()
            .filter_map(|(_, a)| a.as_ref())
            .find(|a| a.find(entry).is_some())?;
        let bytes = a.read(a.find(entry)?).ok()?;
        Some(Sha256::digest(&bytes).into())
    }

    /// Whether every class of `reads` still has the recorded bytes (an entry
    /// recorded by [`reads_of`](Self::reads_of) is valid for this class path).
    pub fn reads_hold(&self, reads: &[ClassRead]) -> bool {
        reads
            .iter()
            .all(|r| self.sha256_of(&r.entry) == Some(r.sha256))
    }

    /// The class-path classes a `javac -verbose` run read, from its
    /// `[loading ...]` lines (`log`): a directory element's file
    /// (`<element>/p/A.class`) or a jar's entry (`<element>(/p/A.class)`),
    /// hashed now. Classes from `trusted` elements (covered by the key: the
    /// runtime jar) and from the JDK (`/modules/...`, `ct.sym`'s `*.sig`) are
    /// left out. `None` when javac read a class from anywhere else, or a
    /// class that cannot be read back: such a compilation is not cached.
    pub fn reads_of(&self, log: &str, trusted: &[PathBuf]) -> Option<Vec<ClassRead>> {
        let mut entries = std::collections::BTreeSet::new();
        for line in log.lines() {
            let Some(loaded) = line
                .strip_prefix("[loading ")
                .and_then(|l| l.strip_suffix(']'))
            else {
                continue;
            };
            let mut found = false;
            for (path, archive) in &self.elements {
                let Some(a) = archive else { continue };
                // Overlapping elements (a directory and one below it) may
                // both name the file: each reading is recorded.
                if let Some(rel) = relative_to(loaded, path).filter(|r| a.find(r).is_some()) {
                    entries.insert(rel.to_string());
                    found = true;
                }
            }
            let from_jdk = loaded.starts_with("/modules/")
                || (loaded.ends_with(".sig") && !loaded.contains('('));
            if !found && !from_jdk && !trusted.iter().any(|t| relative_to(loaded, t).is_some()) {
                return None;
            }
        }
        entries
            .into_iter()
            .map(|entry| {
                let sha256 = self.sha256_of(&entry)?;
                Some(ClassRead { entry, sha256 })
            })
            .collect()
    }
}

/// Whether a line of javac's output is one of `-verbose`'s progress lines
/// (kept apart from its diagnostics).
pub fn is_verbose_line(line: &str) -> bool {
    const PREFIXES: [&str; 7] = [
        "[loading ",
        "[parsing started ",
        "[parsing completed ",
        "[search path for ",
        "[checking ",
        "[wrote ",
        "[total ",
    ];
    line.ends_with(']') && PREFIXES.iter().any(|p| line.starts_with(p))
}

/// The entry name of `loaded` (a path javac printed) within class-path element
/// `element`: `<element>/rel` for a directory, `<element>(/rel)` for a jar.
fn relative_to<'a>(loaded: &'a str, element: &Path) -> Option<&'a str> {
    // javac prints the element as a normalized path: no `.` components, no
    // doubled or trailing separators.
    let normal: PathBuf = element.components().collect();
    let rest = loaded.strip_prefix(normal.to_str()?)?;
    if let Some(rel) = rest.strip_prefix('/') {
        return Some(rel);
    }
    let inner = rest.strip_prefix('(')?.strip_suffix(')')?;
    Some(inner.strip_prefix('/').unwrap_or(inner))
}

/// A cache directory of compiled aspect sets.
#[derive(Debug, Clone)]
pub struct AspectCache {
    dir: PathBuf,
}

impl AspectCache {
    /// The cache in `dir` (created on the first store).
    pub fn new(dir: impl Into<PathBuf>) -> AspectCache {
        AspectCache { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn file(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}{SUFFIX}"))
    }

    /// The compilation stored under `key`, or `None` on a miss. A damaged
    /// file is removed and counts as a miss. The caller still checks its
    /// [`reads`](Compilation::reads) against the class path
    /// ([`ClassPathView::reads_hold`]).
    pub fn load(&self, key: &str) -> Option<Compilation> {
        let path = self.file(key);
        let data = fs::read(&path).ok()?;
        match decode(&data, key) {
            Some(classes) => {
                // Refresh for least-recently-used pruning; failure is harmless.
                if let Ok(f) = fs::File::options().append(true).open(&path) {
                    let _ = f.set_modified(SystemTime::now());
                }
                Some(classes)
            }
            None => {
                let _ = fs::remove_file(&path);
                None
            }
        }
    }

    /// Stores `compilation` under `key`, atomically, then prunes the cache to
    /// [`MAX_ENTRIES`] files.
    pub fn store(&self, key: &str, compilation: &Compilation) -> std::io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        tag_cache_dir(&self.dir);
        let mut tmp = tempfile::Builder::new()
            .prefix(".major-cache-")
            .tempfile_in(&self.dir)?;
        tmp.write_all(&encode(key, compilation))?;
        tmp.as_file().sync_all()?;
        tmp.persist(self.file(key)).map_err(|e| e.error)?;
        self.prune();
        Ok(())
    }

    /// Checks that the cache directory can be written: creates it if needed,
    /// and a file in it (removed again). A cache that cannot be written
    /// (read-only, a file in its place, no space) should not be used.
    pub fn check_writable(&self) -> std::io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        tag_cache_dir(&self.dir);
        let mut probe = tempfile::Builder::new()
            .prefix(".major-probe-")
            .tempfile_in(&self.dir)?;
        // No fsync: a full file system refuses the write itself (its blocks
        // are reserved when written), and a sync would cost every weave.
        probe.write_all(&[0; 4096])?;
        Ok(())
    }

    /// Removes the least recently used files beyond [`MAX_ENTRIES`].
    fn prune(&self) {
        let Ok(rd) = fs::read_dir(&self.dir) else {
            return;
        };
        let mut files: Vec<(SystemTime, PathBuf)> = rd
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(SUFFIX))
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        if files.len() <= MAX_ENTRIES {
            return;
        }
        files.sort();
        let excess = files.len() - MAX_ENTRIES;
        for (_, p) in files.into_iter().take(excess) {
            let _ = fs::remove_file(p);
        }
    }
}

/// A class-data-sharing archive of javac's own classes, kept in the cache
/// directory: the first javac run of a JDK dumps the classes it loaded
/// (`-XX:ArchiveClassesAtExit`, JDK 13+), later runs map them
/// (`-XX:SharedArchiveFile`) and start about twice as fast. One file per JDK
/// (keyed by javac's path and the size and time of its run-time image), written
/// under a temporary name and renamed into place; a JVM that finds it stale
/// ignores it. A damaged archive can crash the JVM that maps it (a truncated
/// one: SIGBUS): after a javac run that crashed with the archive in use, the
/// caller [`discard`](Self::discard)s it and runs javac again, which dumps a
/// new one.
#[derive(Debug, Clone)]
pub struct JavacArchive {
    /// The archive.
    path: PathBuf,
    /// Where this run dumps it when there is none yet.
    temp: PathBuf,
    exists: bool,
    /// Set when the JVM could not use or dump the archive: no options.
    disabled: bool,
}

impl JavacArchive {
    /// The archive for `javac` in cache directory `dir`.
    pub fn new(dir: &Path, javac: &Path) -> JavacArchive {
        let javac = fs::canonicalize(javac).unwrap_or_else(|_| javac.to_path_buf());
        let mut key = CacheKey::new();
        key.bytes("javac", javac.as_os_str().as_encoded_bytes());
        if let Some(home) = javac.parent().and_then(Path::parent) {
            key.path_stamp("modules", &home.join("lib/modules"));
        }
        let name = format!("javac-{}.jsa", &key.finish()[..16]);
        let path = dir.join(name);
        remove_stale_dumps(dir);
        let temp = dir.join(format!(".javac-{}-{}.jsa", std::process::id(), unique()));
        JavacArchive {
            exists: path.is_file(),
            path,
            temp,
            disabled: false,
        }
    }

    /// The `-J` options for javac: map the archive, or dump one.
    pub fn jvm_options(&self) -> Vec<String> {
        if self.disabled {
            Vec::new()
        } else if self.exists {
            vec![format!("-J-XX:SharedArchiveFile={}", self.path.display())]
        } else if fs::create_dir_all(self.temp.parent().unwrap_or(Path::new("."))).is_ok() {
            vec![format!(
                "-J-XX:ArchiveClassesAtExit={}",
                self.temp.display()
            )]
        } else {
            Vec::new()
        }
    }

    /// True when [`jvm_options`](Self::jvm_options) map an existing archive.
    pub fn in_use(&self) -> bool {
        self.exists
    }

    /// Deletes the archive (after a JVM that mapped it crashed): the next
    /// [`jvm_options`](Self::jvm_options) dump a new one.
    pub fn discard(&mut self) {
        let _ = fs::remove_file(&self.path);
        self.exists = false;
    }

    /// Gives up on the archive for this run (the JVM could not map or dump
    /// it): no more options, and a partial dump is removed.
    pub fn disable(&mut self) {
        self.disabled = true;
        let _ = fs::remove_file(&self.temp);
    }

    /// After javac ran: moves a freshly dumped archive into place.
    pub fn after_run(&self) {
        if self.disabled {
            let _ = fs::remove_file(&self.temp);
            return;
        }
        if !self.exists && self.temp.is_file() && fs::rename(&self.temp, &self.path).is_err() {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// Removes the temporaries `.javac-PID-N.jsa` of runs that were killed while
/// javac dumped an archive (their process is gone; where that cannot be told,
/// nothing is removed).
fn remove_stale_dumps(dir: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(listing) = fs::read_dir(dir) else {
        return;
    };
    let own = std::process::id();
    for item in listing.flatten() {
        let name = item.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix(".javac-")?.strip_suffix(".jsa"))
            .and_then(|n| n.split_once('-'))
            .and_then(|(pid, n)| n.parse::<u64>().ok().and(pid.parse::<u32>().ok()));
        if let Some(pid) = pid.filter(|&p| p != own) {
            if !Path::new("/proc").join(pid.to_string()).exists() {
                let _ = fs::remove_file(item.path());
            }
        }
    }
}

/// A number unique within this process.
fn unique() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// `MAGIC`, the key (length, bytes), the reads' count, then (name length,
/// name, SHA-256) per class read, the classes' count, then (name length, name,
/// data length, data) per class, all lengths u32 little-endian, then the
/// SHA-256 of everything before it.
fn encode(key: &str, compilation: &Compilation) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&(key.len() as u32).to_le_bytes());
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(&(compilation.reads.len() as u32).to_le_bytes());
    for r in &compilation.reads {
        out.extend_from_slice(&(r.entry.len() as u32).to_le_bytes());
        out.extend_from_slice(r.entry.as_bytes());
        out.extend_from_slice(&r.sha256);
    }
    out.extend_from_slice(&(compilation.classes.len() as u32).to_le_bytes());
    for (name, data) in &compilation.classes {
        out.extend_from_slice(&(name.len() as u32).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(data);
    }
    let sum = Sha256::digest(&out);
    out.extend_from_slice(&sum);
    out
}

/// The compilation of a file written by [`encode`] for `key`; `None` if it
/// is damaged or holds another key.
fn decode(data: &[u8], key: &str) -> Option<Compilation> {
    let body_len = data.len().checked_sub(32)?;
    let (body, sum) = data.split_at(body_len);
    if Sha256::digest(body).as_slice() != sum || !body.starts_with(MAGIC) {
        return None;
    }
    let mut rest = &body[MAGIC.len()..];
    let mut take = |n: usize| -> Option<&[u8]> {
        if rest.len() < n {
            return None;
        }
        let (a, b) = rest.split_at(n);
        rest = b;
        Some(a)
    };
    let u32_at = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("four bytes")) as usize;
    let n = u32_at(take(4)?);
    if take(n)? != key.as_bytes() {
        return None;
    }
    let count = u32_at(take(4)?);
    let mut reads = Vec::with_capacity(count.min(1 << 16));
    for _ in 0..count {
        let n = u32_at(take(4)?);
        let entry = String::from_utf8(take(n)?.to_vec()).ok()?;
        let sha256 = take(32)?.try_into().ok()?;
        reads.push(ClassRead { entry, sha256 });
    }
    let count = u32_at(take(4)?);
    let mut classes = Vec::with_capacity(count.min(1 << 16));
    for _ in 0..count {
        let n = u32_at(take(4)?);
        let name = String::from_utf8(take(n)?.to_vec()).ok()?;
        let n = u32_at(take(4)?);
        classes.push((name, take(n)?.to_vec()));
    }
    rest.is_empty().then_some(Compilation { classes, reads })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Compilation {
        Compilation {
            classes: vec![
                ("p/A.class".to_string(), vec![0xca, 0xfe, 0xba, 0xbe, 1, 2]),
                ("p/A$1.class".to_string(), vec![]),
            ],
            reads: vec![ClassRead {
                entry: "q/B.class".to_string(),
                sha256: [7; 32],
            }],
        }
    }

    #[test]
    fn store_then_load_gives_the_same_classes() {
        let d = tempfile::tempdir().unwrap();
        let c = AspectCache::new(d.path().join("nested"));
        assert!(c.load("k").is_none());
        c.store("k", &sample()).unwrap();
        assert_eq!(c.load("k").unwrap(), sample());
        assert!(c.load("other").is_none());
    }

    #[test]
    fn a_damaged_file_is_a_miss_and_is_removed() {
        let d = tempfile::tempdir().unwrap();
        let c = AspectCache::new(d.path());
        c.store("k", &sample()).unwrap();
        let f = c.file("k");
        let good = fs::read(&f).unwrap();
        for cut in [0, 7, 12, good.len() - 1] {
            fs::write(&f, &good[..cut]).unwrap();
            assert!(c.load("k").is_none(), "truncated at {cut}");
            assert!(!f.exists(), "damaged file left behind (cut {cut})");
        }
        let mut flipped = good.clone();
        flipped[14] ^= 1;
        fs::write(&f, &flipped).unwrap();
        assert!(c.load("k").is_none());
    }

    #[test]
    fn a_file_swapped_for_another_key_is_a_miss() {
        let d = tempfile::tempdir().unwrap();
        let c = AspectCache::new(d.path());
        let other = Compilation {
            classes: vec![("q/B.class".to_string(), vec![0xca, 0xfe, 0xba, 0xbe, 9])],
            reads: Vec::new(),
        };
        c.store("a", &sample()).unwrap();
        c.store("b", &other).unwrap();
        // The file of key `b` replaced by the (intact) file of key `a`.
        fs::copy(c.file("a"), c.file("b")).unwrap();
        assert!(c.load("b").is_none(), "a swapped file was taken as a hit");
        assert!(!c.file("b").exists(), "the swapped file should be removed");
        assert_eq!(c.load("a").unwrap(), sample());
    }

    #[test]
    fn a_cache_that_cannot_be_written_is_told() {
        let d = tempfile::tempdir().unwrap();
        assert!(AspectCache::new(d.path().join("new"))
            .check_writable()
            .is_ok());
        let file = d.path().join("file");
        fs::write(&file, b"x").unwrap();
        assert!(AspectCache::new(&file).check_writable().is_err());
        assert!(AspectCache::new(file.join("below"))
            .check_writable()
            .is_err());
        // Nothing is left behind by the probe; the directory is tagged.
        let left: Vec<_> = fs::read_dir(d.path().join("new"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, [CACHE_TAG]);
    }

    #[test]
    fn dumps_of_killed_runs_are_removed() {
        let d = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let stale = d.path().join(format!(".javac-{dead}-0.jsa"));
        let running = d
            .path()
            .join(format!(".javac-{}-7.jsa", std::process::id()));
        let other = d.path().join(".javac-notes.jsa");
        for f in [&stale, &running, &other] {
            fs::write(f, b"x").unwrap();
        }
        let _ = JavacArchive::new(d.path(), Path::new("/no/such/javac"));
        assert!(!stale.exists());
        assert!(running.exists() && other.exists());
    }

    #[test]
    fn keys_change_with_every_part() {
        let base = || {
            let mut k = CacheKey::new();
            k.bytes("source", b"aspect A {}");
            k
        };
        let a = base().finish();
        assert_eq!(a, base().finish());
        let mut b = base();
        b.bytes("source", b"");
        assert_ne!(a, b.finish());
        // Length prefixes keep ("ab","c") apart from ("a","bc").
        let mut x = CacheKey::new();
        x.bytes("ab", b"c");
        let mut y = CacheKey::new();
        y.bytes("a", b"bc");
        assert_ne!(x.finish(), y.finish());
    }

    #[test]
    fn path_stamps_leave_out_tagged_caches_below() {
        let d = tempfile::tempdir().unwrap();
        fs::write(d.path().join("x.class"), b"one").unwrap();
        let cache = d.path().join("p/cache");
        fs::create_dir_all(&cache).unwrap();
        fs::write(cache.join("entry"), b"1").unwrap();
        let key = |p: &Path| {
            let mut k = CacheKey::new();
            k.path_stamp("cp", p);
            k.finish()
        };
        let untagged = key(d.path());
        fs::write(cache.join("entry"), b"12").unwrap();
        assert_ne!(untagged, key(d.path()), "an untagged directory is stamped");
        tag_cache_dir(&cache);
        tag_cache_dir(&cache); // marked once
        assert!(fs::read_to_string(cache.join(CACHE_TAG))
            .unwrap()
            .starts_with("Signature: 8a477f597d28d172789f06886806bc55"));
        let tagged = key(d.path());
        fs::write(cache.join("entry"), b"123").unwrap();
        fs::write(cache.join("another"), b"x").unwrap();
        assert_eq!(tagged, key(d.path()), "a tagged cache is left out");
        fs::write(d.path().join("x.class"), b"two").unwrap();
        assert_ne!(tagged, key(d.path()), "the class path's own files count");
        // A class path that is itself a tagged directory is stamped.
        let own = key(&cache);
        fs::write(cache.join("entry"), b"1234").unwrap();
        assert_ne!(own, key(&cache));
    }

    #[test]
    fn path_stamps_see_file_changes() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("x.class");
        fs::write(&f, b"one").unwrap();
        let key = |p: &Path| {
            let mut k = CacheKey::new();
            k.path_stamp("cp", p);
            k.finish()
        };
        let (file1, dir1) = (key(&f), key(d.path()));
        fs::write(&f, b"longer").unwrap();
        assert_ne!(file1, key(&f));
        assert_ne!(dir1, key(d.path()));
        assert_ne!(key(&d.path().join("missing")), key(&f));
    }

    /// A class directory `dir/d` holding `p/A.class` and `p/B.class`, and a
    /// jar `dir/x.jar` holding `p/A.class` (other bytes) and `q/C.class`.
    fn class_path(dir: &Path) -> Vec<PathBuf> {
        let d = dir.join("d");
        fs::create_dir_all(d.join("p")).unwrap();
        fs::write(d.join("p/A.class"), b"dir A").unwrap();
        fs::write(d.join("p/B.class"), b"dir B").unwrap();
        let jar = dir.join("x.jar");
        let mut out =
            major_archive::OutputArchive::create(&jar, major_archive::OutputKind::Zip).unwrap();
        out.write("p/A.class", b"jar A").unwrap();
        out.write("q/C.class", b"jar C").unwrap();
        out.finish().unwrap();
        vec![d, jar]
    }

    fn sha(b: &[u8]) -> [u8; 32] {
        Sha256::digest(b).into()
    }

    #[test]
    fn javac_reads_are_the_class_path_files_it_loaded() {
        let t = tempfile::tempdir().unwrap();
        let cp = class_path(t.path());
        let view = ClassPathView::open(&cp);
        let (d, jar) = (cp[0].display(), cp[1].display());
        let rt = t.path().join("rt.jar");
        let log = format!(
            "[search path for class files: {d},{jar}]\n\
             [loading {d}/p/A.class]\n\
             [loading {jar}(/q/C.class)]\n\
             [loading /87/java.base/java/lang/Object.sig]\n\
             [loading /modules/java.base/java/lang/String.class]\n\
             [loading {}(/major/runtime/X.class)]\n\
             [loading {d}/p/A.class]\n",
            rt.display()
        );
        let reads = view.reads_of(&log, std::slice::from_ref(&rt)).unwrap();
        assert_eq!(
            reads,
            vec![
                ClassRead {
                    entry: "p/A.class".into(),
                    sha256: sha(b"dir A")
                },
                ClassRead {
                    entry: "q/C.class".into(),
                    sha256: sha(b"jar C")
                },
            ]
        );
        assert!(view.reads_hold(&reads));
        // A class from anywhere else: not cacheable.
        let elsewhere = format!("{log}[loading /other/y.jar(/r/D.class)]\n");
        assert!(view.reads_of(&elsewhere, &[rt]).is_none());
    }

    #[test]
    fn reads_hold_until_a_class_read_changes() {
        let t = tempfile::tempdir().unwrap();
        let cp = class_path(t.path());
        let reads = vec![ClassRead {
            entry: "p/A.class".into(),
            sha256: sha(b"dir A"),
        }];
        let names = |cp: &[PathBuf]| {
            let mut k = CacheKey::new();
            ClassPathView::open(cp).add_names(&mut k);
            k.finish()
        };
        let before = names(&cp);
        // Another class edited: the entry holds, the key is the same.
        fs::write(cp[0].join("p/B.class"), b"dir B, edited").unwrap();
        assert!(ClassPathView::open(&cp).reads_hold(&reads));
        assert_eq!(before, names(&cp));
        // The class read edited: it does not.
        fs::write(cp[0].join("p/A.class"), b"dir A, edited").unwrap();
        assert!(!ClassPathView::open(&cp).reads_hold(&reads));
        // Gone from the directory, javac would read the jar's: not the same.
        fs::remove_file(cp[0].join("p/A.class")).unwrap();
        assert!(!ClassPathView::open(&cp).reads_hold(&reads));
        // The jar first: its `p/A.class` is the one javac reads.
        fs::write(cp[0].join("p/A.class"), b"dir A").unwrap();
        let swapped = vec![cp[1].clone(), cp[0].clone()];
        assert!(ClassPathView::open(&cp).reads_hold(&reads));
        assert!(!ClassPathView::open(&swapped).reads_hold(&reads));
        // A class added anywhere changes the key.
        fs::write(cp[0].join("p/New.class"), b"new").unwrap();
        assert_ne!(before, names(&cp));
    }

    #[test]
    fn the_names_key_is_the_sorted_union_each_name_once() {
        let t = tempfile::tempdir().unwrap();
        let cp = class_path(t.path());
        let view = ClassPathView::open(&cp);
        let mut k = CacheKey::new();
        view.add_names(&mut k);
        // Built name by name from the sorted set of every element's classes.
        let names: std::collections::BTreeSet<String> = view
            .elements
            .iter()
            .filter_map(|(_, a)| a.as_ref())
            .flat_map(|a| a.entries().iter())
            .filter(|e| !e.is_dir && e.class_name().is_some())
            .map(|e| e.name.clone())
            .collect();
        let total: usize = view
            .elements
            .iter()
            .filter_map(|(_, a)| a.as_ref())
            .map(|a| a.entries().iter().filter(|e| !e.is_dir).count())
            .sum();
        assert!(
            names.len() >= 2 && names.len() < total,
            "a name on both elements"
        );
        let mut by_name = CacheKey::new();
        by_name.bytes("classpath classes", &(names.len() as u64).to_le_bytes());
        for n in &names {
            by_name.bytes("class", n.as_bytes());
        }
        assert_eq!(k.finish(), by_name.finish());
    }

    #[test]
    fn verbose_lines_are_told_from_diagnostics() {
        assert!(is_verbose_line("[loading /x/p/A.class]"));
        assert!(is_verbose_line("[wrote /tmp/c/a/M.class]"));
        assert!(is_verbose_line("[total 159ms]"));
        assert!(!is_verbose_line(
            "/tmp/src/a/M.java:3: error: cannot find symbol"
        ));
        assert!(!is_verbose_line("    [loading x]"));
        assert!(!is_verbose_line("[loading x"));
    }

    #[test]
    fn pruning_keeps_the_most_recent() {
        let d = tempfile::tempdir().unwrap();
        let c = AspectCache::new(d.path());
        let old = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        for i in 0..MAX_ENTRIES {
            c.store(&format!("k{i}"), &sample()).unwrap();
            let f = fs::File::options()
                .append(true)
                .open(c.file(&format!("k{i}")))
                .unwrap();
            f.set_modified(old + std::time::Duration::from_secs(i as u64))
                .unwrap();
        }
        c.store("newest", &sample()).unwrap();
        assert!(c.load("newest").is_some());
        assert!(!c.file("k0").exists(), "the oldest entry should be pruned");
        assert!(c.file("k1").exists());
    }
}
