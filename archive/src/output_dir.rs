//! A directory of outputs that appears whole or not at all.
//!
//! A run that writes several related outputs (a woven JDK: one patch jar per
//! module, the program's woven jars, the `java` options to run them) writes
//! them into a hidden sibling of the target directory and moves that into
//! place at the end, as [`OutputArchive`](crate::OutputArchive) does for one
//! output. The directory then holds the manifest
//! [`DIR_MANIFEST`](crate::DIR_MANIFEST) listing every file in it, so that a
//! later run may replace it (see [`check_replace`](crate::check_replace)).

use std::fs;
use std::path::{Path, PathBuf};

use crate::output::{
    move_dir_into_place, remove_any, remove_stale_siblings, sibling, write_dir_manifest,
};
use crate::ArchiveError;

/// A directory being written: files go under [`path`](Self::path); nothing
/// appears at the target before [`finish`](Self::finish), and a directory
/// dropped unfinished is removed.
#[derive(Debug)]
pub struct OutputDir {
    target: PathBuf,
    temp: PathBuf,
    done: bool,
}

impl OutputDir {
    /// Starts a directory that will end up at `target` (its parent is
    /// created if missing).
    pub fn create(target: &Path) -> Result<OutputDir, ArchiveError> {
        let io_error = |e| ArchiveError::io(target, None, e);
        let temp = sibling(target, "tmp").ok_or_else(|| {
            io_error(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "the output path has no file name",
            ))
        })?;
        if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(io_error)?;
        }
        remove_stale_siblings(target);
        if fs::symlink_metadata(&temp).is_ok() {
            remove_any(&temp).map_err(io_error)?;
        }
        fs::create_dir(&temp).map_err(io_error)?;
        Ok(OutputDir {
            target: target.to_path_buf(),
            temp,
            done: false,
        })
    }

    /// Where the files go while the directory is written.
    pub fn path(&self) -> &Path {
        &self.temp
    }

    /// Where the directory ends up.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Lists every file written in the manifest and moves the directory into
    /// place, replacing whatever is at the target (the caller checked with
    /// [`check_replace`](crate::check_replace) that it may).
    pub fn finish(mut self) -> Result<(), ArchiveError> {
        let io_error = |e| ArchiveError::io(&self.target, None, e);
        let mut files = Vec::new();
        for item in walkdir::WalkDir::new(&self.temp).min_depth(1) {
            let item = item.map_err(|e| io_error(e.into()))?;
            if item.file_type().is_dir() {
                continue;
            }
            let relative = item.path().strip_prefix(&self.temp).unwrap_or(item.path());
            files.push(
                relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/"),
            );
        }
        write_dir_manifest(&self.temp, files.iter().map(String::as_str)).map_err(io_error)?;
        move_dir_into_place(&self.temp, &self.target).map_err(io_error)?;
        self.done = true;
        Ok(())
    }
}

impl Drop for OutputDir {
    fn drop(&mut self) {
        if !self.done {
            let _ = remove_any(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appears_whole_on_finish_and_not_at_all_when_dropped() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("woven");
        let out = OutputDir::create(&target).unwrap();
        fs::create_dir(out.path().join("sub")).unwrap();
        fs::write(out.path().join("sub/a.txt"), b"a").unwrap();
        assert!(!target.exists());
        out.finish().unwrap();
        assert_eq!(fs::read(target.join("sub/a.txt")).unwrap(), b"a");
        let manifest = fs::read_to_string(target.join(crate::DIR_MANIFEST)).unwrap();
        assert!(manifest.lines().any(|l| l == "sub/a.txt"), "{manifest}");
        // What major wrote may be replaced; a dropped run leaves it as it was.
        crate::check_replace(std::slice::from_ref(&target), &[], false).unwrap();
        let again = OutputDir::create(&target).unwrap();
        fs::write(again.path().join("b.txt"), b"b").unwrap();
        drop(again);
        assert!(target.join("sub/a.txt").exists() && !target.join("b.txt").exists());
        let leftovers = fs::read_dir(d.path()).unwrap().count();
        assert_eq!(leftovers, 1, "only the finished directory remains");
        // Replacing swaps the whole directory.
        let third = OutputDir::create(&target).unwrap();
        fs::write(third.path().join("c.txt"), b"c").unwrap();
        third.finish().unwrap();
        assert!(target.join("c.txt").exists() && !target.join("sub").exists());
    }
}
