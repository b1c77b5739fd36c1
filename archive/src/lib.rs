//! Inputs and outputs of `major`: the containers class files come in and go
//! out in. This crate knows nothing about class-file contents; it moves
//! bytes.
//!
//! Inputs ([`Archive`]) are opened with [`Archive::open`], which recognises
//! from the content (and, failing that, the file name):
//!
//! * zip files and jars, memory-mapped and read in place;
//! * `.jmod` files (a 4-byte `JM 1 0` header in front of a zip);
//! * directories of class files;
//! * JDK run-time images (`lib/modules` of a JDK 9 or later, the "jimage"
//!   format), read by a hand-written reader.
//!
//! Entries are listed once at open time ([`Archive::entries`]) and read by
//! index ([`Archive::read`]), from any number of threads at once. Uncompressed
//! contents are returned borrowed from the memory mapping.
//!
//! A JDK run-time image can also be opened as a [`RuntimeImage`], which lists
//! nothing and reads classes by name ([`RuntimeImage::read_class`]) through
//! the image's own hash table: much cheaper than listing its ~30,000
//! resources when only some classes are wanted.
//!
//! A JDK run-time image is written by [`ImageWriter`]: resources by module
//! and path, or an existing image with some replaced or added; it derives
//! the image's directory and package index, as jlink does.
//!
//! Outputs ([`OutputArchive`]) are a zip/jar or a directory, written beside
//! the target under a temporary name and moved into place only by
//! [`OutputArchive::finish`]: a failed or abandoned run leaves no half-written
//! output behind. Output bytes depend only on what is written, in which order:
//! new zip entries get a fixed timestamp, raw copies keep their own metadata.
//!
//! # Memory mapping
//!
//! Zip, jmod and jimage inputs are memory-mapped. As with any mapping, the
//! file must not be modified or truncated while the [`Archive`] (or
//! [`RuntimeImage`]) is alive; doing so may crash the process (SIGBUS) or
//! yield inconsistent contents.

#![warn(missing_docs)]

mod central;
mod dir_input;
mod error;
mod jimage;
mod jimage_writer;
mod names;
mod output;
mod output_dir;
mod prepared;
mod replace;
mod reused;
mod zip_input;
mod zip_output;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

pub use error::ArchiveError;
pub use jimage::RuntimeImage;
pub use jimage_writer::ImageWriter;
pub use output::{
    preallocate, write_dir_manifest, write_reserved, Compression, OutputArchive, OutputKind,
};
pub use output_dir::OutputDir;
pub use prepared::PreparedEntry;
pub use replace::{check_replace, DIR_MANIFEST, ZIP_MARKER};
pub use zip_input::MAX_CLASS_SIZE;

/// The kind of container an [`Archive`] was opened from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArchiveKind {
    /// A zip file: a `.jar`, `.zip`, `.war`...
    Zip,
    /// A `.jmod` file: a zip behind a `JM 1 0` header. Entry names keep their
    /// section prefix (`classes/`, `lib/`, `bin/`, `conf/`, ...).
    Jmod,
    /// A directory tree; entries are its regular files.
    Directory,
    /// A JDK run-time image (`lib/modules`), jimage format 1.0.
    JImage,
}

/// One entry of an [`Archive`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The name as stored in the container, with `/` separators:
    /// `org/x/Y.class` in a jar or directory (zip directories end with `/`),
    /// `classes/java/lang/Object.class` in a jmod,
    /// `/java.base/java/lang/Object.class` in a jimage.
    pub name: String,
    /// Whether the entry stands for a directory rather than a file. Zip
    /// directory entries; in a jimage, the `/modules/...` and `/packages/...`
    /// index entries that the JDK uses to describe its directory tree.
    pub is_dir: bool,
    /// The size of the (uncompressed) contents in bytes, as declared by the
    /// container.
    pub size: u64,
    /// Where the class name lies within `name`, for class entries.
    class: Option<Range<usize>>,
}

impl Entry {
    fn new(name: String, is_dir: bool, size: u64, kind: ArchiveKind) -> Entry {
        let class = if is_dir {
            None
        } else {
            class_name_range(&name, kind)
        };
        Entry {
            name,
            is_dir,
            size,
            class,
        }
    }

    /// The internal class name (`java/lang/Object`) if the entry is a class
    /// file, that is if its name ends with `.class`: the name without that
    /// suffix and without the container's prefix (`classes/` in a jmod,
    /// `/module/` in a jimage). `module-info` is a class like the others.
    ///
    /// Entries of a jmod outside `classes/` and the `/modules/...` and
    /// `/packages/...` index entries of a jimage are never classes.
    /// Multi-release jar entries keep their prefix
    /// (`META-INF/versions/11/org/x/Y`).
    pub fn class_name(&self) -> Option<&str> {
        self.class.clone().map(|range| &self.name[range])
    }

    /// For a class of a multi-release jar's versioned section
    /// (`META-INF/versions/N/org/x/Y.class`): the release `N` and the class
    /// name without the prefix (`org/x/Y`). `None` for other entries, and for
    /// versions below 9 (which the JDK ignores) or that are not numbers.
    pub fn versioned_class(&self) -> Option<(u32, &str)> {
        let rest = self.class_name()?.strip_prefix(VERSIONS)?;
        let (n, class) = rest.split_once('/')?;
        let release = n.parse::<u32>().ok().filter(|&r| r >= 9)?;
        if class.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some((release, class))
    }
}

/// Where a multi-release jar keeps the classes of later releases.
pub const VERSIONS: &str = "META-INF/versions/";

/// Whether a manifest (`META-INF/MANIFEST.MF` contents) declares a
/// multi-release jar: a main-section attribute `Multi-Release: true` (the
/// name in any case, the value `true` in any case), as the JDK reads it.
pub fn manifest_is_multi_release(manifest: &[u8]) -> bool {
    let text = String::from_utf8_lossy(manifest);
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if line.is_empty() {
            break; // the end of the main section
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("Multi-Release")
                && value.trim().eq_ignore_ascii_case("true")
            {
                return true;
            }
        }
    }
    false
}

/// The class-name part of `name`, if it names a class file.
fn class_name_range(name: &str, kind: ArchiveKind) -> Option<Range<usize>> {
    let stem = name.strip_suffix(".class")?;
    let start = match kind {
        ArchiveKind::Zip | ArchiveKind::Directory => 0,
        ArchiveKind::Jmod => {
            if !stem.starts_with("classes/") {
                return None;
            }
            "classes/".len()
        }
        ArchiveKind::JImage => {
            let rest = stem.strip_prefix('/')?;
            let slash = rest.find('/')?;
            let module = &rest[..slash];
            if module.is_empty() || jimage::is_index_module(module) {
                return None;
            }
            1 + slash + 1
        }
    };
    let class = &stem[start..];
    if class.is_empty() || class.ends_with('/') {
        return None;
    }
    Some(start..stem.len())
}

/// What the metadata of a file tells of a change to it: its size,
/// modification and status-change times (seconds and nanoseconds), inode
/// and device (see [`Archive::file_meta`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileMeta {
    /// Size in bytes.
    pub size: u64,
    /// Modification time.
    pub mtime: (i64, i64),
    /// Status-change time.
    pub ctime: (i64, i64),
    /// Inode number.
    pub ino: u64,
    /// Device.
    pub dev: u64,
}

impl FileMeta {
    /// What `m` tells (`None` where the platform has no status-change time).
    #[cfg(unix)]
    pub fn of(m: &std::fs::Metadata) -> Option<FileMeta> {
        use std::os::unix::fs::MetadataExt;
        Some(FileMeta {
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
            ino: m.ino(),
            dev: m.dev(),
        })
    }

    /// What `m` tells (`None` where the platform has no status-change time).
    #[cfg(not(unix))]
    pub fn of(_: &std::fs::Metadata) -> Option<FileMeta> {
        None
    }
}

/// Where the contents of an [`Archive`] come from.
enum Source {
    /// Zip and jmod.
    Zip(zip_input::ZipInput),
    /// A directory; entry names are relative to the archive path. The
    /// metadata of each file as it was listed.
    Directory(Vec<Option<FileMeta>>),
    /// A JDK run-time image.
    JImage(jimage::JImage),
}

/// An opened input: a jar/zip, a jmod, a directory of classes or a jimage.
///
/// `Archive` is `Send + Sync`; [`read`](Archive::read) takes `&self` and may
/// be called from several threads at once.
pub struct Archive {
    path: PathBuf,
    kind: ArchiveKind,
    entries: Vec<Entry>,
    size_bytes: u64,
    source: Source,
}

impl fmt::Debug for Archive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Archive")
            .field("path", &self.path)
            .field("kind", &self.kind)
            .field("entries", &self.entries.len())
            .field("size_bytes", &self.size_bytes)
            .finish()
    }
}

/// The magic of a jmod file: `JM`, major version 1, minor version 0.
const JMOD_MAGIC: [u8; 4] = *b"JM\x01\x00";

impl Archive {
    /// Opens `path`, recognising its kind: a directory; a file starting
    /// with the jmod header, the jimage magic (in either byte order) or a zip
    /// signature; failing those, a file named `*.jar`/`*.zip`/`*.war`/`*.ear`
    /// is read as a zip (so that a zip with a prefix, such as a
    /// self-extracting one, works) and `*.jmod` as a jmod.
    ///
    /// The whole directory of the container is read and checked now: a
    /// truncated zip, duplicate zip entry names or a jimage whose tables
    /// point outside the file are reported here as [`ArchiveError::Corrupt`].
    /// Entry contents are checked when read.
    pub fn open(path: &Path) -> Result<Archive, ArchiveError> {
        let meta = std::fs::metadata(path).map_err(|e| ArchiveError::io(path, None, e))?;
        if meta.is_dir() {
            let (entries, metas, size_bytes) = dir_input::open(path)?;
            return Ok(Archive {
                path: path.to_path_buf(),
                kind: ArchiveKind::Directory,
                entries,
                size_bytes,
                source: Source::Directory(metas),
            });
        }

        let file = File::open(path).map_err(|e| ArchiveError::io(path, None, e))?;
        // SAFETY: the mapping is read-only. Its contents can still change if
        // another process modifies the file while it is mapped; this is
        // documented at the crate level as a requirement on the caller, and
        // every read of the mapping is bounds-checked, so a change cannot
        // make us read outside the mapping.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| ArchiveError::io(path, None, e))?;
        drop(file);
        let size_bytes = map.len() as u64;

        let kind = detect(path, &map)?;
        let (source, entries) = match kind {
            ArchiveKind::Zip => {
                let (input, entries) = zip_input::open(path, map, 0, kind)?;
                (Source::Zip(input), entries)
            }
            ArchiveKind::Jmod => {
                if map.get(..4) != Some(&JMOD_MAGIC[..]) {
                    return Err(ArchiveError::corrupt(
                        path,
                        None,
                        "not a jmod file: missing the `JM 1 0` header",
                    ));
                }
                let (input, entries) = zip_input::open(path, map, JMOD_MAGIC.len(), kind)?;
                (Source::Zip(input), entries)
            }
            ArchiveKind::JImage => {
                let (image, entries) = jimage::JImage::open(path, map)?;
                (Source::JImage(image), entries)
            }
            ArchiveKind::Directory => unreachable!("detect never answers Directory for a file"),
        };
        Ok(Archive {
            path: path.to_path_buf(),
            kind,
            entries,
            size_bytes,
            source,
        })
    }

    /// One module of a JDK run-time image, as an archive of its own: only the
    /// entries under `/<module>/`, named without that prefix
    /// (`java/lang/Object.class`), so that a weave writes them as a
    /// `--patch-module` jar holds them. The archive's path becomes
    /// `<image path>/<module>` (for messages and output names). An error if
    /// this is no image or the module is not in it.
    pub fn module(self, module: &str) -> Result<Archive, ArchiveError> {
        let mut one = self.modules(&[module])?;
        Ok(one.pop().expect("one archive per module"))
    }

    /// Several modules of a JDK run-time image, each as [`module`](Self::module)
    /// makes it, in the order given; the image is read once.
    pub fn modules(self, modules: &[&str]) -> Result<Vec<Archive>, ArchiveError> {
        let Source::JImage(image) = &self.source else {
            return Err(ArchiveError::corrupt(
                &self.path,
                None,
                format!(
                    "only a JDK run-time image (lib/modules) has modules to select ({})",
                    modules.join(", ")
                ),
            ));
        };
        // The entries of each module lie together: the names are sorted.
        let mut spans: HashMap<&str, (usize, usize)> = HashMap::new();
        for (i, e) in self.entries.iter().enumerate() {
            let Some(m) = e.name.strip_prefix('/').and_then(|n| n.split('/').next()) else {
                continue;
            };
            let span = spans.entry(m).or_insert((i, i));
            span.1 = i + 1;
        }
        let mut out = Vec::with_capacity(modules.len());
        for &module in modules {
            let prefix = format!("/{module}/");
            let (from, to) = spans.get(module).copied().unwrap_or((0, 0));
            let mut entries = Vec::new();
            let mut keep = Vec::new();
            for (i, e) in self.entries[from..to].iter().enumerate() {
                if let Some(rest) = e.name.strip_prefix(&prefix) {
                    keep.push(from + i);
                    entries.push(Entry::new(
                        rest.to_string(),
                        e.is_dir,
                        e.size,
                        ArchiveKind::Directory,
                    ));
                }
            }
            if entries.is_empty() {
                return Err(ArchiveError::NoSuchModule {
                    path: self.path.clone(),
                    module: module.to_string(),
                    available: self.image_modules().join(", "),
                });
            }
            let size_bytes = entries.iter().map(|e| e.size).sum();
            out.push(Archive {
                path: self.path.join(module),
                kind: ArchiveKind::JImage,
                entries,
                size_bytes,
                source: Source::JImage(image.select(&keep)),
            });
        }
        Ok(out)
    }

    /// The modules of a JDK run-time image (`lib/modules`) that hold at
    /// least one class, in name order; empty for any other archive.
    pub fn image_modules(&self) -> Vec<String> {
        if !matches!(self.source, Source::JImage(_)) {
            return Vec::new();
        }
        let mut modules: Vec<String> = self
            .entries
            .iter()
            .filter(|e| !e.is_dir && e.name.ends_with(".class"))
            .filter_map(|e| e.name.strip_prefix('/')?.split('/').next())
            .filter(|m| !m.is_empty() && !jimage::is_index_module(m))
            .map(str::to_string)
            .collect();
        modules.sort_unstable();
        modules.dedup();
        modules
    }

    /// What kind of container this is.
    pub fn kind(&self) -> ArchiveKind {
        self.kind
    }

    /// The path the archive was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The entries: for a zip or jmod in central-directory order, for a
    /// directory or jimage sorted by name (byte order). Names are unique.
    /// A directory lists only its files (following symbolic links), no
    /// directory entries.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The index of the entry called `name`, if there is one.
    pub fn find(&self, name: &str) -> Option<usize> {
        match &self.source {
            Source::Zip(zip) => zip.index_for_name(name, &self.entries),
            Source::Directory(_) | Source::JImage(_) => self
                .entries
                .binary_search_by(|e| e.name.as_str().cmp(name))
                .ok(),
        }
    }

    /// The contents of entry `index`, decompressed and checked (zip: CRC-32
    /// and size; jimage: size). Returned borrowed from the memory mapping
    /// when the entry is stored uncompressed, owned otherwise. A directory
    /// entry reads as empty (zip) or as its index data (jimage).
    ///
    /// Damaged contents give [`ArchiveError::Corrupt`] naming the entry.
    pub fn read(&self, index: usize) -> Result<Cow<'_, [u8]>, ArchiveError> {
        let entry = self.entry(index)?;
        match &self.source {
            Source::Zip(zip) => zip.read(&self.path, index, entry),
            Source::Directory(_) => dir_input::read(&self.path, entry),
            Source::JImage(image) => image.read(&self.path, index, entry),
        }
    }

    /// For a directory's entry `index`: the metadata its file had when the
    /// directory was listed (`None` for other archives, or where the
    /// platform does not tell a change by it).
    pub fn file_meta(&self, index: usize) -> Option<FileMeta> {
        match &self.source {
            Source::Directory(metas) => metas.get(index).copied().flatten(),
            _ => None,
        }
    }

    /// For a zip or jmod entry: its CRC-32 and its compressed and
    /// uncompressed sizes, as the central directory declares them (nothing
    /// is read from the entry itself). `None` for other archives. An
    /// incremental weave tells an unchanged entry by them without inflating
    /// it.
    pub fn zip_digest(&self, index: usize) -> Option<(u32, u64, u64)> {
        match &self.source {
            Source::Zip(zip) => {
                let r = zip.record(index)?;
                Some((r.crc, r.compressed, r.size))
            }
            _ => None,
        }
    }

    /// Whether this is a multi-release jar: a zip or directory whose
    /// `META-INF/MANIFEST.MF` says `Multi-Release: true`. Only then does a JDK
    /// load the classes under `META-INF/versions/N/`.
    pub fn is_multi_release(&self) -> bool {
        if !matches!(self.kind, ArchiveKind::Zip | ArchiveKind::Directory) {
            return false;
        }
        self.find("META-INF/MANIFEST.MF")
            .and_then(|i| self.read(i).ok())
            .is_some_and(|m| manifest_is_multi_release(&m))
    }

    /// The size of the input on disk: the file size, or for a directory the
    /// sum of the sizes of its files.
    pub fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    /// Entry `index`, or a typed error.
    fn entry(&self, index: usize) -> Result<&Entry, ArchiveError> {
        self.entries
            .get(index)
            .ok_or_else(|| ArchiveError::NoSuchEntry {
                path: self.path.clone(),
                index,
                count: self.entries.len(),
            })
    }
}

/// Recognises the kind of a mapped file.
fn detect(path: &Path, data: &[u8]) -> Result<ArchiveKind, ArchiveError> {
    if data.get(..4) == Some(&JMOD_MAGIC[..]) {
        return Ok(ArchiveKind::Jmod);
    }
    if jimage::has_magic(data) {
        return Ok(ArchiveKind::JImage);
    }
    if data.starts_with(b"PK") {
        return Ok(ArchiveKind::Zip);
    }
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("jar" | "zip" | "war" | "ear") => Ok(ArchiveKind::Zip),
        Some("jmod") => Ok(ArchiveKind::Jmod),
        _ if path.file_name().is_some_and(|n| n == "modules") => Ok(ArchiveKind::JImage),
        _ => Err(ArchiveError::unsupported(
            path,
            None,
            "unrecognised input: expected a jar or zip, a .jmod, a directory or a JDK `lib/modules` image",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_is_send_sync() {
        fn check<T: Send + Sync>() {}
        check::<Archive>();
        check::<RuntimeImage>();
        check::<Entry>();
        check::<OutputArchive>();
    }

    #[test]
    fn class_names_per_kind() {
        let e = Entry::new("a/B.class".into(), false, 1, ArchiveKind::Zip);
        assert_eq!(e.class_name(), Some("a/B"));
        let e = Entry::new("a/B.class".into(), true, 1, ArchiveKind::Zip);
        assert_eq!(e.class_name(), None);
        let e = Entry::new("a/B.txt".into(), false, 1, ArchiveKind::Directory);
        assert_eq!(e.class_name(), None);
        let e = Entry::new(".class".into(), false, 1, ArchiveKind::Zip);
        assert_eq!(e.class_name(), None);
        let e = Entry::new(
            "classes/java/lang/Object.class".into(),
            false,
            1,
            ArchiveKind::Jmod,
        );
        assert_eq!(e.class_name(), Some("java/lang/Object"));
        let e = Entry::new(
            "classes/module-info.class".into(),
            false,
            1,
            ArchiveKind::Jmod,
        );
        assert_eq!(e.class_name(), Some("module-info"));
        let e = Entry::new("lib/x.class".into(), false, 1, ArchiveKind::Jmod);
        assert_eq!(e.class_name(), None);
        let e = Entry::new(
            "/java.base/java/lang/Object.class".into(),
            false,
            1,
            ArchiveKind::JImage,
        );
        assert_eq!(e.class_name(), Some("java/lang/Object"));
        let e = Entry::new(
            "/java.base/module-info.class".into(),
            false,
            1,
            ArchiveKind::JImage,
        );
        assert_eq!(e.class_name(), Some("module-info"));
        let e = Entry::new("/modules/a.class".into(), false, 1, ArchiveKind::JImage);
        assert_eq!(e.class_name(), None);
        let e = Entry::new("/x.class".into(), false, 1, ArchiveKind::JImage);
        assert_eq!(e.class_name(), None);
    }

    #[test]
    fn versioned_classes_and_the_multi_release_attribute() {
        let e = Entry::new(
            "META-INF/versions/17/a/B.class".into(),
            false,
            1,
            ArchiveKind::Zip,
        );
        assert_eq!(e.versioned_class(), Some((17, "a/B")));
        for name in [
            "a/B.class",
            "META-INF/versions/8/a/B.class",
            "META-INF/versions/x/a/B.class",
            "META-INF/versions/+11/a/B.class",
            "META-INF/versions/11/",
        ] {
            let e = Entry::new(name.into(), false, 1, ArchiveKind::Zip);
            assert_eq!(e.versioned_class(), None, "{name}");
        }
        assert!(manifest_is_multi_release(
            b"Manifest-Version: 1.0\r\nmulti-release: TRUE\r\n\r\n"
        ));
        assert!(!manifest_is_multi_release(
            b"Manifest-Version: 1.0\n\nName: x\nMulti-Release: true\n"
        ));
        assert!(!manifest_is_multi_release(b"Multi-Release: false\n"));
    }

    #[test]
    fn unknown_file_is_unsupported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, b"hello").unwrap();
        let err = Archive::open(&path).unwrap_err();
        assert!(matches!(err, ArchiveError::Unsupported { .. }), "{err}");
        let err = Archive::open(&dir.path().join("missing.jar")).unwrap_err();
        assert!(matches!(err, ArchiveError::Io { .. }), "{err}");
    }

    #[test]
    fn empty_jar_is_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty.jar");
        std::fs::write(&path, b"").unwrap();
        let err = Archive::open(&path).unwrap_err();
        assert!(matches!(err, ArchiveError::Corrupt { .. }), "{err}");
        assert!(err.to_string().contains("empty.jar"), "{err}");
    }
}
