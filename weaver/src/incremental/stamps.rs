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
//! The file is text, one record a line, ending with the SHA-256 of what
//! precedes it; a damaged file is ignored (every input is hashed).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::state::{esc, hex, unesc};

/// How recent (before the weave started) a file's times may be for its
/// stamp to be trusted by the next weave.
pub const RACY_SECONDS: i64 = 2;

const HEADER: &str = "major stamps 1";

/// A file's metadata, as far as it tells a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
    dev: u64,
}

impl FileStamp {
    /// The stamp of the file at `path` (symbolic links followed), if it can
    /// be read.
    pub fn of(path: &Path) -> Option<FileStamp> {
        let m = std::fs::metadata(path).ok()?;
        Self::from_metadata(&m)
    }

    #[cfg(unix)]
    fn from_metadata(m: &std::fs::Metadata) -> Option<FileStamp> {
        use std::os::unix::fs::MetadataExt;
        Some(FileStamp {
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
            ino: m.ino(),
            dev: m.dev(),
        })
    }

    #[cfg(not(unix))]
    fn from_metadata(_: &std::fs::Metadata) -> Option<FileStamp> {
        // No status-change time to catch a restored modification time.
        None
    }

    /// Whether the file may have changed since in the same clock tick as a
    /// weave that started at `start` (seconds since the epoch) read it.
    pub fn racy(&self, start: i64) -> bool {
        self.mtime.0.max(self.ctime.0) >= start - RACY_SECONDS
    }

    fn text(&self) -> String {
        format!(
            "{} {}.{} {}.{} {} {}",
            self.size, self.mtime.0, self.mtime.1, self.ctime.0, self.ctime.1, self.ino, self.dev
        )
    }

    fn parse(fields: &[&str]) -> Option<FileStamp> {
        let time = |s: &str| -> Option<(i64, i64)> {
            let (a, b) = s.split_once('.')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        };
        match fields {
            [size, m, c, ino, dev] => Some(FileStamp {
                size: size.parse().ok()?,
                mtime: time(m)?,
                ctime: time(c)?,
                ino: ino.parse().ok()?,
                dev: dev.parse().ok()?,
            }),
            _ => None,
        }
    }
}

/// What an input entry was when a weave read it: its SHA-256 (hex) and the
/// class name in its bytes (`None`: not a class).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    /// SHA-256 of the bytes, hex.
    pub hash: String,
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
    fn text(&self) -> String {
        match self {
            Mark::File(s) => format!("f {}", s.text()),
            Mark::Racy => "r".into(),
            Mark::Zip(crc, c, u) => format!("z {crc} {c} {u}"),
        }
    }
}

/// One recorded entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// How it is told unchanged.
    pub mark: Mark,
    /// What it was.
    pub known: Known,
}

/// A stamps file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StampFile {
    /// SHA-256 (hex) of the state file written with these stamps.
    pub state: String,
    /// The JDK image's stamp.
    pub image: Option<FileStamp>,
    /// A weave into a jar: the jar's stamp when it was written, and its
    /// SHA-256 (hex), so that the next weave need not read it to check it.
    pub output: Option<(FileStamp, String)>,
    /// The class path: each element's absolute path and stamp (`None`: not a
    /// jar, or unreadable).
    pub classpath: Vec<(String, Option<FileStamp>)>,
    /// Per input (its absolute path): entry name → what it was.
    pub inputs: Vec<(String, HashMap<String, Recorded>)>,
}

impl StampFile {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let stamp = |s: &Option<FileStamp>| s.map_or("-".to_string(), |s| s.text());
        let mut t = String::new();
        let _ = writeln!(t, "{HEADER}");
        let _ = writeln!(t, "state {}", self.state);
        let _ = writeln!(t, "image {}", stamp(&self.image));
        if let Some((s, sha)) = &self.output {
            let _ = writeln!(t, "output {sha} {}", s.text());
        }
        for (p, s) in &self.classpath {
            let _ = writeln!(t, "cp {} {}", esc(p), stamp(s));
        }
        for (path, entries) in &self.inputs {
            let _ = writeln!(t, "input {}", esc(path));
            let mut names: Vec<(&String, &Recorded)> = entries.iter().collect();
            names.sort_unstable_by(|a, b| a.0.cmp(b.0));
            for (n, r) in names {
                let class = r.known.class.as_deref().map_or("-".to_string(), esc);
                let _ = writeln!(
                    t,
                    "e {} {} {} {}",
                    esc(n),
                    r.known.hash,
                    class,
                    r.mark.text()
                );
            }
        }
        let digest = hex(&Sha256::digest(t.as_bytes()));
        let _ = writeln!(t, "end {digest}");
        t.into_bytes()
    }

    /// Reads a stamps file; `None` if it is damaged or of another version.
    pub fn parse(bytes: &[u8]) -> Option<StampFile> {
        let text = std::str::from_utf8(bytes).ok()?;
        let body_end = text.trim_end_matches('\n').rfind('\n')? + 1;
        let (body, last) = text.split_at(body_end);
        let digest = last.strip_prefix("end ")?.trim_end_matches('\n');
        if hex(&Sha256::digest(body.as_bytes())) != digest {
            return None;
        }
        let mut lines = body.lines();
        if lines.next()? != HEADER {
            return None;
        }
        let mut f = StampFile {
            state: lines.next()?.strip_prefix("state ")?.to_string(),
            ..StampFile::default()
        };
        let stamp = |fields: &[&str]| -> Option<Option<FileStamp>> {
            match fields {
                ["-"] => Some(None),
                _ => FileStamp::parse(fields).map(Some),
            }
        };
        let image: Vec<&str> = lines.next()?.strip_prefix("image ")?.split(' ').collect();
        f.image = stamp(&image)?;
        for l in lines {
            let fields: Vec<&str> = l.split(' ').collect();
            match fields.as_slice() {
                ["cp", path, rest @ ..] => f.classpath.push((unesc(path)?, stamp(rest)?)),
                ["output", sha, rest @ ..] => {
                    f.output = Some((FileStamp::parse(rest)?, sha.to_string()))
                }
                ["input", path] => f.inputs.push((unesc(path)?, HashMap::new())),
                ["e", name, hash, class, mark @ ..] => {
                    let mark = match mark {
                        ["f", s @ ..] => Mark::File(FileStamp::parse(s)?),
                        ["r"] => Mark::Racy,
                        ["z", crc, c, u] => {
                            Mark::Zip(crc.parse().ok()?, c.parse().ok()?, u.parse().ok()?)
                        }
                        _ => return None,
                    };
                    let class = match *class {
                        "-" => None,
                        c => Some(Arc::from(unesc(c)?)),
                    };
                    let known = Known {
                        hash: hash.to_string(),
                        class,
                    };
                    f.inputs
                        .last_mut()?
                        .1
                        .insert(unesc(name)?, Recorded { mark, known });
                }
                _ => return None,
            }
        }
        Some(f)
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
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    if std::fs::write(&tmp, file.to_bytes()).is_ok() && std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
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
        let mut entries = HashMap::new();
        entries.insert(
            "p/A b.class".to_string(),
            Recorded {
                mark: Mark::File(s),
                known: Known {
                    hash: "ab".into(),
                    class: Some(Arc::from("p/A b")),
                },
            },
        );
        entries.insert(
            "r.txt".to_string(),
            Recorded {
                mark: Mark::Racy,
                known: Known {
                    hash: "cd".into(),
                    class: None,
                },
            },
        );
        entries.insert(
            "q/B.class".to_string(),
            Recorded {
                mark: Mark::Zip(7, 8, 9),
                known: Known {
                    hash: "ef".into(),
                    class: Some(Arc::from("q/B")),
                },
            },
        );
        let f = StampFile {
            state: "00".into(),
            image: Some(s),
            output: Some((s, "12".into())),
            classpath: vec![("/x y.jar".into(), None), ("/z.jar".into(), Some(s))],
            inputs: vec![("/in".into(), entries)],
        };
        let bytes = f.to_bytes();
        assert_eq!(StampFile::parse(&bytes), Some(f));
        for at in (0..bytes.len()).step_by(3) {
            let mut b = bytes.clone();
            b[at] ^= 0x01;
            assert_eq!(StampFile::parse(&b), None, "flip at {at}");
        }
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
