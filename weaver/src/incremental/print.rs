//! A *print*: what the incremental state and the stamps keep of a thing to
//! tell whether it changed — a digest (16 or 32 bytes), or a short marker
//! text where there is nothing to digest (`absent`, `unread`, `0`, `1`).
//!
//! Held inline (33 bytes, `Copy`): an update reads and writes about 9,000
//! of them on guava, and as hex `String`s each was an allocation and a hex
//! conversion both ways. The files store a digest as its raw bytes and a
//! marker as a text ([`super::binary`]), so a print written and read back is
//! the same print.

use std::fmt;

/// The longest marker text a print holds.
pub const MAX_TEXT: usize = 32;

/// A digest or a short marker text (see the module's documentation).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Print {
    /// 16 or 32: a digest of that many bytes; `TEXT | n`: a text of `n`
    /// bytes.
    kind: u8,
    /// The digest's or the text's bytes, then zeros.
    bytes: [u8; MAX_TEXT],
}

/// The flag of a text in [`Print::kind`].
const TEXT: u8 = 0x80;

impl Print {
    /// The print of a digest of 16 or 32 bytes (`None` for another length).
    pub fn digest(d: &[u8]) -> Option<Print> {
        if d.len() != 16 && d.len() != 32 {
            return None;
        }
        let mut bytes = [0; MAX_TEXT];
        bytes[..d.len()].copy_from_slice(d);
        Some(Print {
            kind: d.len() as u8,
            bytes,
        })
    }

    /// A marker text of at most [`MAX_TEXT`] bytes (`None` if longer). A
    /// text of 32 or 64 lower-case hex digits is the digest it spells, as
    /// the files store it.
    pub fn text(s: &str) -> Option<Print> {
        if s.len() == 32 || s.len() == 64 {
            let mut raw = [0u8; 32];
            let n = s.len() / 2;
            if crate::hex::unhex_into(s, &mut raw[..n]) {
                return Print::digest(&raw[..n]);
            }
        }
        if s.len() > MAX_TEXT {
            return None;
        }
        let mut bytes = [0; MAX_TEXT];
        bytes[..s.len()].copy_from_slice(s.as_bytes());
        Some(Print {
            kind: TEXT | s.len() as u8,
            bytes,
        })
    }

    /// A marker known to fit ([`text`](Self::text)); panics on a longer one.
    pub fn marker(s: &'static str) -> Print {
        Print::text(s).expect("a marker of at most 32 bytes")
    }

    /// The digest's bytes, or `None` for a text.
    pub fn as_digest(&self) -> Option<&[u8]> {
        (self.kind & TEXT == 0).then(|| &self.bytes[..usize::from(self.kind)])
    }

    /// The text, or `None` for a digest.
    pub fn as_text(&self) -> Option<&str> {
        if self.kind & TEXT == 0 {
            return None;
        }
        // Made from a `&str` of this length.
        std::str::from_utf8(&self.bytes[..usize::from(self.kind & !TEXT)]).ok()
    }
}

impl From<[u8; 32]> for Print {
    /// A 32-byte digest (SHA-256, BLAKE3).
    fn from(d: [u8; 32]) -> Print {
        Print { kind: 32, bytes: d }
    }
}

impl fmt::Display for Print {
    /// Lower-case hex of a digest; a text as it is.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_digest() {
            Some(d) => f.write_str(&crate::hex::hex(d)),
            None => f.write_str(self.as_text().unwrap_or_default()),
        }
    }
}

impl fmt::Debug for Print {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Print({self})")
    }
}

impl Default for Print {
    /// The empty text.
    fn default() -> Print {
        Print {
            kind: TEXT,
            bytes: [0; MAX_TEXT],
        }
    }
}

/// Tests write prints as texts (`"ab".into()`).
#[cfg(test)]
impl From<&str> for Print {
    fn from(s: &str) -> Print {
        Print::text(s).expect("a print of at most 32 bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_are_digests_or_short_texts() {
        let d = Print::digest(&[0xab; 32]).unwrap();
        assert_eq!(d.to_string(), "ab".repeat(32));
        assert_eq!(Print::text(&"ab".repeat(32)), Some(d));
        assert_eq!(
            Print::text(&"0f".repeat(16)).unwrap().as_digest(),
            Some(&[0x0f; 16][..])
        );
        assert_eq!(Print::digest(&[1; 20]), None);
        let t = Print::marker("absent");
        assert_eq!(t.as_text(), Some("absent"));
        assert_eq!(t.as_digest(), None);
        assert_ne!(t, Print::marker("unread"));
        // Upper-case hex is a text, not a digest.
        let upper = Print::text(&"AB".repeat(16)).unwrap();
        assert_eq!(upper.as_text(), Some("ABABABABABABABABABABABABABABABAB"));
        assert_eq!(Print::text(&"x".repeat(33)), None);
        // A digest and a text with the same bytes differ.
        assert_ne!(
            Print::digest(&[b'a'; 16]).unwrap(),
            Print::text(&"a".repeat(16)).unwrap()
        );
        assert_eq!(Print::default().to_string(), "");
    }
}
