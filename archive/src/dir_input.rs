//! Directory inputs: a tree of class files (and resources).

use std::borrow::Cow;
use std::path::Path;

use crate::{ArchiveError, ArchiveKind, Entry};

/// Lists the regular files under `root` (following symbolic links), named by
/// their path relative to `root` with `/` separators, sorted by name.
/// Returns the entries and the sum of their sizes.
pub(crate) fn open(root: &Path) -> Result<(Vec<Entry>, u64), ArchiveError> {
    let mut entries = Vec::new();
    let mut total = 0u64;
    for item in walkdir::WalkDir::new(root).follow_links(true) {
        let item = item.map_err(|e| walk_error(root, e))?;
        if !item.file_type().is_file() {
            continue;
        }
        let relative = item
            .path()
            .strip_prefix(root)
            .expect("walkdir yields paths under its root");
        // The manifest of a directory major wrote is its record, not content.
        if relative.as_os_str() == crate::DIR_MANIFEST {
            continue;
        }
        let name = relative_name(relative).ok_or_else(|| {
            ArchiveError::unsupported(
                root,
                Some(&relative.to_string_lossy()),
                "a file name that is not valid UTF-8",
            )
        })?;
        let size = item.metadata().map_err(|e| walk_error(root, e))?.len();
        total = total.saturating_add(size);
        entries.push(Entry::new(name, false, size, ArchiveKind::Directory));
    }
    entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
    Ok((entries, total))
}

/// `relative` with `/` separators, if every component is UTF-8.
fn relative_name(relative: &Path) -> Option<String> {
    let mut name = String::new();
    for component in relative.components() {
        if !name.is_empty() {
            name.push('/');
        }
        name.push_str(component.as_os_str().to_str()?);
    }
    Some(name)
}

/// Turns a walkdir error into ours, naming the file it is about.
fn walk_error(root: &Path, error: walkdir::Error) -> ArchiveError {
    let entry = error
        .path()
        .and_then(|p| p.strip_prefix(root).ok())
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| !p.is_empty());
    let source = match error.into_io_error() {
        Some(io) => io,
        // A symbolic-link loop.
        None => std::io::Error::other("file system loop"),
    };
    ArchiveError::io(root, entry.as_deref(), source)
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
}
