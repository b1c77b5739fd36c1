//! The error type of this crate.

use std::path::{Path, PathBuf};

/// Everything that can go wrong while reading an input or writing an output.
///
/// Every variant names the archive (or output) path, and the entry when one
/// is involved, so that the message alone tells the user where to look.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ArchiveError {
    /// The operating system refused an operation (open, map, read, write,
    /// rename, ...).
    #[error("{}{}: {source}", path.display(), entry_suffix(entry.as_deref()))]
    Io {
        /// The archive, output or file the operation was about.
        path: PathBuf,
        /// The entry being read or written, if any.
        entry: Option<String>,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },

    /// The input is damaged: a truncated or inconsistent zip, a CRC mismatch,
    /// a broken deflate stream, a jimage whose tables point outside the file...
    #[error("{}{}: corrupt archive: {detail}", path.display(), entry_suffix(entry.as_deref()))]
    Corrupt {
        /// The archive.
        path: PathBuf,
        /// The damaged entry, when the damage is confined to one.
        entry: Option<String>,
        /// What is wrong, for a human.
        detail: String,
    },

    /// The input is well formed but uses a feature this crate does not
    /// implement (an encrypted zip entry, an unknown compression method, a
    /// jimage resource compressed by a plugin other than `zip`...).
    #[error("{}{}: unsupported: {what}", path.display(), entry_suffix(entry.as_deref()))]
    Unsupported {
        /// The archive.
        path: PathBuf,
        /// The entry using the feature, if the feature is per entry.
        entry: Option<String>,
        /// The feature.
        what: String,
    },

    /// A module asked of a JDK run-time image that the image does not hold.
    #[error("{}: no module `{module}` in this image (it holds {available})", path.display())]
    NoSuchModule {
        /// The image.
        path: PathBuf,
        /// The module asked for.
        module: String,
        /// The modules the image holds, comma-separated.
        available: String,
    },

    /// An entry name cannot be written to an output: empty, absolute, or with
    /// an empty, `.` or `..` component (which could escape a directory
    /// output), a backslash or a NUL.
    #[error("{}: cannot write entry `{entry}`: {reason}", path.display())]
    InvalidName {
        /// The output.
        path: PathBuf,
        /// The rejected name.
        entry: String,
        /// Why it was rejected.
        reason: &'static str,
    },

    /// The same entry name was written twice to one output.
    #[error("{}: entry `{entry}` written twice", path.display())]
    Duplicate {
        /// The output.
        path: PathBuf,
        /// The name written twice.
        entry: String,
    },

    /// An output would replace something it must not: a file or directory
    /// major did not write, or an input of the run (see
    /// [`check_replace`](crate::check_replace)).
    #[error("{}: not replaced: {reason} (`--force` replaces it)", path.display())]
    Refused {
        /// The output path.
        path: PathBuf,
        /// Why it is kept.
        reason: String,
    },

    /// An entry index past the end of [`Archive::entries`](crate::Archive::entries).
    #[error("{}: no entry with index {index} (the archive has {count})", path.display())]
    NoSuchEntry {
        /// The archive.
        path: PathBuf,
        /// The index asked for.
        index: usize,
        /// How many entries the archive has.
        count: usize,
    },
}

impl ArchiveError {
    /// The archive or output path the error is about.
    pub fn path(&self) -> &Path {
        match self {
            ArchiveError::Io { path, .. }
            | ArchiveError::Corrupt { path, .. }
            | ArchiveError::Unsupported { path, .. }
            | ArchiveError::InvalidName { path, .. }
            | ArchiveError::Duplicate { path, .. }
            | ArchiveError::Refused { path, .. }
            | ArchiveError::NoSuchEntry { path, .. }
            | ArchiveError::NoSuchModule { path, .. } => path,
        }
    }

    /// The entry the error is about, if any.
    pub fn entry(&self) -> Option<&str> {
        match self {
            ArchiveError::Io { entry, .. }
            | ArchiveError::Corrupt { entry, .. }
            | ArchiveError::Unsupported { entry, .. } => entry.as_deref(),
            ArchiveError::InvalidName { entry, .. } | ArchiveError::Duplicate { entry, .. } => {
                Some(entry)
            }
            ArchiveError::NoSuchEntry { .. }
            | ArchiveError::NoSuchModule { .. }
            | ArchiveError::Refused { .. } => None,
        }
    }

    pub(crate) fn io(path: &Path, entry: Option<&str>, source: std::io::Error) -> Self {
        ArchiveError::Io {
            path: path.to_path_buf(),
            entry: entry.map(str::to_owned),
            source,
        }
    }

    pub(crate) fn corrupt(path: &Path, entry: Option<&str>, detail: impl Into<String>) -> Self {
        ArchiveError::Corrupt {
            path: path.to_path_buf(),
            entry: entry.map(str::to_owned),
            detail: detail.into(),
        }
    }

    pub(crate) fn unsupported(path: &Path, entry: Option<&str>, what: impl Into<String>) -> Self {
        ArchiveError::Unsupported {
            path: path.to_path_buf(),
            entry: entry.map(str::to_owned),
            what: what.into(),
        }
    }
}

fn entry_suffix(entry: Option<&str>) -> String {
    match entry {
        Some(name) => format!(" (entry `{name}`)"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_send_sync_static() {
        fn check<T: Send + Sync + 'static + std::error::Error>() {}
        check::<ArchiveError>();
    }

    #[test]
    fn display_names_path_and_entry() {
        let e = ArchiveError::corrupt(Path::new("a.jar"), Some("x/Y.class"), "bad CRC");
        assert_eq!(
            e.to_string(),
            "a.jar (entry `x/Y.class`): corrupt archive: bad CRC"
        );
        assert_eq!(e.entry(), Some("x/Y.class"));
        assert_eq!(e.path(), Path::new("a.jar"));
        let e = ArchiveError::unsupported(Path::new("m"), None, "thing");
        assert_eq!(e.to_string(), "m: unsupported: thing");
    }
}
