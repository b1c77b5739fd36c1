//! File stamps: what lets an incremental weave tell an unchanged input from
//! its metadata, without reading it (as git's index does).
//!
//! A stamp is a file's size, modification and status-change times (seconds
//! and nanoseconds), inode and device ([`FileStamp`]). The stamps of a
//! weave's inputs are kept in the aspect cache directory, one file per output
//! (`incremental-<SHA-256 of the output's absolute path>.stamps`), never in the
//! output: the output's bytes, the state file included, must not depend on
//! metadata (two weaves from two copies of the inputs give the same bytes).
//! Stamps only decide what is read again:
//!
//! - **An input file** of a class directory whose stamp is the one recorded
//!   has the recorded SHA-256 and class name: it is neither hashed nor read
//!   (the index reads it on demand, if a weave asks about it).
//! - **A jar entry** (of an input jar) whose CRC-32 and sizes in the central
//!   directory are the recorded ones has the recorded SHA-256 and class name:
//!   it is not inflated.
//! - **The classes the previous weave looked up** keep their recorded prints
//!   (the state's class table) unless their name is one of a changed, added
//!   or deleted input class, provided the state is the one the stamps were
//!   written with, the JDK image's stamp is the same, and the class path
//!   holds only jars whose stamps are the same (a class directory on the
//!   class path: every print is computed again).
//!
//! **Racy files.** A file written in the same clock tick as the weave read
//! it could change again without changing its stamp. As git does, a file
//! whose modification or status-change time is no older than
//! [`RACY_SECONDS`] before the weave started is recorded as racy: the next
//! weave hashes it. The status-change time also catches a file rewritten
//! with the same size and its old modification time restored (`touch -d`):
//! no tool can set it back. What stamps cannot catch: a file system whose
//! times do not change on a write, or a clock set back while files are
//! edited; `--no-cache` (no stamps) hashes every input.
//!
//! The file is binary ([`super::binary`]: a first line naming the format and
//! its version (`major stamps 4`), length-prefixed fields (an entry's class
//! name stored as a flag when it is the entry's name less `.class`), the
//! BLAKE3 digest of what precedes it at the end); a damaged file, or one of
//! another version, is ignored (every input is hashed).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::binary::{self, hex, Reader, Writer};
use super::print::Print;

/// How recent (before the weave started) a file's times may be for its
/// stamp to be trusted by the next weave.
pub const RACY_SECONDS: i64 = 2;

const HEADER: &str = "major stamps 4";

/// A file's metadata, as far as it tells a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
    dev: u64,
}

impl From<major_archive::FileMeta> for FileStamp {
    fn from(m: major_archive::FileMeta) -> FileStamp {
        FileStamp {
            size: m.size,
            mtime: m.mtime,
            ctime: m.ctime,
            ino: m.ino,
            dev: m.dev,
        }
    }
}

impl FileStamp {
    /// The stamp of the file at `path` (symbolic links followed), if it can
    /// be read.
    pub fn of(path: &Path) -> Option<FileStamp> {
        let m = std::fs::metadata(path).ok()?;
        Self::from_metadata(&m)
    }

    /// What `m` tells (`None` where the platform has no status-change time
    /// to catch a restored modification time): the fields a directory
    /// listing keeps ([`major_archive::FileMeta`]).
    fn from_metadata(m: &std::fs::Metadata) -> Option<FileStamp> {
        major_archive::FileMeta::of(m).map(FileStamp::from)
    }

    /// Whether the file was modified after `t`.
    pub fn after(&self, t: std::time::SystemTime) -> bool {
        let t = match t.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => (d.as_secs() as i64, i64::from(d.subsec_nanos())),
            Err(e) => {
                let d = e.duration();
                let (s, n) = (-(d.as_secs() as i64), i64::from(d.subsec_nanos()));
                if n == 0 {
                    (s, 0)
                } else {
                    (s - 1, 1_000_000_000 - n)
                }
            }
        };
        self.mtime > t
    }

    /// Whether the file may have changed since in the same clock tick as a
    /// weave that started at `start` (seconds since the epoch) read it.
    pub fn racy(&self, start: i64) -> bool {
        self.mtime.0.max(self.ctime.0) >= start - RACY_SECONDS
    }

    fn write(&self, w: &mut Writer) {
        w.num(self.size);
        for t in [self.mtime.0, self.mtime.1, self.ctime.0, self.ctime.1] {
            // Zig-zag: times before the epoch stay short.
            w.num(((t << 1) ^ (t >> 63)) as u64);
        }
        w.num(self.ino);
        w.num(self.dev);
    }

    fn read(r: &mut Reader) -> Result<FileStamp, binary::Error> {
        let time = |r: &mut Reader| -> Result<i64, binary::Error> {
            let z = r.num()?;
            Ok((z >> 1) as i64 ^ -((z & 1) as i64))
        };
        let size = r.num()?;
        let mtime = (time(r)?, time(r)?);
        let ctime = (time(r)?, time(r)?);
        Ok(FileStamp {
            size,
            mtime,
            ctime,
            ino: r.num()?,
            dev: r.num()?,
        })
    }
}

/// A file's stamp, and whether it is a regular file.
pub type Stat = (FileStamp, bool);

/// The stamps of many files under `root`, named relative to it with `/`
/// separators (symbolic links followed), each with whether it is a regular
/// file; `None` for a file that cannot be read. The same stamps as
/// [`FileStamp::of`] gives, but on Linux each directory's path is resolved
/// once (an `O_PATH` handle) and its files are looked up by name from it,
/// instead of walking every component of every file's path again: for the
/// thousands of files of a class directory, most of what a `stat` costs.
pub fn stat_under(root: &Path, names: &[&str]) -> Vec<Option<Stat>> {
    use rayon::prelude::*;
    // The files grouped by directory (names of a listing come sorted, so
    // each directory's files are together already).
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let dir = n.rsplit_once('/').map_or("", |(d, _)| d);
        match groups.iter_mut().rev().take(4).find(|(d, _)| *d == dir) {
            Some((_, v)) => v.push(i),
            None => groups.push((dir, vec![i])),
        }
    }
    let found: Vec<Vec<(usize, Option<Stat>)>> = groups
        .par_iter()
        .map(|(dir, files)| stat_in(root, dir, files.iter().map(|&i| (i, names[i]))))
        .collect();
    let mut out = vec![None; names.len()];
    for (i, s) in found.into_iter().flatten() {
        out[i] = s;
    }
    out
}

/// [`stat_under`] for the files of one directory `dir` (relative to `root`).
#[cfg(target_os = "linux")]
fn stat_in<'a>(
    root: &Path,
    dir: &str,
    files: impl Iterator<Item = (usize, &'a str)>,
) -> Vec<(usize, Option<Stat>)> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let path = if dir.is_empty() {
        root.to_path_buf()
    } else {
        root.join(dir)
    };
    let handle = CString::new(path.as_os_str().as_bytes())
        .ok()
        .and_then(|c| {
            // SAFETY: `c` is a NUL-terminated path; O_PATH opens no file for
            // reading or writing, only a handle to look names up from.
            let fd = unsafe {
                libc::open(
                    c.as_ptr(),
                    libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
                )
            };
            (fd >= 0).then_some(fd)
        });
    let one = |name: &str| -> Option<Stat> {
        let Some(fd) = handle else {
            let m = std::fs::metadata(root.join(name)).ok()?;
            return Some((FileStamp::from_metadata(&m)?, m.is_file()));
        };
        let base = name.rsplit_once('/').map_or(name, |(_, b)| b);
        let c = CString::new(base).ok()?;
        // SAFETY: an all-zero `stat` is a valid value of that plain C
        // struct; fstatat writes it whole on success, and `fd` is the open
        // directory handle, `c` a NUL-terminated name.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::fstatat(fd, c.as_ptr(), &mut st, 0) };
        if r != 0 {
            return None;
        }
        let stamp = FileStamp {
            size: st.st_size as u64,
            mtime: (st.st_mtime, st.st_mtime_nsec),
            ctime: (st.st_ctime, st.st_ctime_nsec),
            ino: st.st_ino,
            dev: st.st_dev,
        };
        Some((stamp, st.st_mode & libc::S_IFMT == libc::S_IFREG))
    };
    let out = files.map(|(i, n)| (i, one(n))).collect();
    if let Some(fd) = handle {
        // SAFETY: `fd` was opened above and is closed once.
        unsafe { libc::close(fd) };
    }
    out
}

/// [`stat_under`] for the files of one directory (elsewhere: one path each).
#[cfg(not(target_os = "linux"))]
fn stat_in<'a>(
    root: &Path,
    _dir: &str,
    files: impl Iterator<Item = (usize, &'a str)>,
) -> Vec<(usize, Option<Stat>)> {
    files
        .map(|(i, n)| {
            let s = std::fs::metadata(root.join(n))
                .ok()
                .and_then(|m| Some((FileStamp::from_metadata(&m)?, m.is_file())));
            (i, s)
        })
        .collect()
}

/// What an input entry was when a weave read it: its SHA-256 and the
/// class name in its bytes (`None`: not a class).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    /// SHA-256 of the bytes.
    pub hash: Print,
    /// The name in the class's bytes.
    pub class: Option<Arc<str>>,
}

/// How an entry is told unchanged: a file's stamp (not racy), or a jar
/// entry's CRC-32 and sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// A class directory's file.
    File(FileStamp),
    /// A file whose stamp is racy: hashed next time.
    Racy,
    /// A jar entry: CRC-32, compressed and uncompressed sizes.
    Zip(u32, u64, u64),
}

impl Mark {
    fn write(&self, w: &mut Writer) {
        match self {
            Mark::File(s) => {
                w.byte(b'f');
                s.write(w);
            }
            Mark::Racy => w.byte(b'r'),
            Mark::Zip(crc, c, u) => {
                w.byte(b'z');
                w.num(u64::from(*crc));
                w.num(*c);
                w.num(*u);
            }
        }
    }

    fn read(r: &mut Reader) -> Result<Mark, binary::Error> {
        Ok(match r.byte()? {
            b'f' => Mark::File(FileStamp::read(r)?),
            b'r' => Mark::Racy,
            b'z' => Mark::Zip(
                u32::try_from(r.num()?).map_err(|_| "a CRC-32 out of range")?,
                r.num()?,
                r.num()?,
            ),
            m => return Err(format!("an entry mark of unknown form {m}")),
        })
    }
}

/// One recorded entry, borrowed from its [`RecordedInput`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded<'a> {
    /// How it is told unchanged.
    pub mark: Mark,
    /// SHA-256 of its bytes.
    pub hash: Print,
    /// The name in the class's bytes, if it is a class.
    pub class: Option<&'a str>,
}

/// The entries a stamps file recorded for one input, sorted by name, each
/// once. Their names are read into one buffer, not a map of strings: a
/// string and a table slot per entry made reading guava's 2,040 the largest
/// step of a one-class update (0.7 ms of 9).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordedInput {
    /// The input's absolute path.
    pub path: String,
    /// The entries' names, and the class names that are not an entry's
    /// name less `.class`, one after another.
    text: String,
    /// The entries, sorted by name.
    slots: Vec<Slot>,
}

/// A [`RecordedInput`]'s entry: its name and class name as ranges of the
/// input's text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Slot {
    name: (usize, usize),
    class: Option<(usize, usize)>,
    hash: Print,
    mark: Mark,
}

impl RecordedInput {
    /// The entries `entries` of the input at `path` (sorted here; a name
    /// listed twice is kept once, its first listing).
    pub fn new(path: String, mut entries: Vec<EntryStamp<'_>>) -> RecordedInput {
        entries.sort_by(|a, b| a.name.cmp(b.name));
        entries.dedup_by(|a, b| a.name == b.name);
        let mut input = RecordedInput {
            path,
            ..RecordedInput::default()
        };
        for e in entries {
            input.push(e.name, e.hash, e.class, e.mark);
        }
        input
    }

    /// Appends an entry named after the last (not checked here).
    fn push(&mut self, name: &str, hash: Print, class: Option<&str>, mark: Mark) {
        let start = self.text.len();
        self.text.push_str(name);
        let name_at = (start, self.text.len());
        let class = class.map(|c| match name.strip_suffix(".class") {
            Some(stem) if stem == c => (start, start + c.len()),
            _ => {
                let at = self.text.len();
                self.text.push_str(c);
                (at, self.text.len())
            }
        });
        self.slots.push(Slot {
            name: name_at,
            class,
            hash,
            mark,
        });
    }

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The text at `(start, end)`.
    fn span(&self, (start, end): (usize, usize)) -> &str {
        &self.text[start..end]
    }

    fn name(&self, k: usize) -> &str {
        self.span(self.slots[k].name)
    }

    fn recorded(&self, k: usize) -> Recorded<'_> {
        let slot = &self.slots[k];
        Recorded {
            mark: slot.mark,
            hash: slot.hash,
            class: slot.class.map(|c| self.span(c)),
        }
    }

    /// The entry named `name`.
    pub fn get(&self, name: &str) -> Option<Recorded<'_>> {
        let mut at = 0;
        self.get_near(&mut at, name)
    }

    /// The entry named `name`, looked for at `*at` first (then by binary
    /// search); `*at` is left after it. Entries asked for in name order are
    /// found at once.
    pub fn get_near(&self, at: &mut usize, name: &str) -> Option<Recorded<'_>> {
        let k = if *at < self.slots.len() && self.name(*at) == name {
            *at
        } else {
            self.slots
                .binary_search_by(|slot| self.span(slot.name).cmp(name))
                .ok()?
        };
        *at = k + 1;
        Some(self.recorded(k))
    }

    /// The entries, in name order.
    pub fn iter(&self) -> impl Iterator<Item = EntryStamp<'_>> {
        (0..self.slots.len()).map(|k| {
            let r = self.recorded(k);
            EntryStamp {
                name: self.name(k),
                hash: r.hash,
                class: r.class,
                mark: r.mark,
            }
        })
    }
}

/// A stamps file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StampFile {
    /// The digest that ends the state file written with these stamps.
    pub state: Print,
    /// The JDK image's stamp.
    pub image: Option<FileStamp>,
    /// A weave into a jar: the jar's stamp when it was written, and its
    /// digest (`jar_digest`), so that the next weave need not read it to
    /// check it.
    pub output: Option<(FileStamp, Print)>,
    /// The class path: each element's absolute path and stamp (`None`: not a
    /// jar, or unreadable).
    pub classpath: Vec<(String, Option<FileStamp>)>,
    /// Per input: what each entry was.
    pub inputs: Vec<RecordedInput>,
}

/// An optional stamp.
fn write_stamp(w: &mut Writer, s: &Option<FileStamp>) {
    match s {
        None => w.byte(0),
        Some(s) => {
            w.byte(1);
            s.write(w);
        }
    }
}

fn read_stamp(r: &mut Reader) -> Result<Option<FileStamp>, binary::Error> {
    match r.byte()? {
        0 => Ok(None),
        1 => FileStamp::read(r).map(Some),
        t => Err(format!("a stamp flag of unknown form {t}")),
    }
}

/// One entry as a stamps file records it (borrowed: see [`encode_inputs`]).
#[derive(Debug, Clone, Copy)]
pub struct EntryStamp<'a> {
    /// The entry's name in its input.
    pub name: &'a str,
    /// SHA-256 of its bytes.
    pub hash: Print,
    /// The name in the class's bytes, if it is a class.
    pub class: Option<&'a str>,
    /// How it is told unchanged.
    pub mark: Mark,
}

/// The inputs part of a stamps file ([`StampFile::inputs`]), encoded: per
/// input its absolute path and its entries, each list sorted here by name (a
/// name listed twice is recorded once, its first listing). What
/// [`StampFile::to_bytes`] writes of its own inputs; a weave encodes its
/// entries with it without building a [`StampFile`]'s maps
/// ([`save_encoded`]).
pub fn encode_inputs<'a>(inputs: Vec<(&'a str, Vec<EntryStamp<'a>>)>) -> Vec<u8> {
    let entries: usize = inputs.iter().map(|(_, e)| e.len()).sum();
    // Room for it all at once (about 160 bytes per entry on guava): growing
    // it would copy it into fresh pages, each a page fault.
    let mut w = Writer::part(256 * entries + 64);
    w.num(inputs.len() as u64);
    for (path, mut entries) in inputs {
        entries.sort_by(|a, b| a.name.cmp(b.name));
        entries.dedup_by(|a, b| a.name == b.name);
        w.text(path);
        w.num(entries.len() as u64);
        for e in entries {
            w.text(e.name);
            w.print(&e.hash);
            // The class name: none (0), the entry's name less `.class` (2:
            // nearly every entry, about a third of the file otherwise), or
            // another (1, then the name).
            match e.class {
                None => w.byte(0),
                Some(c) if e.name.strip_suffix(".class") == Some(c) => w.byte(2),
                Some(c) => {
                    w.byte(1);
                    w.text(c);
                }
            }
            e.mark.write(&mut w);
        }
    }
    w.into_part()
}

impl StampFile {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let inputs = self
            .inputs
            .iter()
            .map(|r| (r.path.as_str(), r.iter().collect()))
            .collect();
        self.with_inputs(&encode_inputs(inputs))
    }

    /// The file's bytes, with `inputs` ([`encode_inputs`]) for its inputs
    /// (its own are not written).
    pub fn with_inputs(&self, inputs: &[u8]) -> Vec<u8> {
        let mut bytes = self.head(inputs.len() + binary::DIGEST_LEN);
        bytes.extend_from_slice(inputs);
        let digest = binary::digest_of_parts(&[&bytes]);
        bytes.extend_from_slice(&digest);
        bytes
    }

    /// The file's bytes up to its inputs, with room for `more` bytes after.
    fn head(&self, more: usize) -> Vec<u8> {
        let mut w = Writer::new(HEADER, 1024 + more);
        w.print(&self.state);
        write_stamp(&mut w, &self.image);
        match &self.output {
            None => w.byte(0),
            Some((s, sha)) => {
                w.byte(1);
                s.write(&mut w);
                w.print(sha);
            }
        }
        w.num(self.classpath.len() as u64);
        for (p, s) in &self.classpath {
            w.text(p);
            write_stamp(&mut w, s);
        }
        w.into_part()
    }

    /// Reads a stamps file; `None` if it is damaged or of another version.
    pub fn parse(bytes: &[u8]) -> Option<StampFile> {
        Self::read(bytes).ok()
    }

    fn read(bytes: &[u8]) -> Result<StampFile, binary::Error> {
        let mut r = Reader::new(binary::body(bytes, HEADER)?);
        let mut f = StampFile {
            state: r.print()?,
            image: read_stamp(&mut r)?,
            ..StampFile::default()
        };
        f.output = match r.byte()? {
            0 => None,
            1 => Some((FileStamp::read(&mut r)?, r.print()?)),
            t => return Err(format!("an output flag of unknown form {t}")),
        };
        for _ in 0..r.count(r.left())? {
            f.classpath.push((r.text()?, read_stamp(&mut r)?));
        }
        for _ in 0..r.count(r.left())? {
            let path = r.text()?;
            let n = r.count(r.left())?;
            let mut input = RecordedInput {
                path,
                text: String::with_capacity(n * 48),
                slots: Vec::with_capacity(n),
            };
            for _ in 0..n {
                let name = r.str()?;
                let hash = r.print()?;
                let class = match r.byte()? {
                    0 => None,
                    1 => Some(r.str()?),
                    2 => match name.strip_suffix(".class") {
                        Some(c) => Some(c),
                        None => return Err(format!("{name}: no class name to take")),
                    },
                    t => return Err(format!("a class flag of unknown form {t}")),
                };
                let mark = Mark::read(&mut r)?;
                if input
                    .slots
                    .last()
                    .is_some_and(|s| input.span(s.name) >= name)
                {
                    return Err(format!("{name}: entries not sorted by name"));
                }
                input.push(name, hash, class, mark);
            }
            f.inputs.push(input);
        }
        if !r.done() {
            return Err("bytes after the inputs".into());
        }
        Ok(f)
    }
}

/// Where the stamps of the weave into `output` are kept in the cache
/// directory `cache`.
pub fn stamps_path(cache: &Path, output: &Path) -> PathBuf {
    let absolute = std::path::absolute(output).unwrap_or_else(|_| output.to_path_buf());
    let digest = hex(&Sha256::digest(absolute.as_os_str().as_encoded_bytes()));
    cache.join(format!("incremental-{digest}.stamps"))
}

/// Writes `file` to `path` (by temporary file and rename); best effort: a
/// stamps file that cannot be written only costs the next weave time.
pub fn save(path: &Path, file: &StampFile) {
    save_bytes(path, &file.to_bytes());
}

/// Writes `file` with `inputs` ([`encode_inputs`]) for its inputs to `path`,
/// as [`save`] does.
pub fn save_encoded(path: &Path, file: &StampFile, inputs: &[u8]) {
    // The head, the inputs and the digest of both written one after the
    // other: the inputs (most of the file) are not copied behind the head.
    let head = file.head(0);
    let digest = binary::digest_of_parts(&[&head, inputs]);
    save_parts(path, &[&head, inputs, &digest]);
}

/// Writes `bytes` to `path` (by temporary file and rename), best effort.
fn save_bytes(path: &Path, bytes: &[u8]) {
    save_parts(path, &[bytes]);
}

/// Writes `parts`, one after the other, to `path` (by temporary file and
/// rename), best effort.
fn save_parts(path: &Path, parts: &[&[u8]]) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let _ = binary::replace(path, parts);
}

/// The stamps file at `path`, if there is a sound one.
pub fn load(path: &Path) -> Option<StampFile> {
    StampFile::parse(&std::fs::read(path).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damage() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a b");
        std::fs::write(&a, b"x").unwrap();
        let s = FileStamp::of(&a).unwrap();
        let entries = vec![
            EntryStamp {
                name: "p/A b.class",
                hash: "ab".into(),
                class: Some("p/A b"),
                mark: Mark::File(s),
            },
            EntryStamp {
                name: "r.txt",
                hash: "cd".into(),
                class: None,
                mark: Mark::Racy,
            },
            EntryStamp {
                name: "q/B.class",
                hash: "ef".into(),
                class: Some("q/B"),
                mark: Mark::Zip(7, 8, 9),
            },
            // A class named otherwise than its entry (a versioned one).
            EntryStamp {
                name: "META-INF/versions/11/q/B.class",
                hash: "0f".into(),
                class: Some("q/B"),
                mark: Mark::Zip(1, 2, 3),
            },
        ];
        let f = StampFile {
            state: "00".into(),
            image: Some(s),
            output: Some((s, "12".into())),
            classpath: vec![("/x y.jar".into(), None), ("/z.jar".into(), Some(s))],
            inputs: vec![RecordedInput::new("/in".into(), entries.clone())],
        };
        let bytes = f.to_bytes();
        // The same entries encoded from borrowed parts, in any order: the
        // same file.
        let mut listed = entries.clone();
        for turn in 0..listed.len() {
            listed.rotate_left(1);
            let head = StampFile {
                inputs: Vec::new(),
                ..f.clone()
            };
            let inputs = encode_inputs(vec![("/in", listed.clone())]);
            assert_eq!(head.with_inputs(&inputs), bytes, "turn {turn}");
        }
        assert_eq!(StampFile::parse(&bytes).as_ref(), Some(&f));
        // Each entry found by name, as it was given.
        let read = &StampFile::parse(&bytes).unwrap().inputs[0];
        for e in &entries {
            let r = read.get(e.name).unwrap();
            assert_eq!(
                (r.hash, r.class, r.mark),
                (e.hash, e.class, e.mark),
                "{}",
                e.name
            );
        }
        assert_eq!(read.get("q/C.class"), None);
        assert_eq!(read.len(), 4);
        // A class named as its entry is not written out again: "q/B" twice
        // (the two entry names), then once for the versioned one's class.
        let times = |needle: &[u8]| bytes.windows(needle.len()).filter(|w| w == &needle).count();
        assert_eq!((times(b"q/B"), times(b"p/A b")), (3, 1));
        for at in (0..bytes.len()).step_by(3) {
            let mut b = bytes.clone();
            b[at] ^= 0x01;
            assert_eq!(StampFile::parse(&b), None, "flip at {at}");
        }
    }

    #[test]
    fn entries_are_found_in_any_order() {
        let names = ["a/X.class", "b.txt", "c/Y.class", "c/Z.class", "d"];
        let input = RecordedInput::new(
            "/in".into(),
            names
                .iter()
                .rev()
                .chain(&["b.txt"])
                .enumerate()
                .map(|(k, n)| EntryStamp {
                    name: n,
                    hash: Print::text(&k.to_string()).unwrap(),
                    class: n.strip_suffix(".class"),
                    mark: Mark::Zip(k as u32, 0, 0),
                })
                .collect(),
        );
        assert_eq!(input.len(), 5, "a name listed twice is kept once");
        assert_eq!(
            input.get("b.txt").unwrap().mark,
            Mark::Zip(3, 0, 0),
            "its first listing"
        );
        let listed: Vec<&str> = input.iter().map(|e| e.name).collect();
        assert_eq!(listed, names, "sorted by name");
        // In name order, each found where the last one left the cursor;
        // out of order, by search; a miss leaves the cursor.
        let mut at = 0;
        for (k, n) in names.iter().enumerate() {
            assert_eq!(
                input.get_near(&mut at, n).unwrap().class,
                n.strip_suffix(".class")
            );
            assert_eq!(at, k + 1);
        }
        let mut at = 4;
        assert!(input.get_near(&mut at, "a/X.class").is_some());
        assert_eq!(at, 1);
        assert!(input.get_near(&mut at, "a/W.class").is_none());
        assert_eq!(at, 1);
        assert!(input.get_near(&mut at, "zz").is_none());
        assert!(RecordedInput::default().get("d").is_none());
    }

    #[test]
    fn stamps_under_a_root_are_those_of_each_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("p/q")).unwrap();
        for n in ["a.class", "p/b.class", "p/q/c.class", "p/d b.txt"] {
            std::fs::write(root.join(n), n).unwrap();
        }
        let names = [
            "a.class",
            "p/b.class",
            "p/q/c.class",
            "p/d b.txt",
            "p/gone",
            "p/q",
        ];
        let got = stat_under(root, &names);
        for (n, g) in names.iter().zip(&got) {
            let want = std::fs::metadata(root.join(n))
                .ok()
                .map(|m| (FileStamp::from_metadata(&m).unwrap(), m.is_file()));
            assert_eq!(*g, want, "{n}");
        }
        assert!(got[4].is_none());
        assert_eq!(got[5].map(|(_, f)| f), Some(false), "a directory");
    }

    #[test]
    fn a_rewrite_with_the_old_mtime_restored_changes_the_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("A.class");
        std::fs::write(&a, b"one").unwrap();
        let old = std::fs::metadata(&a).unwrap().modified().unwrap();
        let before = FileStamp::of(&a).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&a, b"two").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&a)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let after = FileStamp::of(&a).unwrap();
        assert_eq!(before.size, after.size);
        assert_eq!(before.mtime, after.mtime);
        assert_ne!(before, after, "the status-change time tells them apart");
    }
}
