//! `major cache` (where the cache is and what it holds, by part) and `major
//! cache clear` (removes what major put there). The cache directory is
//! `--cache-dir`, else `major_weaver::aspects::cache::default_dir`
//! (`$MAJOR_CACHE_DIR`, `$XDG_CACHE_HOME/major`, `~/.cache/major`).
//!
//! Only the entries major writes are counted and removed: the aspects
//! compiled by javac (`<key>.classes`), the single-phase agent's cache of
//! woven classes (`woven-classes/`), the jars of the classes the weave adds
//! (`added-classes/`), the embedded agent extracted (`agent/`), the agent's
//! option files (`agent-options/`), the orders in which programs loaded
//! their classes (`load-order/`, for weaving ahead), the JDKs woven ahead for
//! `major run --aspect` (`woven-jdks/`), CDS archives (`*.jsa`),
//! runtime jars (`major-runtime-*.jar`, each with its digest in
//! `major-runtime-*.jar.blake3`), the binary's digest (`executable-digest-*`,
//! one per path of a major binary) and the file stamps of incremental weaves
//! (`incremental-*.stamps`). Anything else in the directory is named and
//! left alone, so a mistaken `--cache-dir` never removes a user's files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use major_weaver::report::MajorError;

/// What one kind of entry of the cache is, for the listing.
fn part_of(name: &str) -> Option<&'static str> {
    Some(match name {
        "woven-classes" => "woven classes (single-phase agent)",
        "added-classes" => "added classes (single-phase agent)",
        "agent" => "agent library extracted from major",
        "agent-options" => "agent option files",
        "load-order" => "class load orders (single-phase agent, weaving ahead)",
        "woven-jdks" => "JDKs woven ahead for `major run --aspect` (class-data sharing kept)",
        "CACHEDIR.TAG" => "the tag that marks the directory as a cache",
        // One per path of a major binary (and the name of earlier versions).
        _ if name.starts_with("executable-digest") => {
            "the digest of the major binary (incremental weaving)"
        }
        _ if name.starts_with("incremental-") && name.ends_with(".stamps") => {
            "file stamps of incremental weaves"
        }
        _ if name.ends_with(".classes") => "aspects compiled by javac",
        _ if name.ends_with(".jsa") => "class-data sharing archives",
        _ if name.starts_with("major-runtime-") => "runtime jars and their digests",
        // Temporary files of an interrupted write.
        _ if name.starts_with('.') => "temporary files",
        _ => return None,
    })
}

/// The bytes of the files under `path` (a file: its size), and their number.
fn size_of(path: &Path) -> (u64, u64) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return (0, 0);
    };
    if !meta.is_dir() {
        return (meta.len(), 1);
    }
    let mut total = (0, 0);
    for e in std::fs::read_dir(path).into_iter().flatten().flatten() {
        let (b, n) = size_of(&e.path());
        total.0 += b;
        total.1 += n;
    }
    total
}

/// The cache directory: `dir`, else the default.
fn cache_dir(dir: Option<PathBuf>) -> Result<PathBuf, MajorError> {
    dir.or_else(major_weaver::aspects::cache::default_dir)
        .ok_or_else(|| {
            MajorError::Usage(
                "no cache directory: set MAJOR_CACHE_DIR or HOME, or pass --cache-dir".into(),
            )
        })
}

/// The entries of `dir`, sorted; a missing directory has none.
fn entries(dir: &Path) -> Result<Vec<PathBuf>, MajorError> {
    let mut out: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(|e| MajorError::Usage(format!("{}: {e}", dir.display())))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(MajorError::Usage(format!("{}: {e}", dir.display()))),
    };
    out.sort();
    Ok(out)
}

/// `bytes` for people: KiB, MiB, GiB.
fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= (1u64 << 30) as f64 {
        format!("{:.1} GiB", b / (1u64 << 30) as f64)
    } else if b >= (1u64 << 20) as f64 {
        format!("{:.1} MiB", b / (1u64 << 20) as f64)
    } else {
        format!("{:.1} KiB", b / 1024.0)
    }
}

/// `major cache`: prints where the cache is and its size, by part.
pub fn show(dir: Option<PathBuf>) -> Result<ExitCode, MajorError> {
    let dir = cache_dir(dir)?;
    let mut parts: std::collections::BTreeMap<&str, (u64, u64)> = Default::default();
    let mut unknown = Vec::new();
    for p in entries(&dir)? {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        match name.as_deref().and_then(part_of) {
            Some(part) => {
                let (b, n) = size_of(&p);
                let e = parts.entry(part).or_default();
                e.0 += b;
                e.1 += n;
            }
            None => unknown.push(p),
        }
    }
    let total: u64 = parts.values().map(|(b, _)| b).sum();
    println!("{}: {}", dir.display(), human(total));
    for (part, (b, n)) in &parts {
        println!("  {part}: {} in {n} files", human(*b));
    }
    for p in &unknown {
        println!(
            "  not major's (left alone by `major cache clear`): {}",
            p.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `major cache clear`: removes every entry major wrote into the cache
/// directory and says how much was freed; other files are named and kept.
pub fn clear(dir: Option<PathBuf>) -> Result<ExitCode, MajorError> {
    let dir = cache_dir(dir)?;
    let (mut freed, mut removed, mut failed) = (0u64, 0usize, 0usize);
    for p in entries(&dir)? {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        if name.as_deref().and_then(part_of).is_none() {
            println!("left alone (not major's): {}", p.display());
            continue;
        }
        let (bytes, _) = size_of(&p);
        let gone = if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir()) {
            std::fs::remove_dir_all(&p)
        } else {
            std::fs::remove_file(&p)
        };
        match gone {
            Ok(()) => {
                freed += bytes;
                removed += 1;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                eprintln!("major cache clear: {}: {e}", p.display());
                failed += 1;
            }
        }
    }
    println!(
        "{}: removed {removed} entries, {} freed",
        dir.display(),
        human(freed)
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[cfg(test)]
mod tests {
    use super::part_of;

    /// What incremental weaves leave in the cache is counted and cleared as
    /// major's: the binary's digest (one per binary path, and the single
    /// file of earlier versions) and the file stamps.
    #[test]
    fn incremental_files_are_parts_of_the_cache() {
        assert!(part_of("executable-digest").is_some());
        assert!(part_of("executable-digest-00ff00ff00ff00ff00ff00ff00ff00ff").is_some());
        assert!(part_of("incremental-00ff.stamps").is_some());
        assert!(part_of("incremental-notes.txt").is_none());
        assert!(part_of("notes.txt").is_none());
    }

    /// The single-phase agent's parts, the kept load orders among them.
    #[test]
    fn agent_directories_are_parts_of_the_cache() {
        for d in [
            "woven-classes",
            "added-classes",
            "agent",
            "agent-options",
            "load-order",
        ] {
            assert!(part_of(d).is_some(), "{d}");
        }
        assert!(part_of("load-orders").is_none());
    }
}
