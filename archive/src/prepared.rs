//! Entries prepared for an output on any thread: for a zip output, compressed
//! ahead of writing, so that compression runs in parallel while
//! [`OutputArchive::write_prepared`](crate::OutputArchive::write_prepared)
//! keeps the output's order and only copies bytes.
//!
//! Each thread keeps one libdeflate compressor (level 1: about twice zlib's
//! speed, output within about 3% of zlib's default level). The
//! compressed entry is held as a one-entry zip in memory, which the writer
//! copies raw (the `zip` crate builds the output's headers from it).

use std::cell::RefCell;

use libdeflater::{CompressionLvl, Compressor};
use zip::result::ZipError;

use crate::output::{output_name, EntryMeta};
use crate::{Archive, ArchiveError, OutputKind};

/// An entry made ready for an output of one kind (see the module
/// documentation). Errors of the compression are reported by
/// [`OutputArchive::write_prepared`](crate::OutputArchive::write_prepared).
pub struct PreparedEntry {
    pub(crate) name: String,
    pub(crate) kind: OutputKind,
    pub(crate) body: Prepared,
}

/// The prepared contents.
pub(crate) enum Prepared {
    /// A zip holding just this entry (or why it could not be made).
    Zip(Result<Vec<u8>, ZipError>),
    /// The data, for a directory output.
    Plain(Vec<u8>),
}

impl std::fmt::Debug for PreparedEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedEntry")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .finish()
    }
}

impl PreparedEntry {
    /// Prepares what [`OutputArchive::write`](crate::OutputArchive::write)
    /// would write.
    pub fn new(kind: OutputKind, name: &str, data: &[u8]) -> PreparedEntry {
        Self::with_meta(kind, name.to_owned(), data, EntryMeta::new())
    }

    /// Prepares what [`OutputArchive::write_like`](crate::OutputArchive::write_like)
    /// would write.
    pub fn like(
        kind: OutputKind,
        from: &Archive,
        index: usize,
        data: &[u8],
    ) -> Result<PreparedEntry, ArchiveError> {
        let name = output_name(from, from.entry(index)?).to_owned();
        let meta = match kind {
            OutputKind::Zip => EntryMeta::like(from, index)?,
            OutputKind::Directory => EntryMeta::new(),
        };
        Ok(Self::with_meta(kind, name, data, meta))
    }

    fn with_meta(kind: OutputKind, name: String, data: &[u8], meta: EntryMeta) -> PreparedEntry {
        let body = match kind {
            OutputKind::Directory => Prepared::Plain(data.to_vec()),
            OutputKind::Zip => Prepared::Zip(one_entry_zip(&name, data, meta)),
        };
        PreparedEntry { name, kind, body }
    }

    /// The entry's name in the output.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// The libdeflate level of entries major writes: its fastest, whose output is
/// within about 3% of zlib's default level (and half the time of zlib's).
const LEVEL: i32 = 1;

thread_local! {
    /// This thread's compressor, reused for every entry.
    static DEFLATER: RefCell<Compressor> = RefCell::new(Compressor::new(
        CompressionLvl::new(LEVEL).expect("a valid libdeflate level"),
    ));
}

/// Raw deflate of `data`.
fn deflate(data: &[u8]) -> Result<Vec<u8>, ZipError> {
    DEFLATER.with(|c| {
        let mut c = c.borrow_mut();
        let mut out = vec![0; c.deflate_compress_bound(data.len())];
        let n = c
            .deflate_compress(data, &mut out)
            .map_err(|e| ZipError::Io(std::io::Error::other(format!("{e:?}"))))?;
        out.truncate(n);
        Ok(out)
    })
}

/// A zip file holding one entry (no zip64: the caller's entries are class
/// files; larger data is refused).
fn one_entry_zip(name: &str, data: &[u8], meta: EntryMeta) -> Result<Vec<u8>, ZipError> {
    let too_large = || ZipError::UnsupportedArchive("an entry of 4 GiB or more");
    let size = u32::try_from(data.len()).map_err(|_| too_large())?;
    let name_len = u16::try_from(name.len())
        .map_err(|_| ZipError::UnsupportedArchive("an entry name over 65535 bytes"))?;
    let crc = crc32fast::hash(data);
    let deflated;
    let (method, stored): (u16, &[u8]) = if meta.deflated {
        deflated = deflate(data)?;
        (8, &deflated)
    } else {
        (0, data)
    };
    let stored_len = u32::try_from(stored.len()).map_err(|_| too_large())?;
    // Bit 11: the name is UTF-8.
    let flags: u16 = if name.is_ascii() { 0 } else { 0x0800 };
    let (time, date) = (meta.time.timepart(), meta.time.datepart());
    let mut z = Vec::with_capacity(stored.len() + 2 * name.len() + 120);
    let u16le = |z: &mut Vec<u8>, v: u16| z.extend_from_slice(&v.to_le_bytes());
    let u32le = |z: &mut Vec<u8>, v: u32| z.extend_from_slice(&v.to_le_bytes());
    // Local file header.
    u32le(&mut z, 0x0403_4b50);
    for v in [20, flags, method, time, date] {
        u16le(&mut z, v);
    }
    for v in [crc, stored_len, size] {
        u32le(&mut z, v);
    }
    u16le(&mut z, name_len);
    u16le(&mut z, 0); // extra field length
    z.extend_from_slice(name.as_bytes());
    z.extend_from_slice(stored);
    // Central directory header: made by Unix (3), zip 2.0.
    let central = u32::try_from(z.len()).map_err(|_| too_large())?;
    u32le(&mut z, 0x0201_4b50);
    for v in [0x0314, 20, flags, method, time, date] {
        u16le(&mut z, v);
    }
    for v in [crc, stored_len, size] {
        u32le(&mut z, v);
    }
    for v in [name_len, 0, 0, 0, 0] {
        u16le(&mut z, v); // name, extra, comment lengths, disk, internal attributes
    }
    u32le(&mut z, (0o100_000 | meta.mode) << 16); // regular file with its mode
    u32le(&mut z, 0); // local header offset
    z.extend_from_slice(name.as_bytes());
    let central_len = u32::try_from(z.len()).map_err(|_| too_large())? - central;
    // End of central directory.
    u32le(&mut z, 0x0605_4b50);
    for v in [0, 0, 1, 1] {
        u16le(&mut z, v);
    }
    u32le(&mut z, central_len);
    u32le(&mut z, central);
    u16le(&mut z, 0);
    Ok(z)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use zip::write::SimpleFileOptions;
    use zip::{CompressionMethod, DateTime, ZipWriter};

    use super::*;
    use crate::OutputArchive;

    /// A jar with a deflated and a stored entry, dated and with modes.
    fn input(dir: &std::path::Path) -> std::path::PathBuf {
        let path = dir.join("in.jar");
        let mut z = ZipWriter::new(std::fs::File::create(&path).unwrap());
        let time = DateTime::from_date_and_time(2021, 3, 4, 5, 6, 8).unwrap();
        for (name, method, mode) in [
            ("p/A.class", CompressionMethod::Deflated, 0o600),
            ("p/Stored.class", CompressionMethod::Stored, 0o755),
        ] {
            let o = SimpleFileOptions::default()
                .compression_method(method)
                .last_modified_time(time)
                .unix_permissions(mode);
            z.start_file(name, o).unwrap();
            z.write_all(b"\xCA\xFE\xBA\xBE original").unwrap();
        }
        z.finish().unwrap();
        path
    }

    /// The same entries written directly and prepared (on other threads) give
    /// the same outputs: names, order, metadata and contents.
    #[test]
    fn prepared_entries_write_what_direct_writes_would() {
        let dir = tempfile::tempdir().unwrap();
        let from = Archive::open(&input(dir.path())).unwrap();
        let big: Vec<u8> = (0..200_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let news: Vec<(&str, Vec<u8>)> = vec![
            ("p/New.class", b"new class".to_vec()),
            ("p/Grö\u{df}e.class", b"non-ASCII name".to_vec()),
            ("p/Big.class", big),
            ("p/Empty.class", Vec::new()),
        ];
        let changed = b"\xCA\xFE\xBA\xBE woven, and longer than before".to_vec();
        for ext in ["jar", "d"] {
            let direct = dir.path().join(format!("direct.{ext}"));
            let prepared = dir.path().join(format!("prepared.{ext}"));
            let kind = OutputArchive::kind_for(&direct);
            let mut out = OutputArchive::create(&direct, kind).unwrap();
            for i in 0..from.entries().len() {
                out.write_like(&from, i, &changed).unwrap();
            }
            for (n, d) in &news {
                out.write(n, d).unwrap();
            }
            out.finish().unwrap();

            let entries: Vec<PreparedEntry> = std::thread::scope(|s| {
                let like: Vec<_> = (0..from.entries().len())
                    .map(|i| {
                        let (from, changed) = (&from, &changed);
                        s.spawn(move || PreparedEntry::like(kind, from, i, changed).unwrap())
                    })
                    .collect();
                let new: Vec<_> = news
                    .iter()
                    .map(|(n, d)| s.spawn(move || PreparedEntry::new(kind, n, d)))
                    .collect();
                like.into_iter()
                    .chain(new)
                    .map(|h| h.join().unwrap())
                    .collect()
            });
            let mut out = OutputArchive::create(&prepared, kind).unwrap();
            for e in entries {
                out.write_prepared(e).unwrap();
            }
            out.finish().unwrap();

            // (Compressed bytes differ: prepared entries use libdeflate.)
            let (a, b) = (
                Archive::open(&direct).unwrap(),
                Archive::open(&prepared).unwrap(),
            );
            assert_eq!(a.entries(), b.entries());
            if kind == OutputKind::Zip {
                let (mut za, mut zb) = (zip_of(&direct), zip_of(&prepared));
                for i in 0..za.len() {
                    let x = za.by_index_raw(i).unwrap();
                    let (method, time, mode, crc) =
                        (x.compression(), x.last_modified(), x.unix_mode(), x.crc32());
                    drop(x);
                    let y = zb.by_index_raw(i).unwrap();
                    assert_eq!(method, y.compression(), "{}", a.entries()[i].name);
                    assert_eq!(time, y.last_modified());
                    assert_eq!(mode, y.unix_mode());
                    assert_eq!(crc, y.crc32());
                }
            }
            for i in 0..a.entries().len() {
                assert_eq!(a.read(i).unwrap(), b.read(i).unwrap());
            }
        }
    }

    fn zip_of(path: &std::path::Path) -> zip::ZipArchive<std::fs::File> {
        zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap()
    }

    #[test]
    fn deflate_round_trips_with_a_reused_compressor() {
        for data in [&b""[..], b"a", &[7u8; 100_000], b"class file bytes"] {
            let d = deflate(data).unwrap();
            let mut out = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::DeflateDecoder::new(&d[..]), &mut out)
                .unwrap();
            assert_eq!(out, data);
        }
    }
}
