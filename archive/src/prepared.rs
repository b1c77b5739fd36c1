//! Entries prepared for an output on any thread: for a zip output, compressed
//! ahead of writing, so that compression runs in parallel while
//! [`OutputArchive::write_prepared`](crate::OutputArchive::write_prepared)
//! keeps the output's order and only writes bytes.
//!
//! A prepared zip entry holds its bytes as they go in the zip (deflated by
//! the thread's libdeflate compressor at level 1, or stored) with its CRC-32,
//! size and metadata; the writer adds its headers. The encoding is the one of
//! direct writes ([`Encoded`]), so both give the same bytes. A
//! [`Compression::Store`] entry keeps its bytes as they are.

use std::borrow::Cow;

use crate::output::{output_name, Compression, EntryMeta};
use crate::reused::Reused;
use crate::zip_output::Encoded;
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
    /// The entry encoded for a zip (or why it could not be).
    Zip(std::io::Result<Encoded<'static>>),
    /// The data, for a directory output, and the permission bits of the
    /// input file it replaces (from a directory input).
    Plain(Vec<u8>, Option<u32>),
    /// An entry of a zip written earlier, its bytes written from there.
    Reused(Box<Reused>),
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
    /// would write; with [`Compression::Store`], the entry is stored instead
    /// of deflated (`data` is then moved into the entry when it is owned).
    pub fn new<'d>(
        kind: OutputKind,
        compression: Compression,
        name: &str,
        data: impl Into<Cow<'d, [u8]>>,
    ) -> PreparedEntry {
        let meta = EntryMeta::new().compressed(compression);
        Self::with_meta(kind, name.to_owned(), data.into(), meta)
    }

    /// Prepares what [`OutputArchive::write_like`](crate::OutputArchive::write_like)
    /// would write; with [`Compression::Store`], the entry is stored whatever
    /// the original was.
    pub fn like<'d>(
        kind: OutputKind,
        compression: Compression,
        from: &Archive,
        index: usize,
        data: impl Into<Cow<'d, [u8]>>,
    ) -> Result<PreparedEntry, ArchiveError> {
        let name = output_name(from, from.entry(index)?).to_owned();
        let meta = EntryMeta::like(from, index)?.compressed(compression);
        Ok(Self::with_meta(kind, name, data.into(), meta))
    }

    /// What [`like`](Self::like) prepares for a zip output, when `previous`
    /// (a zip this writer wrote in an earlier run) holds the same contents
    /// encoded with the same choices as entry `previous_index`: its stored
    /// bytes are taken as they are, neither inflated nor deflated again nor
    /// copied into memory (the writer writes them from `previous`'s
    /// mapping, which the entry shares), for an incremental weave keeping a
    /// class woven before. `None` when
    /// `previous` is not a zip or stored the entry with another method.
    pub fn like_reused(
        compression: Compression,
        from: &Archive,
        index: usize,
        previous: &Archive,
        previous_index: usize,
    ) -> Result<Option<PreparedEntry>, ArchiveError> {
        let name = output_name(from, from.entry(index)?).to_owned();
        let meta = EntryMeta::like(from, index)?.compressed(compression);
        Self::reused(name, meta, previous, previous_index)
    }

    /// What [`new`](Self::new) prepares for a zip output, taken from entry
    /// `previous_index` of `previous` as [`like_reused`](Self::like_reused)
    /// does.
    pub fn new_reused(
        compression: Compression,
        name: &str,
        previous: &Archive,
        previous_index: usize,
    ) -> Result<Option<PreparedEntry>, ArchiveError> {
        let meta = EntryMeta::new().compressed(compression);
        Self::reused(name.to_owned(), meta, previous, previous_index)
    }

    fn reused(
        name: String,
        meta: EntryMeta,
        previous: &Archive,
        previous_index: usize,
    ) -> Result<Option<PreparedEntry>, ArchiveError> {
        let crate::Source::Zip(zip) = &previous.source else {
            return Ok(None);
        };
        let entry = previous.entry(previous_index)?;
        if entry.is_dir {
            return Ok(None);
        }
        let raw = zip.raw_entry(previous.path(), previous_index, &entry.name)?;
        let Some(encoded) = Encoded::reused(&raw, meta) else {
            return Ok(None);
        };
        let reused = Reused {
            encoded,
            map: zip.mapping().clone(),
            data_at: raw.data_at,
            data_end: raw.data_at + raw.data.len(),
        };
        Ok(Some(PreparedEntry {
            name,
            kind: OutputKind::Zip,
            body: Prepared::Reused(Box::new(reused)),
        }))
    }

    fn with_meta(
        kind: OutputKind,
        name: String,
        data: Cow<'_, [u8]>,
        meta: EntryMeta,
    ) -> PreparedEntry {
        let body = match kind {
            OutputKind::Directory => Prepared::Plain(data.into_owned(), meta.file_mode),
            OutputKind::Zip => Prepared::Zip(Encoded::new_owned(&name, data, meta)),
        };
        PreparedEntry { name, kind, body }
    }

    /// The entry's name in the output.
    pub fn name(&self) -> &str {
        &self.name
    }
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
        // A class entry this large must start like a class file to be read.
        let big: Vec<u8> = [0xCA, 0xFE, 0xBA, 0xBE]
            .into_iter()
            .chain((0..200_000u32).flat_map(|i| (i % 251).to_le_bytes()))
            .collect();
        let news: Vec<(&str, Vec<u8>)> = vec![
            ("p/New.class", b"new class".to_vec()),
            ("p/Grö\u{df}e.class", b"non-ASCII name".to_vec()),
            ("p/Big.class", big),
            ("p/Empty.class", Vec::new()),
            ("p/sub/", Vec::new()),
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
                        s.spawn(move || {
                            PreparedEntry::like(kind, Compression::Deflate, from, i, changed)
                                .unwrap()
                        })
                    })
                    .collect();
                let new: Vec<_> = news
                    .iter()
                    .map(|(n, d)| {
                        s.spawn(move || PreparedEntry::new(kind, Compression::Deflate, n, d))
                    })
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

            if kind == OutputKind::Zip {
                // The same compressor on every thread: the same bytes.
                assert!(
                    std::fs::read(&direct).unwrap() == std::fs::read(&prepared).unwrap(),
                    "prepared and direct zip outputs differ"
                );
            }
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

    /// Entries reused from a zip written earlier (an incremental weave's kept
    /// classes) give the bytes fresh ones give, stored or deflated, even when
    /// the new zip replaces the earlier one while its mapping is read: their
    /// bytes are written from the earlier zip's mapping.
    #[test]
    fn reused_entries_write_what_fresh_ones_would() {
        let dir = tempfile::tempdir().unwrap();
        let from = Archive::open(&input(dir.path())).unwrap();
        let woven = b"\xCA\xFE\xBA\xBE woven".to_vec();
        for compression in [Compression::Deflate, Compression::Store] {
            let path = dir.path().join("out.jar");
            let write_fresh = |path: &std::path::Path| {
                let mut out = OutputArchive::create(path, OutputKind::Zip).unwrap();
                for i in 0..from.entries().len() {
                    let e = PreparedEntry::like(OutputKind::Zip, compression, &from, i, &woven);
                    out.write_prepared(e.unwrap()).unwrap();
                    let extra = format!("p/Extra{i}.class");
                    let e = PreparedEntry::new(OutputKind::Zip, compression, &extra, &woven[..]);
                    out.write_prepared(e).unwrap();
                }
                out.finish().unwrap();
            };
            write_fresh(&path);
            let fresh = std::fs::read(&path).unwrap();
            // Written again over itself, every entry reused.
            let previous = Archive::open(&path).unwrap();
            let mut out = OutputArchive::create(&path, OutputKind::Zip).unwrap();
            for i in 0..from.entries().len() {
                let k = previous.find(&from.entries()[i].name).unwrap();
                let e = PreparedEntry::like_reused(compression, &from, i, &previous, k);
                out.write_prepared(e.unwrap().expect("reusable")).unwrap();
                let extra = format!("p/Extra{i}.class");
                let k = previous.find(&extra).unwrap();
                let e = PreparedEntry::new_reused(compression, &extra, &previous, k);
                out.write_prepared(e.unwrap().expect("reusable")).unwrap();
            }
            out.finish().unwrap();
            assert!(
                std::fs::read(&path).unwrap() == fresh,
                "{compression:?}: reused entries differ from fresh ones"
            );
            // Another method than the one asked for: not reusable.
            let other = match compression {
                Compression::Deflate => Compression::Store,
                Compression::Store => Compression::Deflate,
            };
            let previous = Archive::open(&path).unwrap();
            let k = previous.find("p/Extra0.class").unwrap();
            let e = PreparedEntry::new_reused(other, "p/Extra0.class", &previous, k).unwrap();
            assert!(e.is_none(), "{compression:?}: reused with another method");
        }
    }

    /// Stored entries: new and changed ones are written as they are, with
    /// their CRC, whatever the original's method; the contents read back.
    #[test]
    fn stored_entries_are_stored() {
        let dir = tempfile::tempdir().unwrap();
        let from = Archive::open(&input(dir.path())).unwrap();
        let changed = b"\xCA\xFE\xBA\xBE woven, and longer than before".to_vec();
        let path = dir.path().join("stored.jar");
        let mut out = OutputArchive::create(&path, OutputKind::Zip).unwrap();
        for i in 0..from.entries().len() {
            let e = PreparedEntry::like(OutputKind::Zip, Compression::Store, &from, i, &changed);
            out.write_prepared(e.unwrap()).unwrap();
        }
        let owned = vec![7u8; 5000];
        let e = PreparedEntry::new(OutputKind::Zip, Compression::Store, "p/N.class", owned);
        out.write_prepared(e).unwrap();
        out.finish().unwrap();
        let mut z = zip_of(&path);
        assert_eq!(z.len(), 3);
        for i in 0..z.len() {
            let x = z.by_index_raw(i).unwrap();
            assert_eq!(x.compression(), CompressionMethod::Stored, "entry {i}");
        }
        let back = Archive::open(&path).unwrap();
        assert_eq!(&*back.read(0).unwrap(), &changed[..]);
        assert_eq!(&*back.read(2).unwrap(), &[7u8; 5000][..]);
        // The original's time and mode are kept.
        let x = z.by_index_raw(0).unwrap();
        assert_eq!(x.unix_mode().map(|m| m & 0o7777), Some(0o600));
    }

    fn zip_of(path: &std::path::Path) -> zip::ZipArchive<std::fs::File> {
        zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap()
    }

    #[test]
    fn deflate_round_trips_with_a_reused_compressor() {
        for data in [&b""[..], b"a", &[7u8; 100_000], b"class file bytes"] {
            let d = crate::zip_output::deflate(data).unwrap();
            let mut out = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::DeflateDecoder::new(&d[..]), &mut out)
                .unwrap();
            assert_eq!(out, data);
        }
    }
}
