//! Outputs: a zip/jar or a directory, written under a temporary name beside
//! the target and moved into place by [`OutputArchive::finish`].

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use zip::DateTime;

use crate::prepared::{Prepared, PreparedEntry};
use crate::reused::Reused;
use crate::zip_input::RawEntry;
use crate::zip_output::{self, Encoded, Header, ZipOutput};
use crate::{Archive, ArchiveError, ArchiveKind, Entry, Source};

/// The kind of an [`OutputArchive`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputKind {
    /// A zip file (a jar).
    Zip,
    /// A directory tree.
    Directory,
}

/// How a zip output holds the entries major writes (new or changed ones;
/// raw copies keep their input's bytes whatever this says).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Compression {
    /// Deflated (libdeflate, level 1); an entry that replaces a stored entry
    /// of a zip input stays stored.
    #[default]
    Deflate,
    /// Stored as it is: no compression work on writing, none on reading.
    /// For outputs read once and soon, such as the JDK patches of a
    /// full-coverage weave (`bench/README.md` measures both).
    Store,
}

/// An output being written: a zip/jar or a directory.
///
/// Everything goes to a temporary sibling of the target (same directory,
/// named `.{name}.major-tmp-{pid}-{n}`), which [`finish`](Self::finish)
/// renames into place. Dropping an `OutputArchive` without finishing it, or
/// a failing `finish`, removes the temporary: the target is either left as
/// it was or replaced whole.
///
/// Output bytes are deterministic: they depend only on the calls made, in
/// their order. Entries written with [`write`](Self::write) get a fixed
/// timestamp (1980-01-01 00:00) and mode 0644; raw copies and
/// [`write_like`](Self::write_like) keep the metadata of the input entry.
///
/// There is no jmod output: a jmod input written to an output becomes a
/// plain jar or directory, with its entry names (`classes/...`, `lib/...`)
/// unchanged. Entries of a jimage are written without the leading `/` of
/// their name (`java.base/java/lang/Object.class`).
pub struct OutputArchive {
    /// Where the output ends up.
    target: PathBuf,
    /// Where it is written meanwhile.
    temp: PathBuf,
    kind: OutputKind,
    /// The writer of a zip output, until finished.
    zip: Option<ZipOutput>,
    /// The names written so far, to refuse duplicates.
    names: crate::names::Names,
    /// The entries written from an earlier zip's mapping, dropped with the
    /// output rather than one by one as they are written: they were made on
    /// another thread (an incremental weave decides them while its writer
    /// writes), and freeing them, and releasing their hold on the shared
    /// mapping, one at a time on the writer's thread cost it more than
    /// writing them.
    spent: Vec<(String, Box<Reused>)>,
    /// Set once the output is in place: nothing to clean up any more.
    done: bool,
    /// The permission bits the output gets, if set ([`set_mode`](Self::set_mode)).
    mode: Option<u32>,
}

impl std::fmt::Debug for OutputArchive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputArchive")
            .field("target", &self.target)
            .field("temp", &self.temp)
            .field("kind", &self.kind)
            .field("entries", &self.names.len())
            .finish()
    }
}

/// Reserves disk blocks for the first `len` bytes of `file` (Linux
/// `fallocate`; best effort: where the file system cannot, or the disk is
/// full, nothing happens and the writes decide). The file's size becomes
/// `len` if it was smaller: a writer that may write less cuts it to what it
/// wrote ([`File::set_len`]).
///
/// Why: an output replaces the previous one by `rename`, and ext4 (its
/// default `auto_da_alloc`) writes out a replacing file's delayed-allocation
/// blocks inside that `rename`, before it returns. Blocks reserved up front
/// are not delayed: measured on this machine's ext4, replacing a 3.2 MB jar
/// took 1.6-2.1 ms in `rename` against 0.4-0.6 ms with them reserved (the
/// writes the same), a tenth of a one-class incremental weave of guava.
pub fn preallocate(file: &File, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        if let Ok(len @ 1..) = libc::off_t::try_from(len) {
            // SAFETY: fallocate(2) on a descriptor this `File` owns and keeps
            // open for the call; mode 0 and plain integers, no memory passed.
            // Its failure is no error: the writes go on without the blocks.
            let _ = unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, len) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, len);
}

/// Writes `parts`, one after the other, to the file at `path` as
/// [`fs::write`] does (created, or truncated), its blocks reserved first
/// ([`preallocate`]): ext4 writes out a file rewritten through truncation
/// inside its `close`, as it does a file replacing another by rename,
/// unless its blocks are not delayed.
pub fn write_reserved(path: &Path, parts: &[&[u8]]) -> io::Result<()> {
    let mut file = File::create(path)?;
    preallocate(&file, parts.iter().map(|p| p.len() as u64).sum());
    parts
        .iter()
        .try_for_each(|p| io::Write::write_all(&mut file, p))
}

/// Makes temporary names unique within the process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// The tags of the hidden siblings an output run makes: the output being
/// written, and an old directory output moved aside.
const SIBLING_TAGS: [&str; 2] = ["tmp", "old"];

/// A hidden sibling of `target`: `.{name}.major-{tag}-{pid}-{n}`.
pub(crate) fn sibling(target: &Path, tag: &str) -> Option<PathBuf> {
    let name = target.file_name()?.to_string_lossy();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let pid = std::process::id();
    Some(target.with_file_name(format!(".{name}.major-{tag}-{pid}-{n}")))
}

/// Removes the hidden siblings of `target` (see [`sibling`]) left by runs
/// that were killed: those whose process is gone. A sibling of a process
/// still running (another run writing the same output) is left alone, and
/// so is everything where liveness cannot be told (no `/proc`).
pub(crate) fn remove_stale_siblings(target: &Path) {
    let (Some(parent), Some(name)) = (target.parent(), target.file_name()) else {
        return;
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(listing) = fs::read_dir(parent) else {
        return;
    };
    let own = std::process::id();
    let name = name.to_string_lossy();
    for item in listing.flatten() {
        let file = item.file_name();
        let file = file.to_string_lossy();
        let Some(rest) = file
            .strip_prefix('.')
            .and_then(|f| f.strip_prefix(&*name))
            .and_then(|f| f.strip_prefix(".major-"))
        else {
            continue;
        };
        let pid = SIBLING_TAGS
            .iter()
            .find_map(|tag| rest.strip_prefix(tag)?.strip_prefix('-'))
            .and_then(|f| f.split_once('-'))
            .filter(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|(pid, _)| pid.parse::<u32>().ok());
        match pid {
            Some(pid) if pid != own && !Path::new("/proc").join(pid.to_string()).exists() => {
                let _ = remove_any(&item.path());
            }
            _ => {}
        }
    }
}

/// Removes a file, or a directory tree, without following a symbolic link.
pub(crate) fn remove_any(path: &Path) -> io::Result<()> {
    if fs::symlink_metadata(path)?.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    }
}

/// Checks that `name` is a relative `/`-separated path that stays inside the
/// output: no empty, `.` or `..` component, no NUL (and, for a directory
/// output, no backslash; for a zip, at most 65,535 bytes). A trailing `/`
/// marks a directory.
fn check_name(name: &str, kind: OutputKind) -> Result<(), &'static str> {
    let body = name.strip_suffix('/').unwrap_or(name);
    if body.is_empty() {
        return Err("empty name");
    }
    if kind == OutputKind::Zip && name.len() > usize::from(u16::MAX) {
        return Err("name longer than 65,535 bytes");
    }
    if body.starts_with('/') {
        return Err("absolute name");
    }
    // One pass over the name (every entry of every output goes through
    // here); the reasons are then given in this order.
    let (mut nul, mut backslash, mut bad_part) = (false, false, false);
    let bytes = body.as_bytes();
    let bad = |part: &[u8]| matches!(part, b"" | b"." | b"..");
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            0 => nul = true,
            b'\\' => backslash = true,
            b'/' => {
                bad_part |= bad(&bytes[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    bad_part |= bad(&bytes[start..]);
    if nul {
        return Err("NUL in name");
    }
    if kind == OutputKind::Directory && backslash {
        return Err("backslash in name");
    }
    if kind == OutputKind::Directory && name == crate::DIR_MANIFEST {
        return Err("the name of major's manifest of a directory output");
    }
    if bad_part {
        return Err("empty, `.` or `..` path component");
    }
    Ok(())
}

/// What a zip entry written by major carries besides its name and data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntryMeta {
    /// Deflated, or stored as it is.
    pub(crate) deflated: bool,
    /// Modification time.
    pub(crate) time: DateTime,
    /// Unix permission bits.
    pub(crate) mode: u32,
    /// For a directory output: the permission bits of the file written, when
    /// it replaces a file of a directory input (else the process default).
    pub(crate) file_mode: Option<u32>,
}

impl EntryMeta {
    /// A new entry: deflated, dated 1980-01-01 00:00, mode 0644.
    pub(crate) fn new() -> EntryMeta {
        EntryMeta {
            deflated: true,
            time: DateTime::default(),
            mode: 0o644,
            file_mode: None,
        }
    }

    /// An entry replacing entry `index` of `from`: the timestamp, the Unix mode
    /// and the stored/deflated choice of the original when `from` is a zip or
    /// jmod; the permission bits of the input file (as `file_mode`) when it is
    /// a directory; else as [`EntryMeta::new`].
    pub(crate) fn like(from: &Archive, index: usize) -> Result<EntryMeta, ArchiveError> {
        let mut meta = EntryMeta::new();
        if let Source::Directory(_) = &from.source {
            let entry = from.entry(index)?;
            let file = from.path().join(&entry.name);
            let m = fs::metadata(&file)
                .map_err(|e| ArchiveError::io(from.path(), Some(&entry.name), e))?;
            meta.file_mode = Some(permission_bits(&m));
        }
        if let Source::Zip(input) = &from.source {
            let entry = from.entry(index)?;
            let name = output_name(from, entry);
            let original = input.record(index).ok_or_else(|| {
                ArchiveError::corrupt(
                    from.path(),
                    Some(name),
                    "no such entry in the zip directory",
                )
            })?;
            meta.deflated = original.method != crate::central::Method::Stored;
            if let Some(time) = original.time {
                meta.time = time;
            }
            if let Some(mode) = original.mode {
                meta.mode = mode & 0o7777;
            }
        }
        Ok(meta)
    }

    /// The same, stored when `compression` says so.
    pub(crate) fn compressed(self, compression: Compression) -> EntryMeta {
        EntryMeta {
            deflated: self.deflated && compression == Compression::Deflate,
            ..self
        }
    }
}

/// The permission bits of a file (0644 where the system has none).
fn permission_bits(meta: &fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o7777
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        0o644
    }
}

/// Sets the permission bits of `path` (nothing where the system has none).
fn set_permission_bits(path: &Path, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, mode);
        Ok(())
    }
}

/// The headers of a raw copy of `raw` under `name`: the input's compression
/// method, CRC-32, sizes, time and date, Unix mode (0644 for a file without
/// one, 0755 for a directory, its type added if missing) and flags: bit 11
/// (UTF-8, also set for any non-ASCII name since names are written as UTF-8),
/// and bits 0 to 2 (encryption, compression options), which describe the
/// data. Bit 3 (data descriptor) is dropped: the sizes are in the headers.
/// The local header's extra field records are carried over (zip64 ones are
/// the writer's to make).
fn raw_header<'n>(name: &'n str, is_dir: bool, raw: &RawEntry<'n>) -> Header<'n> {
    let kind = if is_dir {
        zip_output::S_IFDIR
    } else {
        zip_output::S_IFREG
    };
    let mode = match raw.mode {
        Some(mode) if mode & zip_output::S_IFMT != 0 => mode,
        Some(mode) => kind | (mode & 0o7777),
        None if is_dir => kind | 0o755,
        None => kind | 0o644,
    };
    // The version needed for deflate or stored data is the writer's to say;
    // for other methods, the input's.
    let version_needed = match raw.method {
        zip_output::STORED | zip_output::DEFLATED => zip_output::VERSION_DEFAULT,
        _ => raw.version_needed,
    };
    Header {
        name,
        flags: raw.flags & (zip_output::UTF8 | 0x0007),
        method: raw.method,
        version_needed,
        time: raw.time,
        date: raw.date,
        crc: raw.crc,
        size: raw.size,
        mode,
        extra: raw.extra,
    }
}

/// The name an entry of `from` gets in an output.
pub(crate) fn output_name<'e>(from: &Archive, entry: &'e Entry) -> &'e str {
    match from.kind() {
        ArchiveKind::JImage => entry.name.strip_prefix('/').unwrap_or(&entry.name),
        ArchiveKind::Zip | ArchiveKind::Jmod | ArchiveKind::Directory => &entry.name,
    }
}

impl OutputArchive {
    /// Starts an output that will end up at `path`, creating the parent
    /// directories of `path` if needed. Nothing appears at `path` before
    /// [`finish`](Self::finish).
    pub fn create(path: &Path, kind: OutputKind) -> Result<Self, ArchiveError> {
        let io_error = |e| ArchiveError::io(path, None, e);
        let temp = sibling(path, "tmp").ok_or_else(|| {
            io_error(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the output path has no file name",
            ))
        })?;
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(io_error)?;
        }
        remove_stale_siblings(path);
        // A leftover of a crashed run that had the same process id.
        if fs::symlink_metadata(&temp).is_ok() {
            remove_any(&temp).map_err(io_error)?;
        }
        let zip = match kind {
            OutputKind::Zip => {
                let file = File::options()
                    .write(true)
                    .create_new(true)
                    .open(&temp)
                    .map_err(io_error)?;
                // A jar replacing another is about its size (a weave again):
                // its blocks reserved ([`preallocate`]), with room to grow;
                // the zip cuts the file to its own length when finished.
                if let Some(m) = fs::metadata(path).ok().filter(|m| m.is_file()) {
                    preallocate(&file, m.len().saturating_add(m.len() / 8 + (64 << 10)));
                }
                Some(ZipOutput::new(file).map_err(io_error)?)
            }
            OutputKind::Directory => {
                fs::create_dir(&temp).map_err(io_error)?;
                None
            }
        };
        Ok(OutputArchive {
            target: path.to_path_buf(),
            temp,
            kind,
            zip,
            names: Default::default(),
            spent: Vec::new(),
            done: false,
            mode: None,
        })
    }

    /// The kind of output `path` asks for: a zip for names ending in `.jar`,
    /// `.zip` or `.jmod` (any case; a `.jmod` output is a plain zip, without
    /// the jmod header), a directory otherwise.
    pub fn kind_for(path: &Path) -> OutputKind {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("jar" | "zip" | "jmod") => OutputKind::Zip,
            _ => OutputKind::Directory,
        }
    }

    /// Where the output ends up.
    pub fn path(&self) -> &Path {
        &self.target
    }

    /// Makes room for `additional` more entries (a hint: their names are
    /// kept to refuse duplicates).
    pub fn reserve(&mut self, additional: usize) {
        self.names.reserve(additional);
    }

    /// Whether nothing has been written to the output yet.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The kind of the output.
    pub fn kind(&self) -> OutputKind {
        self.kind
    }

    /// Gives the output file (or directory) these permission bits when it is
    /// moved into place, e.g. those of the input it replaces
    /// ([`mode_of`](Self::mode_of)). Without it, the process default applies.
    pub fn set_mode(&mut self, mode: u32) {
        self.mode = Some(mode & 0o7777);
    }

    /// The permission bits of the file or directory at `path`, if it can be
    /// looked at.
    pub fn mode_of(path: &Path) -> Option<u32> {
        fs::metadata(path).ok().map(|m| permission_bits(&m))
    }

    /// Copies entry `index` of `from` unchanged. From a zip or jmod to a zip
    /// output, the compressed bytes are copied as they are, whatever the
    /// compression method (no recompression, no CRC check), with the entry's
    /// method, CRC-32, sizes, time and date, Unix mode and UTF-8 name flag
    /// (its extra fields are not kept); otherwise the entry is read
    /// (decompressed and checked) and written as by
    /// [`write_like`](Self::write_like). A directory entry (including the
    /// `/modules/...` and `/packages/...` index entries of a jimage) becomes
    /// an empty directory.
    pub fn copy_raw(&mut self, from: &Archive, index: usize) -> Result<(), ArchiveError> {
        let entry = from.entry(index)?;
        let name = output_name(from, entry);
        if let (Some(writer), Source::Zip(input)) = (&mut self.zip, &from.source) {
            claim(&mut self.names, &self.target, name, self.kind)?;
            let raw = input.raw_entry(from.path(), index, name)?;
            return writer
                .add(&raw_header(name, entry.is_dir, &raw), raw.data)
                .map_err(|e| ArchiveError::io(&self.target, Some(name), e));
        }
        if entry.is_dir {
            let name = format!("{}/", name.trim_end_matches('/'));
            return self.write(&name, &[]);
        }
        let data = from.read(index)?;
        self.write_like(from, index, &data)
    }

    /// Copies class entry `index` of `from` under another name, `name`: as
    /// [`copy_raw`](Self::copy_raw) does (for a zip from a zip or jmod, its
    /// compressed bytes and metadata as they are), else read and written as
    /// by [`write`](Self::write). A jmod's `classes/p/C.class` becomes
    /// `p/C.class` in a jar this way without being inflated and deflated
    /// again.
    pub fn copy_raw_as(
        &mut self,
        from: &Archive,
        index: usize,
        name: &str,
    ) -> Result<(), ArchiveError> {
        let entry = from.entry(index)?;
        if let (Some(writer), Source::Zip(input), false) =
            (&mut self.zip, &from.source, entry.is_dir)
        {
            claim(&mut self.names, &self.target, name, self.kind)?;
            let raw = input.raw_entry(from.path(), index, output_name(from, entry))?;
            return writer
                .add(&raw_header(name, false, &raw), raw.data)
                .map_err(|e| ArchiveError::io(&self.target, Some(name), e));
        }
        let data = from.read(index)?;
        self.write(name, &data)
    }

    /// Writes a new or changed entry. A name ending with `/` makes a
    /// directory (`data` is then ignored). In a zip the entry is deflated,
    /// dated 1980-01-01 00:00 with mode 0644.
    pub fn write(&mut self, name: &str, data: &[u8]) -> Result<(), ArchiveError> {
        self.write_with(name, data, EntryMeta::new())
    }

    /// Writes `data` as the new contents of entry `index` of `from`, under
    /// its name, keeping what metadata the output can carry: for a zip
    /// output from a zip or jmod input, the timestamp, the Unix mode and
    /// whether the entry was stored or deflated; otherwise as
    /// [`write`](Self::write).
    pub fn write_like(
        &mut self,
        from: &Archive,
        index: usize,
        data: &[u8],
    ) -> Result<(), ArchiveError> {
        let entry = from.entry(index)?;
        let name = output_name(from, entry);
        let meta = EntryMeta::like(from, index)?;
        self.write_with(name, data, meta)
    }

    /// Writes an entry prepared by [`PreparedEntry::new`] or
    /// [`PreparedEntry::like`]: for a zip, its compressed bytes and headers
    /// are written as they are. The result is the same as [`write`](Self::write) or
    /// [`write_like`](Self::write_like) with the same data.
    ///
    /// # Panics
    /// If the entry was prepared for another kind of output.
    pub fn write_prepared(&mut self, entry: PreparedEntry) -> Result<(), ArchiveError> {
        assert_eq!(
            entry.kind, self.kind,
            "entry prepared for another output kind"
        );
        match (entry.body, &mut self.zip) {
            (Prepared::Zip(encoded), Some(writer)) => {
                claim(&mut self.names, &self.target, &entry.name, self.kind)?;
                encoded
                    .and_then(|e| writer.add(&e.header(&entry.name), e.bytes()))
                    .map_err(|e| ArchiveError::io(&self.target, Some(&entry.name), e))
            }
            (Prepared::Plain(data, file_mode), _) => {
                let meta = EntryMeta {
                    file_mode,
                    ..EntryMeta::new()
                };
                self.write_with(&entry.name, &data, meta)
            }
            (Prepared::Reused(r), Some(writer)) => {
                claim(&mut self.names, &self.target, &entry.name, self.kind)?;
                writer
                    .add(&r.encoded.header(&entry.name), r.data())
                    .map_err(|e| ArchiveError::io(&self.target, Some(&entry.name), e))?;
                self.spent.push((entry.name, r));
                Ok(())
            }
            (Prepared::Zip(_) | Prepared::Reused(_), None) => {
                unreachable!("kinds checked above")
            }
        }
    }

    /// Writes `data` as entry `name`; `meta` is for a zip output.
    fn write_with(&mut self, name: &str, data: &[u8], meta: EntryMeta) -> Result<(), ArchiveError> {
        claim(&mut self.names, &self.target, name, self.kind)?;
        match &mut self.zip {
            Some(writer) => Encoded::new(name, data, meta)
                .and_then(|e| writer.add(&e.header(name), e.bytes()))
                .map_err(|e| ArchiveError::io(&self.target, Some(name), e)),
            None => {
                let is_dir = name.ends_with('/');
                let dest = self.temp.join(name);
                let result = if is_dir {
                    fs::create_dir_all(&dest)
                } else {
                    match dest.parent() {
                        Some(parent) => fs::create_dir_all(parent),
                        None => Ok(()),
                    }
                    .and_then(|()| fs::write(&dest, data))
                    .and_then(|()| match meta.file_mode {
                        Some(mode) => set_permission_bits(&dest, mode),
                        None => Ok(()),
                    })
                };
                result.map_err(|e| ArchiveError::io(&self.target, Some(name), e))
            }
        }
    }

    /// Completes the output and moves it into place.
    ///
    /// A zip replaces whatever file is at the target (an atomic rename); if
    /// the target is a directory, this fails and the directory is kept. A
    /// directory output replaces an existing target (file or directory) in
    /// three steps: the old target is renamed aside (to
    /// `.{name}.major-old-{pid}-{n}`), the new one renamed in, and the old
    /// one deleted. If the second rename fails, the old target is put back.
    /// A failure to delete the old target is not reported.
    ///
    /// The target may be the input being read (weaving in place), provided
    /// every read of that input is done before `finish`: a memory-mapped zip
    /// input keeps the old file's contents, but a directory input is gone.
    ///
    /// The output is atomic with respect to failures of the run and to other
    /// readers; it is not forced to disk (no `fsync`, as `javac` and `jar` do
    /// not), which would cost a few milliseconds on every weave.
    pub fn finish(mut self) -> Result<(), ArchiveError> {
        let io_error = |e| ArchiveError::io(&self.target, None, e);
        if self.kind == OutputKind::Directory {
            self.write_manifest().map_err(io_error)?;
        }
        if let Some(mode) = self.mode {
            set_permission_bits(&self.temp, mode).map_err(io_error)?;
        }
        if let Some(writer) = self.zip.take() {
            let file = writer.finish().map_err(io_error)?;
            drop(file);
            fs::rename(&self.temp, &self.target).map_err(io_error)?;
        } else {
            move_dir_into_place(&self.temp, &self.target).map_err(io_error)?;
        }
        self.done = true;
        Ok(())
    }

    /// Writes [`DIR_MANIFEST`](crate::DIR_MANIFEST) into a directory
    /// output: every file written.
    fn write_manifest(&self) -> io::Result<()> {
        let files = self.names.iter().filter(|n| !n.ends_with('/'));
        write_dir_manifest(&self.temp, files)
    }
}

/// Writes [`DIR_MANIFEST`](crate::DIR_MANIFEST) into `dir`, listing `files`
/// (`/`-separated relative names), sorted: what a directory output records
/// of itself (an incremental weave updating one in place rewrites it).
pub fn write_dir_manifest<'a>(dir: &Path, files: impl Iterator<Item = &'a str>) -> io::Result<()> {
    let mut files: Vec<&str> = files.collect();
    files.sort_unstable();
    let mut text = String::from(crate::replace::MANIFEST_HEADER);
    text.push('\n');
    for f in files {
        text.push_str(f);
        text.push('\n');
    }
    write_reserved(&dir.join(crate::DIR_MANIFEST), &[text.as_bytes()])
}

/// Renames the directory `temp` to `target`. Whatever is at the target is
/// first moved aside, put back if the rename fails, and removed after it.
pub(crate) fn move_dir_into_place(temp: &Path, target: &Path) -> io::Result<()> {
    if fs::symlink_metadata(target).is_err() {
        return fs::rename(temp, target);
    }
    let aside = sibling(target, "old").expect("the target has a file name");
    fs::rename(target, &aside)?;
    if let Err(e) = fs::rename(temp, target) {
        let _ = fs::rename(&aside, target);
        return Err(e);
    }
    let _ = remove_any(&aside);
    Ok(())
}

impl Drop for OutputArchive {
    fn drop(&mut self) {
        if !self.done {
            // Close the file before removing it. (Its buffered bytes are
            // flushed to the temporary, removed next.)
            drop(self.zip.take());
            let _ = remove_any(&self.temp);
        }
    }
}

/// Records `name` as written, refusing invalid names and duplicates.
fn claim(
    names: &mut crate::names::Names,
    target: &Path,
    name: &str,
    kind: OutputKind,
) -> Result<(), ArchiveError> {
    check_name(name, kind).map_err(|reason| ArchiveError::InvalidName {
        path: target.to_path_buf(),
        entry: name.to_owned(),
        reason,
    })?;
    if !names.insert(name) {
        return Err(ArchiveError::Duplicate {
            path: target.to_path_buf(),
            entry: name.to_owned(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    fn dir_names(dir: &Path) -> Vec<String> {
        let mut names: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn contents(archive: &Archive) -> Vec<(String, bool, Vec<u8>)> {
        archive
            .entries()
            .iter()
            .enumerate()
            .map(|(i, e)| {
                (
                    e.name.clone(),
                    e.is_dir,
                    archive.read(i).unwrap().into_owned(),
                )
            })
            .collect()
    }

    fn make_classes(root: &Path) {
        fs::create_dir_all(root.join("p/q")).unwrap();
        fs::write(root.join("p/q/A.class"), b"\xCA\xFE\xBA\xBEA").unwrap();
        fs::write(root.join("p/B.class"), b"\xCA\xFE\xBA\xBEB").unwrap();
        fs::write(root.join("res.txt"), b"text").unwrap();
    }

    #[test]
    fn kind_for_paths() {
        assert_eq!(
            OutputArchive::kind_for(Path::new("a/b.jar")),
            OutputKind::Zip
        );
        assert_eq!(OutputArchive::kind_for(Path::new("b.ZIP")), OutputKind::Zip);
        assert_eq!(
            OutputArchive::kind_for(Path::new("b.jmod")),
            OutputKind::Zip
        );
        assert_eq!(
            OutputArchive::kind_for(Path::new("out/classes")),
            OutputKind::Directory
        );
        assert_eq!(
            OutputArchive::kind_for(Path::new("out")),
            OutputKind::Directory
        );
    }

    #[test]
    fn directory_round_trip_and_replace() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in");
        make_classes(&input);
        let source = Archive::open(&input).unwrap();
        let target = dir.path().join("out");

        for round in 0..2 {
            let mut out = OutputArchive::create(&target, OutputKind::Directory).unwrap();
            for i in 0..source.entries().len() {
                if source.entries()[i].name == "p/B.class" {
                    out.write_like(&source, i, format!("changed {round}").as_bytes())
                        .unwrap();
                } else {
                    out.copy_raw(&source, i).unwrap();
                }
            }
            out.write("extra/new.bin", b"new").unwrap();
            out.write("empty-dir/", b"").unwrap();
            assert!(!target.exists() || round == 1);
            out.finish().unwrap();

            let written = Archive::open(&target).unwrap();
            let names: Vec<_> = written.entries().iter().map(|e| e.name.as_str()).collect();
            assert_eq!(
                names,
                ["extra/new.bin", "p/B.class", "p/q/A.class", "res.txt"]
            );
            let b = written.find("p/B.class").unwrap();
            assert_eq!(
                &*written.read(b).unwrap(),
                format!("changed {round}").as_bytes()
            );
            let a = written.find("p/q/A.class").unwrap();
            assert_eq!(&*written.read(a).unwrap(), b"\xCA\xFE\xBA\xBEA");
            assert!(target.join("empty-dir").is_dir());
            // Nothing left beside the output.
            assert_eq!(dir_names(dir.path()), ["in", "out"]);
        }
    }

    /// A zip replacing a file (whose size reserves blocks for it ahead:
    /// [`preallocate`]) ends where its bytes end: the same bytes as a zip
    /// written where nothing was, whether the file it replaced was larger or
    /// smaller.
    #[test]
    fn a_zip_replacing_a_file_is_cut_to_its_own_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let write = |target: &Path, n: usize| {
            let mut out = OutputArchive::create(target, OutputKind::Zip).unwrap();
            for i in 0..n {
                // Stored: incompressible bytes, so sizes follow `n`.
                let data: Vec<u8> = (0..4096u32)
                    .map(|k| (k.wrapping_mul(2_654_435_761).wrapping_add(i as u32) >> 13) as u8)
                    .collect();
                out.write(&format!("p/C{i}.class"), &data).unwrap();
            }
            out.finish().unwrap();
            fs::read(target).unwrap()
        };
        let target = dir.path().join("out.jar");
        for (previous, n) in [(None, 40), (Some(40), 3), (Some(3), 40), (Some(40), 40)] {
            let fresh = write(&dir.path().join(format!("fresh-{n}.jar")), n);
            if let Some(p) = previous {
                assert!(target.exists());
                assert_ne!(fs::metadata(&target).unwrap().len() as usize, 0, "{p}");
            }
            let written = write(&target, n);
            assert_eq!(written, fresh, "after {previous:?}, {n} entries");
            assert_eq!(Archive::open(&target).unwrap().entries().len(), n);
        }
    }

    /// Where the blocks cannot be reserved (a small file system, nearly
    /// full), the zip is written as without the reservation, and is still
    /// exactly its own bytes. Needs a tmpfs mounted (root).
    #[test]
    fn a_zip_replacing_a_file_on_a_nearly_full_disk_is_its_own_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path().join("small");
        fs::create_dir(&at).unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
            .arg(&at)
            .output()
            .is_ok_and(|o| o.status.success());
        if !mounted {
            eprintln!("SKIP: cannot mount a tmpfs here (needs root)");
            return;
        }
        struct Unmount<'a>(&'a Path);
        impl Drop for Unmount<'_> {
            fn drop(&mut self) {
                let _ = std::process::Command::new("umount").arg(self.0).output();
            }
        }
        let _unmount = Unmount(&at);
        let write = |target: &Path| {
            let mut out = OutputArchive::create(target, OutputKind::Zip).unwrap();
            for i in 0..25u32 {
                let data: Vec<u8> = (0..4096u32)
                    .map(|k| (k.wrapping_mul(2_654_435_761).wrapping_add(i) >> 13) as u8)
                    .collect();
                out.write(&format!("p/C{i}.class"), &data).unwrap();
            }
            out.finish().unwrap();
            fs::read(target).unwrap()
        };
        let fresh = write(&dir.path().join("fresh.jar"));
        // 600 KB replaced on a 1 MB file system: its reservation (739 KB)
        // does not fit beside it, the new zip (about 100 KB) does.
        let target = at.join("out.jar");
        fs::write(&target, vec![7u8; 600 << 10]).unwrap();
        assert_eq!(write(&target), fresh);
        assert_eq!(fs::metadata(&target).unwrap().len(), fresh.len() as u64);
    }

    #[test]
    fn dropped_outputs_leave_nothing() {
        for kind in [OutputKind::Zip, OutputKind::Directory] {
            let dir = tempfile::tempdir().unwrap();
            let target = dir.path().join("out.jar");
            let mut out = OutputArchive::create(&target, kind).unwrap();
            out.write("a/B.class", b"data").unwrap();
            assert_eq!(dir_names(dir.path()).len(), 1, "the temporary exists");
            drop(out);
            assert!(!target.exists());
            assert!(
                dir_names(dir.path()).is_empty(),
                "{:?}",
                dir_names(dir.path())
            );
        }
    }

    #[test]
    fn failed_finish_keeps_the_old_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.jar");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("keep"), b"keep").unwrap();
        let mut out = OutputArchive::create(&target, OutputKind::Zip).unwrap();
        out.write("x", b"y").unwrap();
        let err = out.finish().unwrap_err();
        assert!(matches!(err, ArchiveError::Io { .. }), "{err}");
        assert_eq!(fs::read(target.join("keep")).unwrap(), b"keep");
        assert_eq!(dir_names(dir.path()), ["out.jar"]);
    }

    #[test]
    fn names_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        for kind in [OutputKind::Zip, OutputKind::Directory] {
            let mut out = OutputArchive::create(&dir.path().join("o"), kind).unwrap();
            for bad in [
                "", "/abs", "a/../b", "..", "a//b", "./a", "a/./b", "a\0b", "/",
            ] {
                let err = out.write(bad, b"").unwrap_err();
                assert!(
                    matches!(err, ArchiveError::InvalidName { .. }),
                    "{bad:?}: {err}"
                );
            }
            out.write("a/b", b"1").unwrap();
            let err = out.write("a/b", b"2").unwrap_err();
            assert!(
                matches!(&err, ArchiveError::Duplicate { entry, .. } if entry == "a/b"),
                "{err}"
            );
            let backslash = out.write("a\\b", b"");
            assert_eq!(backslash.is_ok(), kind == OutputKind::Zip);
        }
    }

    #[test]
    fn check_name_gives_each_reason() {
        use OutputKind::{Directory as D, Zip as Z};
        let part = Err("empty, `.` or `..` path component");
        for (name, kind, want) in [
            ("a/b.class", Z, Ok(())),
            ("a/", D, Ok(())),
            ("a/b/", Z, Ok(())),
            (".a/..b/a..b/...", Z, Ok(())),
            ("a\\b", Z, Ok(())),
            ("a\\b", D, Err("backslash in name")),
            ("", Z, Err("empty name")),
            ("/", Z, Err("empty name")),
            ("/a", Z, Err("absolute name")),
            ("a/\0/..", Z, Err("NUL in name")),
            ("a/..\\", D, Err("backslash in name")),
            (
                crate::DIR_MANIFEST,
                D,
                Err("the name of major's manifest of a directory output"),
            ),
            ("a//b", Z, part),
            ("a/.", Z, part),
            ("a/../", Z, part),
            ("./a", D, part),
            ("..", Z, part),
            ("a/b/.", Z, part),
        ] {
            assert_eq!(check_name(name, kind), want, "{name:?} {kind:?}");
        }
    }

    fn write_sample_zip(target: &Path, source: &Archive) {
        let mut out = OutputArchive::create(target, OutputKind::Zip).unwrap();
        out.write("META-INF/", b"").unwrap();
        out.write("a/B.class", b"\xCA\xFE\xBA\xBE new class")
            .unwrap();
        for i in 0..source.entries().len() {
            out.copy_raw(source, i).unwrap();
        }
        out.finish().unwrap();
    }

    #[test]
    fn zip_output_is_deterministic() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in");
        make_classes(&input);
        let source = Archive::open(&input).unwrap();
        let first = dir.path().join("1.jar");
        let second = dir.path().join("2.jar");
        write_sample_zip(&first, &source);
        std::thread::sleep(std::time::Duration::from_millis(2100));
        write_sample_zip(&second, &source);
        assert_eq!(fs::read(&first).unwrap(), fs::read(&second).unwrap());

        let written = Archive::open(&first).unwrap();
        let names: Vec<_> = written.entries().iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "META-INF/",
                "a/B.class",
                "p/B.class",
                "p/q/A.class",
                "res.txt"
            ]
        );
        assert!(written.entries()[0].is_dir);
        assert_eq!(&*written.read(3).unwrap(), b"\xCA\xFE\xBA\xBEA");
    }

    #[test]
    fn zip_to_zip_copy_and_write_like() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in");
        make_classes(&input);
        let classes = Archive::open(&input).unwrap();
        let jar = dir.path().join("in.jar");
        write_sample_zip(&jar, &classes);
        let source = Archive::open(&jar).unwrap();

        let target = dir.path().join("out.jar");
        let mut out = OutputArchive::create(&target, OutputKind::Zip).unwrap();
        for i in 0..source.entries().len() {
            if source.entries()[i].class_name() == Some("p/B") {
                out.write_like(&source, i, b"woven").unwrap();
            } else {
                out.copy_raw(&source, i).unwrap();
            }
        }
        out.finish().unwrap();
        let written = Archive::open(&target).unwrap();
        let mut expected = contents(&source);
        for e in &mut expected {
            if e.0 == "p/B.class" {
                e.2 = b"woven".to_vec();
            }
        }
        assert_eq!(contents(&written), expected);

        // The same entries, written to a directory.
        let out_dir = dir.path().join("outdir");
        let mut out = OutputArchive::create(&out_dir, OutputKind::Directory).unwrap();
        for i in 0..written.entries().len() {
            out.copy_raw(&written, i).unwrap();
        }
        out.finish().unwrap();
        let from_dir = Archive::open(&out_dir).unwrap();
        let files: Vec<_> = expected.into_iter().filter(|e| !e.1).collect();
        assert_eq!(contents(&from_dir), files);
    }

    #[test]
    fn zip_rewritten_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in");
        make_classes(&input);
        let jar = dir.path().join("x.jar");
        write_sample_zip(&jar, &Archive::open(&input).unwrap());
        let source = Archive::open(&jar).unwrap();
        let before = contents(&source);
        let mut out = OutputArchive::create(&jar, OutputKind::Zip).unwrap();
        for i in 0..source.entries().len() {
            if source.entries()[i].class_name().is_some() {
                out.write_like(&source, i, b"woven").unwrap();
            } else {
                out.copy_raw(&source, i).unwrap();
            }
        }
        out.finish().unwrap();
        // The old mapping still reads the old contents.
        assert_eq!(contents(&source), before);
        let after = Archive::open(&jar).unwrap();
        let classes: Vec<_> = contents(&after)
            .into_iter()
            .filter(|e| e.0.ends_with(".class"))
            .map(|e| e.2)
            .collect();
        assert_eq!(classes, vec![b"woven".to_vec(); 3]);
        assert_eq!(dir_names(dir.path()), ["in", "x.jar"]);
    }

    #[test]
    fn commons_lang3_raw_copy() {
        let jar = Path::new("/usr/share/java/commons-lang3.jar");
        if !jar.exists() {
            eprintln!("skipping: {} does not exist", jar.display());
            return;
        }
        let source = Archive::open(jar).unwrap();
        assert!(source.entries().len() > 100);
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("copy.jar");
        let mut out = OutputArchive::create(&target, OutputArchive::kind_for(&target)).unwrap();
        for i in 0..source.entries().len() {
            out.copy_raw(&source, i).unwrap();
        }
        out.finish().unwrap();
        let copy = Archive::open(&target).unwrap();
        assert_eq!(copy.entries(), source.entries());
        let mut classes = 0;
        for i in 0..source.entries().len() {
            let a = source.read(i).unwrap();
            let b = copy.read(i).unwrap();
            assert_eq!(a, b, "{}", source.entries()[i].name);
            if source.entries()[i].class_name().is_some() {
                classes += 1;
                assert_eq!(&b[..4], b"\xCA\xFE\xBA\xBE");
            }
        }
        assert!(classes > 100);
        // A raw copy keeps the compressed bytes: the sizes are close.
        let (a, b) = (source.size_bytes(), copy.size_bytes());
        assert!(b <= a + a / 10 && a <= b + b / 10, "{a} vs {b}");
        let _: Cow<'_, [u8]> = copy.read(0).unwrap();
    }
}
