//! What identifies an output jar for the state kept beside it: a BLAKE3
//! digest (as the state's own, [`super::binary`]) of the jar's length and its central directory with the end record (the
//! file's tail from the first central directory record on).
//!
//! The central directory holds every entry's name, CRC-32, sizes and offset,
//! so a jar rewritten by anything else (another entry, a changed one, a
//! different order or compression) has another digest, and the digest costs
//! the tail's few kilobytes per thousand entries instead of reading and
//! hashing the whole jar. What it cannot see is the same limit the stamps of
//! input jar entries have (ARCHITECTURE.md, "Incremental weaving"): an entry's
//! data changed in place with its CRC-32 and sizes kept. A jar whose end
//! record cannot be found, or a Zip64 one, is hashed whole.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::print::Print;

/// The end of central directory record's signature.
const EOCD: [u8; 4] = [0x50, 0x4b, 0x05, 0x06];
/// Its length without the comment.
const EOCD_LEN: usize = 22;
/// The longest tail that may hold it (the comment is at most 65,535 bytes).
const TAIL_MAX: u64 = EOCD_LEN as u64 + 65_535;

/// The digest of the jar at `path`, or the error reading it.
pub fn of(path: &Path) -> std::io::Result<Print> {
    let mut f = std::fs::File::open(path)?;
    let len = f.metadata()?.len();
    let tail_len = len.min(TAIL_MAX);
    f.seek(SeekFrom::Start(len - tail_len))?;
    let mut tail = vec![0u8; tail_len as usize];
    f.read_exact(&mut tail)?;
    let Some(start) = directory_start(&tail, len) else {
        return whole(path);
    };
    let mut h = blake3::Hasher::new();
    h.update(b"major jar tail\n");
    h.update(&len.to_le_bytes());
    let in_tail = len - tail_len;
    if start >= in_tail {
        h.update(&tail[(start - in_tail) as usize..]);
    } else {
        f.seek(SeekFrom::Start(start))?;
        let mut head = vec![0u8; (in_tail - start) as usize];
        f.read_exact(&mut head)?;
        h.update(&head);
        h.update(&tail);
    }
    Ok(Print::from(*h.finalize().as_bytes()))
}

/// The digest of the whole file, under another label (the two kinds of
/// digest never collide).
fn whole(path: &Path) -> std::io::Result<Print> {
    let mut h = blake3::Hasher::new();
    h.update(b"major jar whole\n");
    h.update(&std::fs::read(path)?);
    Ok(Print::from(*h.finalize().as_bytes()))
}

/// Where the central directory starts in a file of `len` bytes whose last
/// bytes are `tail`: found from the last end record whose comment runs to
/// the end of the file; `None` if there is none or it is a Zip64 one.
fn directory_start(tail: &[u8], len: u64) -> Option<u64> {
    let u16_at = |b: &[u8], i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    let u32_at = |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let last = tail.len().checked_sub(EOCD_LEN)?;
    let at = (0..=last).rev().find(|&i| {
        tail[i..i + 4] == EOCD && i + EOCD_LEN + usize::from(u16_at(tail, i + 20)) == tail.len()
    })?;
    let size = u32_at(tail, at + 12);
    let offset = u32_at(tail, at + 16);
    if size == u32::MAX || offset == u32::MAX || u16_at(tail, at + 10) == u16::MAX {
        return None;
    }
    let end = len - (tail.len() - at) as u64;
    let start = u64::from(offset);
    // The directory ends where the end record begins.
    (start.checked_add(u64::from(size)) == Some(end)).then_some(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jar(dir: &Path, name: &str, entries: &[(&str, &[u8])]) -> std::path::PathBuf {
        let p = dir.join(name);
        let mut o =
            major_archive::OutputArchive::create(&p, major_archive::OutputKind::Zip).unwrap();
        for (n, b) in entries {
            o.write(n, b).unwrap();
        }
        o.finish().unwrap();
        p
    }

    #[test]
    fn the_digest_follows_the_central_directory() {
        let d = tempfile::tempdir().unwrap();
        let a = jar(d.path(), "a.jar", &[("x.txt", b"one"), ("y.txt", b"two")]);
        let a2 = jar(d.path(), "a2.jar", &[("x.txt", b"one"), ("y.txt", b"two")]);
        let b = jar(d.path(), "b.jar", &[("x.txt", b"one"), ("y.txt", b"tw0")]);
        let c = jar(d.path(), "c.jar", &[("x.txt", b"one")]);
        let da = of(&a).unwrap();
        assert_eq!(da, of(&a2).unwrap(), "the same jar, the same digest");
        assert_ne!(da, of(&b).unwrap(), "an entry's bytes (its CRC-32) changed");
        assert_ne!(da, of(&c).unwrap(), "an entry less");
        // Bytes appended: the end record is no longer last, the jar is
        // hashed whole, and the digest differs.
        let mut bytes = std::fs::read(&a).unwrap();
        bytes.extend_from_slice(b"trailing");
        std::fs::write(&a2, &bytes).unwrap();
        assert_ne!(da, of(&a2).unwrap());
        // Not a zip at all: hashed whole.
        std::fs::write(&a2, b"PK\x05\x06 not a jar").unwrap();
        assert!(of(&a2).unwrap().as_digest().is_some_and(|d| d.len() == 32));
        assert!(of(&d.path().join("missing.jar")).is_err());
    }
}
