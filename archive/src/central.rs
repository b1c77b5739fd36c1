//! The central directory of a plain zip, read in place from its mapping.
//!
//! Opening a jar used to build the `zip` crate's index of it: a record of
//! some 200 bytes per entry, its name copied into a hash map keyed by a
//! keyed hash, about a millisecond and a megabyte for guava's 2,000 entries.
//! An incremental weave into a jar opens two such jars (the input and the
//! previous output) to copy a few kilobytes, so that index was a large share
//! of its time. [`read`] keeps, per entry, only the fields major asks
//! about ([`Record`]), read straight from the central directory records.
//!
//! It reads only *plain* zips: one disk, no zip64 records, the central
//! directory where the end record puts it (nothing prepended), every name
//! UTF-8, every record well formed. Anything else is left to the `zip`
//! crate (`None`), which reads what it can and says what is wrong; the
//! fields of a [`Record`] are then taken from its index. Both give the same
//! answers for a plain zip: the unit tests hold them against each other.

use rustc_hash::FxHashSet;
use zip::DateTime;

/// How an entry's data is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    /// As it is (method 0).
    Stored,
    /// Raw deflate (method 8).
    Deflated,
    /// Any other method: decompressed by the `zip` crate, if at all.
    Other,
}

impl Method {
    /// The method numbered `n` in a zip header.
    pub(crate) fn of(n: u16) -> Method {
        match n {
            0 => Method::Stored,
            8 => Method::Deflated,
            _ => Method::Other,
        }
    }
}

/// What major asks about one entry of a zip's central directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Record {
    /// Where its central directory record starts.
    pub(crate) central_at: u64,
    /// Where its local header starts.
    pub(crate) local_at: u64,
    /// Its data's size as stored.
    pub(crate) compressed: u64,
    /// Its size uncompressed.
    pub(crate) size: u64,
    /// The declared CRC-32.
    pub(crate) crc: u32,
    /// How its data is stored.
    pub(crate) method: Method,
    /// Whether it is encrypted (flag bit 0).
    pub(crate) encrypted: bool,
    /// Its Unix mode, as the `zip` crate reads it from the external
    /// attributes and the system that made it (`None`: no attributes).
    pub(crate) mode: Option<u32>,
    /// Its MS-DOS modification time, if it is a valid one.
    pub(crate) time: Option<DateTime>,
}

/// An entry of a plain zip: its record, and where its name lies.
#[derive(Debug)]
pub(crate) struct Listed {
    /// The record.
    pub(crate) record: Record,
    /// The name's bytes in the zip.
    pub(crate) name: std::ops::Range<usize>,
}

/// Why [`read`] did not read a zip.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NotRead {
    /// Not a plain zip (or damaged): the `zip` crate is to read it.
    NotPlain,
    /// The central directory lists this name more than once.
    Duplicate(String),
}

const END: &[u8; 4] = b"PK\x05\x06";
const END_LEN: usize = 22;
const ZIP64_LOCATOR: &[u8; 4] = b"PK\x06\x07";
const CENTRAL: &[u8; 4] = b"PK\x01\x02";
const CENTRAL_LEN: usize = 46;

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The end of central directory record of `data`: the last one whose
/// comment reaches exactly to the end of the data.
fn end_record(data: &[u8]) -> Option<usize> {
    let lowest = data.len().saturating_sub(END_LEN + usize::from(u16::MAX));
    let mut at = data.len().checked_sub(END_LEN)?;
    loop {
        if &data[at..at + 4] == END
            && at + END_LEN + usize::from(u16_at(data, at + 20)) == data.len()
        {
            return Some(at);
        }
        if at == lowest {
            return None;
        }
        at -= 1;
    }
}

/// The Unix mode the `zip` crate gives an entry made by `system` with
/// external attributes `external`.
fn unix_mode(system: u8, external: u32) -> Option<u32> {
    const S_IFDIR: u32 = 0o040000;
    const S_IFREG: u32 = 0o100000;
    const SPECIAL: u32 = 0o7000;
    if external == 0 {
        return None;
    }
    let mode = external >> 16;
    match system {
        // Unix
        3 => Some(mode & !SPECIAL),
        // MS-DOS: its directory and read-only attribute bits.
        0 => {
            let dos = external & 0xFF;
            let mut m = if dos & 0x10 != 0 {
                S_IFDIR | 0o775
            } else {
                S_IFREG | 0o664
            };
            if dos & 0x01 != 0 {
                m &= !0o222;
            }
            Some(m)
        }
        _ => (mode != 0).then_some(mode & !SPECIAL),
    }
}

/// Reads the central directory of the plain zip `data` (see the module
/// documentation), in its order.
pub(crate) fn read(data: &[u8]) -> Result<Vec<Listed>, NotRead> {
    let not_plain = NotRead::NotPlain;
    let end = end_record(data).ok_or(NotRead::NotPlain)?;
    let e = &data[end..end + END_LEN];
    let (disk, cd_disk) = (u16_at(e, 4), u16_at(e, 6));
    let (on_disk, total) = (u16_at(e, 8), u16_at(e, 10));
    let (cd_size, cd_at) = (u32_at(e, 12) as usize, u32_at(e, 16) as usize);
    let zip64 = end >= 20 && &data[end - 20..end - 16] == ZIP64_LOCATOR;
    if disk != 0
        || cd_disk != 0
        || on_disk != total
        || total == u16::MAX
        || zip64
        || cd_at.checked_add(cd_size) != Some(end)
    {
        return Err(not_plain);
    }
    let mut listed = Vec::with_capacity(usize::from(total));
    let mut names: FxHashSet<&[u8]> = FxHashSet::default();
    names.reserve(usize::from(total));
    let mut at = cd_at;
    for _ in 0..total {
        let fixed = data.get(at..at + CENTRAL_LEN).ok_or(NotRead::NotPlain)?;
        if &fixed[..4] != CENTRAL {
            return Err(NotRead::NotPlain);
        }
        let (name_len, extra_len, comment_len) = (
            usize::from(u16_at(fixed, 28)),
            usize::from(u16_at(fixed, 30)),
            usize::from(u16_at(fixed, 32)),
        );
        let name_at = at + CENTRAL_LEN;
        let next = name_at + name_len + extra_len + comment_len;
        if next > end {
            return Err(NotRead::NotPlain);
        }
        let (crc, compressed, size, local_at) = (
            u32_at(fixed, 16),
            u32_at(fixed, 20),
            u32_at(fixed, 24),
            u32_at(fixed, 42),
        );
        // A zip64 value in an extra field, or a multi-disk entry.
        if [compressed, size, local_at].contains(&u32::MAX) || u16_at(fixed, 34) != 0 {
            return Err(NotRead::NotPlain);
        }
        let name = &data[name_at..name_at + name_len];
        let text = std::str::from_utf8(name).map_err(|_| NotRead::NotPlain)?;
        if !names.insert(name) {
            return Err(NotRead::Duplicate(text.to_owned()));
        }
        listed.push(Listed {
            record: Record {
                central_at: at as u64,
                local_at: u64::from(local_at),
                compressed: u64::from(compressed),
                size: u64::from(size),
                crc,
                method: Method::of(u16_at(fixed, 10)),
                encrypted: u16_at(fixed, 8) & 1 != 0,
                mode: unix_mode((u16_at(fixed, 4) >> 8) as u8, u32_at(fixed, 38)),
                time: DateTime::try_from_msdos(u16_at(fixed, 14), u16_at(fixed, 12)).ok(),
            },
            name: name_at..name_at + name_len,
        });
        at = next;
    }
    if at != end {
        return Err(NotRead::NotPlain);
    }
    Ok(listed)
}

/// Whether a zip entry name stands for a directory, as the `zip` crate says.
pub(crate) fn is_dir(name: &str) -> bool {
    name.ends_with('/') || name.ends_with('\\')
}
