//! The binary encoding of the incremental state and the stamps files: a text
//! first line naming the format and its version (so that a file of another
//! version is told by its first line), then length-prefixed fields, then the
//! BLAKE3 digest of everything before it (32 bytes).
//!
//! BLAKE3 rather than SHA-256: the digest is computed of every file written
//! and checked of every file read, 900 KB on each one-class update of guava
//! (state and stamps), and BLAKE3 hashes several blocks at once with the
//! CPU's vector units where SHA-256 hashes one block after another (even
//! with the SHA extensions, about 1.4 GB/s here). It is as much a
//! cryptographic hash: a file's digest names it as well.
//!
//! Numbers are unsigned LEB128; a text is its length and its UTF-8 bytes; a
//! *print* ([`super::print`]) is its length and raw bytes when it is a
//! digest, else 0 and its text. A reader checks the
//! first line and the digest before it decodes anything, and every read is
//! bounds-checked: a damaged file is an error, never a panic.

/// The digest of `bytes`, as a file's trailer holds it.
fn digest(bytes: &[u8]) -> [u8; DIGEST_LEN] {
    *blake3::hash(bytes).as_bytes()
}

/// The digest of `parts` one after the other: that of a file whose bytes
/// before its digest are these parts.
pub fn digest_of_parts(parts: &[&[u8]]) -> [u8; DIGEST_LEN] {
    let mut h = blake3::Hasher::new();
    for p in parts {
        h.update(p);
    }
    *h.finalize().as_bytes()
}

/// The length of the trailing digest.
pub const DIGEST_LEN: usize = 32;

use super::print::Print;
pub use crate::hex::hex;

/// Builds a file: the header line, then fields; [`finish`](Self::finish)
/// appends the digest.
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// A file whose first line is `header`.
    pub fn new(header: &str, capacity: usize) -> Writer {
        let mut buf = Vec::with_capacity(capacity);
        buf.extend_from_slice(header.as_bytes());
        buf.push(b'\n');
        Writer { buf }
    }

    /// A part of a file, to be written after another: no first line.
    pub fn part(capacity: usize) -> Writer {
        Writer {
            buf: Vec::with_capacity(capacity),
        }
    }

    /// What a [`part`](Self::part) holds, without a digest.
    pub fn into_part(self) -> Vec<u8> {
        self.buf
    }

    /// A number.
    pub fn num(&mut self, mut n: u64) {
        loop {
            let b = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                self.buf.push(b);
                return;
            }
            self.buf.push(b | 0x80);
        }
    }

    /// A byte.
    pub fn byte(&mut self, b: u8) {
        self.buf.push(b);
    }

    /// Bytes already encoded (copied from a file read).
    pub fn raw(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// A text.
    pub fn text(&mut self, s: &str) {
        self.num(s.len() as u64);
        self.buf.extend_from_slice(s.as_bytes());
    }

    /// A print: a digest as its raw bytes (its length, then them), a text
    /// as 0 and the text.
    pub fn print(&mut self, p: &Print) {
        match p.as_digest() {
            Some(d) => {
                self.buf.push(d.len() as u8);
                self.buf.extend_from_slice(d);
            }
            None => {
                self.buf.push(0);
                self.text(p.as_text().unwrap_or_default());
            }
        }
    }

    /// The file: what was written, then its digest.
    pub fn finish(mut self) -> Vec<u8> {
        let digest = digest(&self.buf);
        self.buf.extend_from_slice(&digest);
        self.buf
    }
}

/// Replaces the file at `path` with `parts` written one after the other:
/// through a temporary file beside it (removed if anything fails), its
/// blocks reserved ([`major_archive::write_reserved`]), then renamed over it.
pub fn replace(path: &std::path::Path, parts: &[&[u8]]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    let tmp = std::path::PathBuf::from(tmp);
    let done =
        major_archive::write_reserved(&tmp, parts).and_then(|()| std::fs::rename(&tmp, path));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}

/// Why a file cannot be read.
pub type Error = String;

/// The body of a file (between its first line and its digest) if its first
/// line is `header` and its digest matches; else why not.
pub fn body<'a>(bytes: &'a [u8], header: &str) -> Result<&'a [u8], Error> {
    let line = header.len() + 1;
    if bytes.len() < line
        || &bytes[..header.len()] != header.as_bytes()
        || bytes[header.len()] != b'\n'
    {
        return Err("not a state of this version of major".into());
    }
    if bytes.len() < line + DIGEST_LEN {
        return Err("truncated".into());
    }
    let (content, trailer) = bytes.split_at(bytes.len() - DIGEST_LEN);
    if digest(content) != *trailer {
        return Err("its digest does not match its contents".into());
    }
    Ok(&content[line..])
}

/// The digest a file written by [`Writer`] ends with (already checked by
/// [`body`] for a file read, computed by [`Writer::finish`] for one
/// written): what names that file, with no need to hash it again.
pub fn digest_of(bytes: &[u8]) -> Print {
    match bytes.len().checked_sub(DIGEST_LEN) {
        Some(at) => Print::digest(&bytes[at..]).expect("a digest of DIGEST_LEN bytes"),
        None => Print::from(digest(bytes)),
    }
}

/// Reads the fields of a body, in order.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// A reader of `bytes` (a body: see [`body`]).
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    fn short(&self) -> Error {
        format!("truncated at byte {}", self.at)
    }

    /// Where the next field begins (an offset into the body).
    pub fn at(&self) -> usize {
        self.at
    }

    /// Whether every byte was read.
    pub fn done(&self) -> bool {
        self.at == self.bytes.len()
    }

    /// A byte.
    pub fn byte(&mut self) -> Result<u8, Error> {
        let b = *self.bytes.get(self.at).ok_or_else(|| self.short())?;
        self.at += 1;
        Ok(b)
    }

    /// A number.
    pub fn num(&mut self) -> Result<u64, Error> {
        let mut n: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(format!("a number too long at byte {}", self.at))
    }

    /// A number that must fit a `usize` and be at most `max` (a count of
    /// things that follow, bounded by what is left to read).
    pub fn count(&mut self, max: usize) -> Result<usize, Error> {
        let n = self.num()?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= max)
            .ok_or_else(|| format!("a count of {n} out of range at byte {}", self.at))
    }

    /// The bytes left.
    pub fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| self.short())?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    /// A text, borrowed.
    pub fn str(&mut self) -> Result<&'a str, Error> {
        let n = self.count(self.left())?;
        let at = self.at;
        std::str::from_utf8(self.take(n)?).map_err(|_| format!("a text not UTF-8 at byte {at}"))
    }

    /// A text.
    pub fn text(&mut self) -> Result<String, Error> {
        self.str().map(str::to_string)
    }

    /// A print: a digest of 16 or 32 bytes, or a text of at most
    /// [`MAX_TEXT`](super::print::MAX_TEXT) bytes.
    pub fn print(&mut self) -> Result<Print, Error> {
        let at = self.at;
        let p = match self.byte()? {
            0 => Print::text(self.str()?),
            n @ (16 | 32) => Print::digest(self.take(usize::from(n))?),
            t => return Err(format!("a print of unknown form {t} at byte {at}")),
        };
        p.ok_or_else(|| format!("a print text too long at byte {at}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hex::unhex_into;

    #[test]
    fn fields_round_trip_and_damage_is_refused() {
        let mut w = Writer::new("h 1", 0);
        w.num(0);
        w.num(300);
        w.num(u64::MAX);
        w.text("a b%\n");
        let p = |s: &str| Print::text(s).unwrap();
        w.print(&p(&"ab".repeat(16)));
        w.print(&p(&"0f".repeat(32)));
        w.print(&p("absent"));
        w.print(&p(&"AB".repeat(16)));
        let bytes = w.finish();
        let mut r = Reader::new(body(&bytes, "h 1").unwrap());
        assert_eq!(r.num().unwrap(), 0);
        assert_eq!(r.num().unwrap(), 300);
        assert_eq!(r.num().unwrap(), u64::MAX);
        assert_eq!(r.text().unwrap(), "a b%\n");
        assert_eq!(r.print().unwrap().to_string(), "ab".repeat(16));
        assert_eq!(r.print().unwrap().as_digest(), Some(&[0x0f; 32][..]));
        assert_eq!(r.print().unwrap(), p("absent"));
        assert_eq!(r.print().unwrap().as_text(), Some(&*"AB".repeat(16)));
        assert!(r.done());
        assert!(r.byte().is_err());
        assert_eq!(
            digest_of(&bytes),
            Print::from(*blake3::hash(&bytes[..bytes.len() - 32]).as_bytes())
        );
        assert!(body(&bytes, "h 2").is_err());
        for cut in 0..bytes.len() {
            assert!(body(&bytes[..cut], "h 1").is_err(), "cut at {cut}");
        }
        for at in 0..bytes.len() {
            let mut b = bytes.clone();
            b[at] ^= 0x10;
            assert!(body(&b, "h 1").is_err(), "flip at {at}");
        }
    }

    #[test]
    fn hex_is_lower_case_and_reversible() {
        assert_eq!(hex(&[0, 0xab, 0x0f]), "00ab0f");
        let mut out = [0u8; 3];
        assert!(unhex_into("00ab0f", &mut out));
        assert_eq!(out, [0, 0xab, 0x0f]);
        assert!(!unhex_into("0A", &mut out[..1]));
        assert!(!unhex_into("0", &mut out[..1]));
    }
}
