//! Errors of the `major` command, with where they happened.

use std::path::PathBuf;

use major_archive::ArchiveError;

/// An error tied to one archive entry.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum MajorError {
    /// The archive itself could not be read or written.
    #[error(transparent)]
    #[diagnostic(code(major::archive))]
    Archive(#[from] ArchiveError),
    /// A class in an archive could not be processed.
    #[error("{archive}!{entry}: {source}")]
    #[diagnostic(code(major::class))]
    Class {
        /// The archive.
        archive: PathBuf,
        /// The entry inside it.
        entry: String,
        /// What the class-file engine reported (names class, method, offset).
        #[source]
        source: major_classfile::Error,
    },
    /// The aspects did not parse or check.
    #[error("the aspects have errors:\n{0}")]
    #[diagnostic(code(major::aspects))]
    Aspects(String),
    /// The aspects did not compile.
    #[error(transparent)]
    #[diagnostic(transparent)]
    AspectCompile(Box<crate::aspects::compile::AspectCompileError>),
    /// Anything else, with a message.
    #[error("{0}")]
    #[diagnostic(code(major::usage))]
    Usage(String),
}

impl MajorError {
    /// A class error for `entry` of `archive`.
    pub fn class(archive: &std::path::Path, entry: &str, source: major_classfile::Error) -> Self {
        MajorError::Class {
            archive: archive.to_path_buf(),
            entry: entry.to_string(),
            source,
        }
    }
}
