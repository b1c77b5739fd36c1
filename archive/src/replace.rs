//! What an output may replace.
//!
//! An output is written beside its target and renamed over it, so whatever
//! was at the target is gone afterwards. [`check_replace`] decides, before a
//! run writes anything, whether each path about to be replaced may be:
//!
//! * a path that does not exist, or an empty directory: yes;
//! * a file or directory that major wrote itself: yes. A zip major writes
//!   ends with the archive comment [`ZIP_MARKER`]; a directory major writes
//!   holds a manifest, [`DIR_MANIFEST`], listing every file it wrote, and is
//!   replaceable only while it holds no other file;
//! * anything else (a text file, a jar from elsewhere, a directory with files
//!   major did not write, a symbolic link...): no;
//! * a path that is one of the inputs, lies inside an input directory, or is
//!   a directory holding an input: no.
//!
//! `force` allows every replacement. The check takes any number of targets,
//! so that a run writing one output per input asks once for all of them.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

use crate::ArchiveError;

/// The archive comment of every zip major writes: how a later run knows that
/// it may replace the file.
pub const ZIP_MARKER: &[u8] = b"written by major";

/// The manifest major writes at the root of a directory output: a header
/// line, then the `/`-separated name of every file written, one a line. A
/// later run may replace the directory only while it holds no other file.
/// Directory inputs do not list it as an entry.
pub const DIR_MANIFEST: &str = ".major-output";

/// The first line of [`DIR_MANIFEST`].
pub(crate) const MANIFEST_HEADER: &str = "# files written by major; the next major run may replace this directory while it holds no other file";

/// Checks that writing each of `targets` may replace what is there (see the
/// module documentation), given the `inputs` of the run. With `force`,
/// everything may be replaced. The error names the target and why it is
/// refused.
pub fn check_replace(
    targets: &[PathBuf],
    inputs: &[PathBuf],
    force: bool,
) -> Result<(), ArchiveError> {
    if force {
        return Ok(());
    }
    let inputs: Vec<PathBuf> = inputs.iter().map(|p| resolved(p)).collect();
    for target in targets {
        let at = resolved(target);
        for input in &inputs {
            let reason = if at == *input {
                Some("it is also an input of this run".to_string())
            } else if input.starts_with(&at) {
                Some(format!(
                    "it holds {}, an input of this run",
                    input.display()
                ))
            } else if at.starts_with(input) {
                Some(format!(
                    "it lies inside {}, an input of this run",
                    input.display()
                ))
            } else {
                None
            };
            if let Some(reason) = reason {
                return Err(refused(target, reason));
            }
        }
        if let Some(reason) = foreign(target) {
            return Err(refused(target, reason));
        }
    }
    Ok(())
}

fn refused(target: &Path, reason: String) -> ArchiveError {
    ArchiveError::Refused {
        path: target.to_path_buf(),
        reason,
    }
}

/// `path` made absolute with symbolic links resolved as far as it exists
/// (a missing tail is appended as it is, without `.` components).
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    if let Ok(p) = fs::canonicalize(&absolute) {
        return p;
    }
    // Resolve the longest existing prefix, then add the rest lexically.
    let mut tail = Vec::new();
    let mut head = absolute.as_path();
    while let Some(parent) = head.parent() {
        tail.push(head.file_name().map(PathBuf::from).unwrap_or_default());
        head = parent;
        if let Ok(mut p) = fs::canonicalize(head) {
            for part in tail.iter().rev() {
                for c in part.components() {
                    match c {
                        Component::ParentDir => {
                            p.pop();
                        }
                        Component::Normal(n) => p.push(n),
                        _ => {}
                    }
                }
            }
            return p;
        }
    }
    absolute
}

/// Why `target` may not be replaced, or `None` if it may: it does not
/// exist, or major wrote it.
fn foreign(target: &Path) -> Option<String> {
    let meta = match fs::symlink_metadata(target) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
        Err(e) => return Some(format!("cannot look at it: {e}")),
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        return Some("it is a symbolic link, not an output major wrote".into());
    }
    if kind.is_file() {
        return match zip_marked(target) {
            Ok(true) => None,
            Ok(false) => Some("it is a file major did not write".into()),
            Err(e) => Some(format!("cannot read it: {e}")),
        };
    }
    if !kind.is_dir() {
        return Some("it is not a regular file or directory".into());
    }
    let manifest = fs::read_to_string(target.join(DIR_MANIFEST)).unwrap_or_default();
    // The names listed, borrowed from the manifest (none if it is not one).
    let listed: rustc_hash::FxHashSet<&str> = match manifest.lines().next() {
        Some(MANIFEST_HEADER) => manifest.lines().skip(1).collect(),
        _ => Default::default(),
    };
    for item in walkdir::WalkDir::new(target).min_depth(1) {
        let item = match item {
            Ok(i) => i,
            Err(e) => return Some(format!("cannot list it: {e}")),
        };
        if item.file_type().is_dir() {
            continue;
        }
        let relative = item.path().strip_prefix(target).unwrap_or(item.path());
        // The `/`-separated name: the relative path itself where that is
        // what it is (no copy per file), else built from its components.
        let name: std::borrow::Cow<'_, str> = match relative.to_str() {
            Some(s) if std::path::MAIN_SEPARATOR == '/' => s.into(),
            _ => relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/")
                .into(),
        };
        if name == DIR_MANIFEST || listed.contains(&*name) {
            continue;
        }
        return Some(if listed.is_empty() {
            format!("it is a directory major did not write (it holds `{name}`)")
        } else {
            format!("it holds `{name}`, which major did not write")
        });
    }
    None
}

/// True when the file at `path` is a zip whose end record carries the
/// comment [`ZIP_MARKER`] (which ends the file).
fn zip_marked(path: &Path) -> io::Result<bool> {
    // The end of central directory record: signature, 16 bytes of fields,
    // the comment length, the comment.
    let tail_len = 22 + ZIP_MARKER.len() as u64;
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    if len < tail_len {
        return Ok(false);
    }
    file.seek(SeekFrom::Start(len - tail_len))?;
    let mut tail = vec![0; tail_len as usize];
    file.read_exact(&mut tail)?;
    let comment_len = (ZIP_MARKER.len() as u16).to_le_bytes();
    Ok(tail.starts_with(b"PK\x05\x06") && tail[20..22] == comment_len && tail[22..] == *ZIP_MARKER)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Archive, OutputArchive, OutputKind};

    fn refusal(targets: &[PathBuf], inputs: &[PathBuf]) -> Option<String> {
        let r = check_replace(targets, inputs, false)
            .err()
            .map(|e| e.to_string());
        assert!(check_replace(targets, inputs, true).is_ok());
        r
    }

    #[test]
    fn missing_empty_and_major_written_outputs_may_be_replaced() {
        let d = tempfile::tempdir().unwrap();
        let jar = d.path().join("out.jar");
        let dir = d.path().join("out");
        let empty = d.path().join("empty");
        fs::create_dir(&empty).unwrap();
        assert_eq!(refusal(&[jar.clone(), dir.clone(), empty], &[]), None);
        for (path, kind) in [(&jar, OutputKind::Zip), (&dir, OutputKind::Directory)] {
            let mut out = OutputArchive::create(path, kind).unwrap();
            out.write("p/A.class", b"\xCA\xFE\xBA\xBE").unwrap();
            out.finish().unwrap();
        }
        assert_eq!(refusal(&[jar.clone(), dir.clone()], &[]), None);
        // The manifest is no entry of the directory read as an input.
        let names: Vec<_> = Archive::open(&dir)
            .unwrap()
            .entries()
            .iter()
            .map(|e| e.name.clone())
            .collect();
        assert_eq!(names, ["p/A.class"]);
        // A file added by hand makes the directory the user's.
        fs::write(dir.join("p/notes.txt"), b"mine").unwrap();
        let why = refusal(std::slice::from_ref(&dir), &[]).unwrap();
        assert!(why.contains("p/notes.txt"), "{why}");
    }

    #[test]
    fn other_files_and_directories_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let text = d.path().join("notes.txt");
        fs::write(&text, b"notes").unwrap();
        let why = refusal(std::slice::from_ref(&text), &[]).unwrap();
        assert!(
            why.contains("notes.txt") && why.contains("did not write"),
            "{why}"
        );
        let full = d.path().join("full");
        fs::create_dir(&full).unwrap();
        fs::write(full.join("keep"), b"keep").unwrap();
        let why = refusal(&[full], &[]).unwrap();
        assert!(why.contains("`keep`"), "{why}");
        // A zip without the marker.
        let other = d.path().join("other.jar");
        let mut z = zip::ZipWriter::new(File::create(&other).unwrap());
        z.start_file("a", zip::write::SimpleFileOptions::default())
            .unwrap();
        z.finish().unwrap();
        assert!(refusal(&[other], &[]).is_some());
    }

    #[test]
    fn inputs_are_never_outputs() {
        let d = tempfile::tempdir().unwrap();
        let classes = d.path().join("classes");
        fs::create_dir(&classes).unwrap();
        // The same path, spelled differently.
        let same = d.path().join("classes/../classes/.");
        let why = refusal(&[same], std::slice::from_ref(&classes)).unwrap();
        assert!(why.contains("also an input"), "{why}");
        // The directory holding the input (`-o .`).
        let why = refusal(&[d.path().to_path_buf()], std::slice::from_ref(&classes)).unwrap();
        assert!(why.contains("holds"), "{why}");
        // An output inside the input.
        let why = refusal(&[classes.join("woven")], std::slice::from_ref(&classes)).unwrap();
        assert!(why.contains("inside"), "{why}");
        // A sibling is fine.
        assert_eq!(refusal(&[d.path().join("woven")], &[classes]), None);
    }
}
