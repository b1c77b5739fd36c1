//! Directory inputs: a tree of class files (and resources).

use std::borrow::Cow;
use std::path::Path;

use crate::{ArchiveError, ArchiveKind, Entry, FileMeta};

/// Lists the regular files under `root` (following symbolic links), named by
/// their path relative to `root` with `/` separators, sorted by name.
/// Returns the entries, the metadata of each (read for its size anyway: an
/// incremental weave tells an unchanged file by it without looking again),
/// and the sum of their sizes.
///
/// Each directory is read once, and a file's size is looked up by its name
/// in the directory being read (`DirEntry::metadata`: `statx` relative to
/// the open directory), not by its full path: resolving each path again,
/// component by component, was most of the cost of listing a class
/// directory of a few thousand files. Only a symbolic link is looked up by
/// its path, to follow it; a link to a directory that holds it (a loop) is
/// an error.
pub(crate) fn open(root: &Path) -> Result<Listing, ArchiveError> {
    let mut walk = Walk {
        root,
        entries: Vec::new(),
        total: 0,
        ancestors: Vec::new(),
    };
    let top = std::fs::metadata(root).map_err(|e| ArchiveError::io(root, None, e))?;
    walk.dir(root, "", &top)?;
    let Walk {
        mut entries, total, ..
    } = walk;
    entries.sort_unstable_by(|a, b| a.0.name.cmp(&b.0.name));
    let (entries, metas) = entries.into_iter().unzip();
    Ok((entries, metas, total))
}

/// A directory's files, the metadata of each, and the sum of their sizes.
pub(crate) type Listing = (Vec<Entry>, Vec<Option<FileMeta>>, u64);

/// A listing in progress.
struct Walk<'a> {
    root: &'a Path,
    entries: Vec<(Entry, Option<FileMeta>)>,
    total: u64,
    /// The directories being read, outermost first.
    ancestors: Vec<DirId>,
}

/// What tells a directory from every other one: its device and inode.
#[cfg(unix)]
type DirId = (u64, u64);
/// What tells a directory from every other one: its canonical path.
#[cfg(not(unix))]
type DirId = std::path::PathBuf;

/// The [`DirId`] of directory `path`, of metadata `meta`.
#[cfg(unix)]
fn dir_id(_path: &Path, meta: &std::fs::Metadata) -> DirId {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

/// The [`DirId`] of directory `path`, of metadata `meta`.
#[cfg(not(unix))]
fn dir_id(path: &Path, _meta: &std::fs::Metadata) -> DirId {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

impl Walk<'_> {
    /// Lists directory `path`, whose entries are named `prefix` + `/` +
    /// their name (`prefix` empty at the root); `meta` is its metadata.
    fn dir(
        &mut self,
        path: &Path,
        prefix: &str,
        meta: &std::fs::Metadata,
    ) -> Result<(), ArchiveError> {
        let err = |name: &str, e: std::io::Error| {
            ArchiveError::io(self.root, (!name.is_empty()).then_some(name), e)
        };
        let id = dir_id(path, meta);
        if self.ancestors.contains(&id) {
            return Err(err(prefix, std::io::Error::other("file system loop")));
        }
        self.ancestors.push(id);
        for item in std::fs::read_dir(path).map_err(|e| err(prefix, e))? {
            let item = item.map_err(|e| err(prefix, e))?;
            let file_name = item.file_name();
            let name = match file_name.to_str() {
                Some(n) if prefix.is_empty() => n.to_string(),
                Some(n) => format!("{prefix}/{n}"),
                None => {
                    let lossy = file_name.to_string_lossy();
                    let name = match prefix {
                        "" => lossy.into_owned(),
                        p => format!("{p}/{lossy}"),
                    };
                    return Err(ArchiveError::unsupported(
                        self.root,
                        Some(&name),
                        "a file name that is not valid UTF-8",
                    ));
                }
            };
            let kind = item.file_type().map_err(|e| err(&name, e))?;
            // A link is followed: what it points to decides.
            let meta = if kind.is_symlink() {
                Some(std::fs::metadata(item.path()).map_err(|e| err(&name, e))?)
            } else {
                None
            };
            let kind = meta.as_ref().map_or(kind, std::fs::Metadata::file_type);
            if kind.is_dir() {
                let meta = match meta {
                    Some(m) => m,
                    None => item.metadata().map_err(|e| err(&name, e))?,
                };
                self.dir(&item.path(), &name, &meta)?;
            } else if kind.is_file() {
                if name == crate::DIR_MANIFEST {
                    continue;
                }
                let meta = match meta {
                    Some(m) => m,
                    None => item.metadata().map_err(|e| err(&name, e))?,
                };
                let size = meta.len();
                self.total = self.total.saturating_add(size);
                self.entries.push((
                    Entry::new(name, false, size, ArchiveKind::Directory),
                    FileMeta::of(&meta),
                ));
            }
        }
        self.ancestors.pop();
        Ok(())
    }
}

/// Reads entry `entry` of the directory `root`; a class file larger than
/// [`MAX_CLASS_SIZE`](crate::MAX_CLASS_SIZE) is refused unread.
pub(crate) fn read<'a>(root: &Path, entry: &Entry) -> Result<Cow<'a, [u8]>, ArchiveError> {
    let path = root.join(&entry.name);
    if entry.class_name().is_some() {
        let size = std::fs::metadata(&path)
            .map_err(|e| ArchiveError::io(root, Some(&entry.name), e))?
            .len();
        if size > crate::MAX_CLASS_SIZE {
            return Err(ArchiveError::corrupt(
                root,
                Some(&entry.name),
                format!(
                    "a class file of {size} bytes: larger than the {} MiB major reads",
                    crate::MAX_CLASS_SIZE >> 20
                ),
            ));
        }
    }
    std::fs::read(path)
        .map(Cow::Owned)
        .map_err(|e| ArchiveError::io(root, Some(&entry.name), e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Archive;

    #[test]
    fn lists_sorted_relative_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("classes");
        std::fs::create_dir_all(root.join("b/c")).unwrap();
        std::fs::create_dir_all(root.join("empty")).unwrap();
        std::fs::write(root.join("b/c/D.class"), b"\xCA\xFE\xBA\xBE").unwrap();
        std::fs::write(root.join("b/A.class"), b"a").unwrap();
        std::fs::write(root.join("Z.txt"), b"zz").unwrap();
        std::fs::write(root.join("module-info.class"), b"m").unwrap();
        let archive = Archive::open(&root).unwrap();
        assert_eq!(archive.kind(), crate::ArchiveKind::Directory);
        let names: Vec<_> = archive.entries().iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            ["Z.txt", "b/A.class", "b/c/D.class", "module-info.class"]
        );
        let classes: Vec<_> = archive.entries().iter().map(Entry::class_name).collect();
        assert_eq!(
            classes,
            [None, Some("b/A"), Some("b/c/D"), Some("module-info")]
        );
        assert_eq!(archive.size_bytes(), 4 + 1 + 2 + 1);
        assert_eq!(archive.entries()[2].size, 4);
        assert_eq!(&*archive.read(2).unwrap(), b"\xCA\xFE\xBA\xBE");
        assert_eq!(archive.find("b/A.class"), Some(1));

        // A class file over the cap (sparse: nothing is written).
        let huge = std::fs::File::create(root.join("b/A.class")).unwrap();
        huge.set_len(crate::MAX_CLASS_SIZE + 1).unwrap();
        let err = archive.read(1).unwrap_err();
        assert_eq!(err.entry(), Some("b/A.class"));
        assert!(err.to_string().contains("larger than the 256 MiB"), "{err}");

        std::fs::remove_file(root.join("Z.txt")).unwrap();
        let err = archive.read(0).unwrap_err();
        assert!(
            matches!(&err, ArchiveError::Io { entry: Some(e), .. } if e == "Z.txt"),
            "{err}"
        );
    }

    /// Links are followed (to files and to directories), a link that loops
    /// back is an error naming it, and the manifest of a woven directory
    /// is left out at the top only.
    #[cfg(unix)]
    #[test]
    fn follows_links_refuses_loops_and_skips_the_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("classes");
        let other = dir.path().join("other");
        std::fs::create_dir_all(root.join("p")).unwrap();
        std::fs::create_dir_all(other.join("q")).unwrap();
        std::fs::write(root.join("p/A.class"), b"aa").unwrap();
        std::fs::write(other.join("q/B.class"), b"bbb").unwrap();
        std::fs::write(other.join("R.txt"), b"r").unwrap();
        std::fs::write(root.join(crate::DIR_MANIFEST), b"m").unwrap();
        std::fs::write(root.join("p").join(crate::DIR_MANIFEST), b"n").unwrap();
        std::os::unix::fs::symlink(&other, root.join("linked")).unwrap();
        std::os::unix::fs::symlink(other.join("R.txt"), root.join("p/R.txt")).unwrap();
        let (entries, metas, total) = open(&root).unwrap();
        let names: Vec<_> = entries.iter().map(|e| e.name.as_str()).collect();
        // Each file's metadata is its own (a link's: its target's), in the
        // entries' order.
        assert_eq!(metas.len(), entries.len());
        for (e, m) in entries.iter().zip(&metas) {
            let want = FileMeta::of(&std::fs::metadata(root.join(&e.name)).unwrap());
            assert_eq!(*m, want, "{}", e.name);
        }
        let manifest = format!("p/{}", crate::DIR_MANIFEST);
        assert_eq!(
            names,
            [
                "linked/R.txt",
                "linked/q/B.class",
                manifest.as_str(),
                "p/A.class",
                "p/R.txt"
            ]
        );
        assert_eq!(total, 1 + 3 + 1 + 2 + 1);
        assert_eq!(entries[4].size, 1, "a link's size is its target's");
        // A link to a directory above it.
        std::os::unix::fs::symlink(&root, root.join("p/up")).unwrap();
        let err = open(&root).unwrap_err();
        assert!(
            matches!(&err, ArchiveError::Io { entry: Some(e), .. } if e == "p/up"),
            "{err}"
        );
        std::fs::remove_file(root.join("p/up")).unwrap();
        // A dangling link is an error naming it.
        std::os::unix::fs::symlink(dir.path().join("gone"), root.join("p/gone")).unwrap();
        let err = open(&root).unwrap_err();
        assert!(
            matches!(&err, ArchiveError::Io { entry: Some(e), .. } if e == "p/gone"),
            "{err}"
        );
        std::fs::remove_file(root.join("p/gone")).unwrap();
        // A name that is not UTF-8.
        use std::os::unix::ffi::OsStrExt;
        let bad = std::ffi::OsStr::from_bytes(b"p/\xff.class");
        std::fs::write(root.join(bad), b"x").unwrap();
        let err = open(&root).unwrap_err();
        assert!(err.to_string().contains("not valid UTF-8"), "{err}");
    }
}
