//! The zip writer of [`OutputArchive`](crate::OutputArchive).
//!
//! For each entry it writes a local file header and the entry's data, as they
//! are (already deflated, or stored), and appends the entry's central
//! directory record to a buffer; [`ZipOutput::finish`] writes that central
//! directory and the end-of-central-directory record. Sizes and CRC-32 are
//! always known before an entry is written, so there are no data descriptors.
//! Zip64 fields are written only where the classic ones do not fit: a zip64
//! extra field in the local header of an entry of 4 GiB or more (both sizes),
//! one in the central record holding whichever of the sizes and the local
//! header offset do not fit in 32 bits, and the zip64 end record and locator
//! when there are more than 65,534 entries or the central directory's size or
//! offset does not fit (the classic end record then holds `0xFFFF` /
//! `0xFFFFFFFF` in those fields).
//!
//! Every entry is "made by" Unix (zip 2.0, or 4.5 with zip64 fields), with
//! its Unix mode in the upper half of the external attributes, and flag bit
//! 11 (UTF-8) when its name is not ASCII.
//!
//! This replaces the `zip` crate's `ZipWriter`, which cost about a tenth of a
//! weave's CPU time: entries compressed ahead of time on worker threads could
//! only be handed to it as one-entry zips, which it parsed again
//! (`ZipArchive::new`, then `raw_copy_file`); it kept a growing map of
//! per-entry metadata; and it set up a new deflate encoder, with its large
//! zeroed state, for every entry it compressed. Here an entry costs its two
//! headers and a copy of its bytes. New entries are deflated by
//! [`Encoded::new`], with one libdeflate compressor per thread, whether on a
//! worker thread ([`PreparedEntry`](crate::PreparedEntry)) or by a direct
//! write, so that both give the same bytes.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufWriter, Seek, Write};

use libdeflater::{CompressionLvl, Compressor};

use crate::output::EntryMeta;

/// Compression method: stored.
pub(crate) const STORED: u16 = 0;
/// Compression method: deflated.
pub(crate) const DEFLATED: u16 = 8;

/// Unix file types, in a mode.
pub(crate) const S_IFMT: u32 = 0o170_000;
/// A regular file.
pub(crate) const S_IFREG: u32 = 0o100_000;
/// A directory.
pub(crate) const S_IFDIR: u32 = 0o040_000;

/// General purpose flag bit 3: sizes and CRC in a data descriptor after the
/// data. Never written.
const DATA_DESCRIPTOR: u16 = 0x0008;
/// General purpose flag bit 11: the name is UTF-8.
pub(crate) const UTF8: u16 = 0x0800;

const LOCAL_HEADER: u32 = 0x0403_4b50;
const CENTRAL_HEADER: u32 = 0x0201_4b50;
const END: u32 = 0x0605_4b50;
const ZIP64_END: u32 = 0x0606_4b50;
const ZIP64_LOCATOR: u32 = 0x0706_4b50;
/// The header ID of the zip64 extended information extra field.
const ZIP64_EXTRA: u16 = 0x0001;

/// What a 32-bit field holds when the value is in a zip64 field; values from
/// it up do not fit.
const MARK32: u64 = 0xFFFF_FFFF;
/// The same for the entry counts of the end record.
const MARK16: u64 = 0xFFFF;

/// Version needed to extract: 2.0 (deflate, directories).
pub(crate) const VERSION_DEFAULT: u16 = 20;
/// Version needed to extract: 4.5 (zip64).
const VERSION_ZIP64: u16 = 45;
/// "Version made by", upper byte: Unix.
const MADE_BY_UNIX: u16 = 3 << 8;
/// The MS-DOS directory attribute, in the low byte of the external attributes.
const DOS_DIRECTORY: u32 = 0x10;

/// The size of the output buffer.
const BUFFER: usize = 256 << 10;

/// The header fields of an entry.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Header<'a> {
    /// The name (directories end with `/`).
    pub(crate) name: &'a str,
    /// General purpose flags. Bit 3 (data descriptor) is cleared; bit 11
    /// (UTF-8) is added for a non-ASCII name.
    pub(crate) flags: u16,
    /// The compression method of the data.
    pub(crate) method: u16,
    /// Version needed to extract: at least [`VERSION_DEFAULT`], raised to 4.5
    /// when the entry has zip64 fields.
    pub(crate) version_needed: u16,
    /// MS-DOS modification time.
    pub(crate) time: u16,
    /// MS-DOS modification date.
    pub(crate) date: u16,
    /// CRC-32 of the uncompressed contents.
    pub(crate) crc: u32,
    /// Size of the uncompressed contents.
    pub(crate) size: u64,
    /// Unix mode, file type bits included.
    pub(crate) mode: u32,
    /// Extra field records to carry over from an input entry (a raw copy's
    /// extended timestamps, jar marker, ...), written in both headers. Zip64
    /// records among them are left out (the writer makes its own), and so is
    /// everything from a malformed record on.
    pub(crate) extra: &'a [u8],
}

/// The whole records of `extra` to copy: up to the first malformed one, zip64
/// records left out.
fn copied_records(extra: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 4 <= extra.len() {
        let id = u16::from_le_bytes([extra[at], extra[at + 1]]);
        let len = usize::from(u16::from_le_bytes([extra[at + 2], extra[at + 3]]));
        let Some(record) = extra.get(at..at + 4 + len) else {
            break;
        };
        if id != ZIP64_EXTRA {
            out.push(record);
        }
        at += 4 + len;
    }
    out
}

/// A new entry's contents as they go in the zip: deflated (by this thread's
/// libdeflate compressor, level 1) or stored, with the metadata its headers
/// carry. Directories (names ending with `/`) are stored, empty, mode 0755.
pub(crate) struct Encoded<'a> {
    bytes: Cow<'a, [u8]>,
    method: u16,
    crc: u32,
    size: u64,
    meta: EntryMeta,
    dir: bool,
}

impl<'a> Encoded<'a> {
    /// Encodes `data` as the contents of entry `name` with `meta`.
    pub(crate) fn new(name: &str, data: &'a [u8], meta: EntryMeta) -> io::Result<Encoded<'a>> {
        if name.ends_with('/') {
            return Ok(Encoded {
                bytes: Cow::Borrowed(&[]),
                method: STORED,
                crc: 0,
                size: 0,
                meta: EntryMeta {
                    mode: 0o755,
                    ..meta
                },
                dir: true,
            });
        }
        let (bytes, method) = if meta.deflated {
            (Cow::Owned(deflate(data)?), DEFLATED)
        } else {
            (Cow::Borrowed(data), STORED)
        };
        Ok(Encoded {
            bytes,
            method,
            crc: crc32fast::hash(data),
            size: data.len() as u64,
            meta,
            dir: false,
        })
    }

    /// Encodes `data` as [`new`](Self::new) does, into an entry owning its
    /// bytes: a stored entry takes `data` itself when it is owned.
    pub(crate) fn new_owned(
        name: &str,
        data: Cow<'_, [u8]>,
        meta: EntryMeta,
    ) -> io::Result<Encoded<'static>> {
        if meta.deflated || name.ends_with('/') {
            return Encoded::new(name, &data, meta).map(Encoded::into_owned);
        }
        let crc = crc32fast::hash(&data);
        Ok(Encoded {
            size: data.len() as u64,
            bytes: Cow::Owned(data.into_owned()),
            method: STORED,
            crc,
            meta,
            dir: false,
        })
    }

    /// The header fields of the entry this writer encoded in an earlier zip
    /// (`raw`: its stored bytes, CRC-32 and size) with `meta`, without the
    /// bytes, which are written from the earlier zip's mapping
    /// ([`crate::reused::Reused`]): `None` if it was stored with another
    /// method than `meta` asks for.
    pub(crate) fn reused(
        raw: &crate::zip_input::RawEntry<'_>,
        meta: EntryMeta,
    ) -> Option<Encoded<'static>> {
        let method = if meta.deflated { DEFLATED } else { STORED };
        (raw.method == method).then_some(Encoded {
            bytes: Cow::Borrowed(&[]),
            method,
            crc: raw.crc,
            size: raw.size,
            meta,
            dir: false,
        })
    }

    /// The same, owning its bytes.
    pub(crate) fn into_owned(self) -> Encoded<'static> {
        Encoded {
            bytes: Cow::Owned(self.bytes.into_owned()),
            ..self
        }
    }

    /// The headers of this entry under `name`.
    pub(crate) fn header<'n>(&self, name: &'n str) -> Header<'n> {
        let kind = if self.dir { S_IFDIR } else { S_IFREG };
        Header {
            name,
            flags: 0,
            method: self.method,
            version_needed: VERSION_DEFAULT,
            time: self.meta.time.timepart(),
            date: self.meta.time.datepart(),
            crc: self.crc,
            size: self.size,
            mode: kind | (self.meta.mode & 0o7777),
            extra: &[],
        }
    }

    /// The bytes that go in the zip.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
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
pub(crate) fn deflate(data: &[u8]) -> io::Result<Vec<u8>> {
    DEFLATER.with(|c| {
        let mut c = c.borrow_mut();
        let mut out = vec![0; c.deflate_compress_bound(data.len())];
        let n = c
            .deflate_compress(data, &mut out)
            .map_err(|e| io::Error::other(format!("cannot deflate the entry: {e:?}")))?;
        out.truncate(n);
        Ok(out)
    })
}

/// A zip being written (see the module documentation).
pub(crate) struct ZipOutput {
    out: BufWriter<File>,
    /// The file offset of the next local header.
    offset: u64,
    /// The central directory records of the entries written so far.
    central: Vec<u8>,
    /// How many entries were written.
    entries: u64,
    /// Scratch space for a local header.
    local: Vec<u8>,
}

fn put16(buf: &mut Vec<u8>, v: u16) {
    buf.extend_from_slice(&v.to_le_bytes());
}

fn put32(buf: &mut Vec<u8>, v: u32) {
    buf.extend_from_slice(&v.to_le_bytes());
}

fn put64(buf: &mut Vec<u8>, v: u64) {
    buf.extend_from_slice(&v.to_le_bytes());
}

/// `v` in a 32-bit field: itself, or the zip64 marker.
fn field32(v: u64) -> u32 {
    v.min(MARK32) as u32
}

impl ZipOutput {
    /// Starts a zip at the current position of `file` (normally its start;
    /// offsets in the zip are file offsets). The file may be longer than
    /// the zip (blocks reserved ahead, [`preallocate`](crate::preallocate)):
    /// it is cut where the zip ends when finished.
    pub(crate) fn new(mut file: File) -> io::Result<ZipOutput> {
        let offset = file.stream_position()?;
        Ok(ZipOutput {
            out: BufWriter::with_capacity(BUFFER, file),
            offset,
            central: Vec::new(),
            entries: 0,
            local: Vec::with_capacity(128),
        })
    }

    /// Appends an entry: its local header, then `data`, its contents as
    /// stored (compressed with `header.method`).
    pub(crate) fn add(&mut self, header: &Header<'_>, data: &[u8]) -> io::Result<()> {
        let name = header.name.as_bytes();
        let name_len = u16::try_from(name.len()).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "the entry name is longer than 65,535 bytes",
            )
        })?;
        let flags =
            (header.flags & !DATA_DESCRIPTOR) | if header.name.is_ascii() { 0 } else { UTF8 };
        let (size, compressed, offset) = (header.size, data.len() as u64, self.offset);
        // Zip64 in the local header: both sizes, if either does not fit.
        let local64 = size >= MARK32 || compressed >= MARK32;
        // Zip64 in the central record: whichever values do not fit, in this
        // order.
        let wide = [size, compressed, offset].map(|v| v >= MARK32);
        let central64 = wide.iter().filter(|&&w| w).count() as u16 * 8;
        // Records carried over from the input, if both headers can hold them.
        let mut copied = copied_records(header.extra);
        let copied_len: usize = copied.iter().map(|r| r.len()).sum();
        let local_extra = if local64 { 20 } else { 0 } + copied_len;
        let central_extra = if central64 > 0 {
            central64 as usize + 4
        } else {
            0
        } + copied_len;
        if local_extra.max(central_extra) > usize::from(u16::MAX) {
            copied.clear();
        }
        let copied_len = copied.iter().map(|r| r.len()).sum::<usize>() as u16;
        let version = if local64 || central64 > 0 {
            header.version_needed.max(VERSION_ZIP64)
        } else {
            header.version_needed.max(VERSION_DEFAULT)
        };

        let local = &mut self.local;
        local.clear();
        put32(local, LOCAL_HEADER);
        for v in [version, flags, header.method, header.time, header.date] {
            put16(local, v);
        }
        put32(local, header.crc);
        if local64 {
            put32(local, u32::MAX);
            put32(local, u32::MAX);
        } else {
            put32(local, compressed as u32);
            put32(local, size as u32);
        }
        put16(local, name_len);
        put16(local, if local64 { 20 } else { 0 } + copied_len);
        local.extend_from_slice(name);
        if local64 {
            put16(local, ZIP64_EXTRA);
            put16(local, 16);
            put64(local, size);
            put64(local, compressed);
        }
        for r in &copied {
            local.extend_from_slice(r);
        }
        self.out.write_all(local)?;
        self.out.write_all(data)?;
        self.offset += local.len() as u64 + compressed;

        let is_dir = header.mode & S_IFMT == S_IFDIR;
        let external = (header.mode << 16) | if is_dir { DOS_DIRECTORY } else { 0 };
        let extra_len = if central64 > 0 { central64 + 4 } else { 0 } + copied_len;
        let c = &mut self.central;
        put32(c, CENTRAL_HEADER);
        for v in [
            MADE_BY_UNIX | version,
            version,
            flags,
            header.method,
            header.time,
            header.date,
        ] {
            put16(c, v);
        }
        for v in [header.crc, field32(compressed), field32(size)] {
            put32(c, v);
        }
        // Name and extra field lengths, comment length, disk number, internal
        // attributes.
        for v in [name_len, extra_len, 0, 0, 0] {
            put16(c, v);
        }
        put32(c, external);
        put32(c, field32(offset));
        c.extend_from_slice(name);
        if central64 > 0 {
            put16(c, ZIP64_EXTRA);
            put16(c, central64);
            for (v, wide) in [size, compressed, offset].into_iter().zip(wide) {
                if wide {
                    put64(c, v);
                }
            }
        }
        for r in &copied {
            c.extend_from_slice(r);
        }
        self.entries += 1;
        Ok(())
    }

    /// Writes the central directory and the end records, and returns the
    /// file, flushed (not synced).
    pub(crate) fn finish(mut self) -> io::Result<File> {
        let (start, len, entries) = (self.offset, self.central.len() as u64, self.entries);
        self.out.write_all(&self.central)?;
        let mut end = Vec::with_capacity(56 + 20 + 22);
        if entries >= MARK16 || start >= MARK32 || len >= MARK32 {
            // The zip64 end of central directory record, right after the
            // central directory, and its locator.
            put32(&mut end, ZIP64_END);
            put64(&mut end, 44); // the size of the rest of the record
            put16(&mut end, MADE_BY_UNIX | VERSION_ZIP64);
            put16(&mut end, VERSION_ZIP64);
            put32(&mut end, 0); // this disk
            put32(&mut end, 0); // the disk where the central directory starts
            for v in [entries, entries, len, start] {
                put64(&mut end, v);
            }
            put32(&mut end, ZIP64_LOCATOR);
            put32(&mut end, 0); // the disk with the zip64 end record
            put64(&mut end, start + len);
            put32(&mut end, 1); // disks
        }
        put32(&mut end, END);
        put16(&mut end, 0); // this disk
        put16(&mut end, 0); // the disk where the central directory starts
        let count = entries.min(MARK16) as u16;
        put16(&mut end, count); // on this disk
        put16(&mut end, count); // in all
        put32(&mut end, field32(len));
        put32(&mut end, field32(start));
        // The comment that tells a later run major wrote this file.
        put16(&mut end, crate::ZIP_MARKER.len() as u16);
        end.extend_from_slice(crate::ZIP_MARKER);
        self.out.write_all(&end)?;
        let mut file = self
            .out
            .into_inner()
            .map_err(io::IntoInnerError::into_error)?;
        let end = file.stream_position()?;
        file.set_len(end)?;
        Ok(file)
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, SeekFrom};
    use std::path::{Path, PathBuf};
    use std::process::Command;

    use zip::write::SimpleFileOptions;
    use zip::{CompressionMethod, DateTime, ZipArchive};

    use super::*;
    use crate::{Archive, OutputArchive, OutputKind};

    const JAR: &str = "/usr/lib/jvm/java-17-openjdk-amd64/bin/jar";
    const UNZIP: &str = "/usr/bin/unzip";

    fn time(y: u16, mo: u8, d: u8, h: u8, mi: u8, s: u8) -> DateTime {
        DateTime::from_date_and_time(y, mo, d, h, mi, s).unwrap()
    }

    fn zip_of(path: &Path) -> ZipArchive<File> {
        ZipArchive::new(File::open(path).unwrap()).unwrap()
    }

    fn u16_at(bytes: &[u8], at: u64) -> u16 {
        let at = at as usize;
        u16::from_le_bytes([bytes[at], bytes[at + 1]])
    }

    fn u32_at(bytes: &[u8], at: u64) -> u32 {
        let at = at as usize;
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
    }

    /// A zip written by the `zip` crate: a deflated class (mode 0600), a
    /// stored text (0755), a directory (0750), each with its own time.
    fn input_jar(dir: &Path) -> PathBuf {
        let path = dir.join("in.jar");
        let mut z = zip::ZipWriter::new(File::create(&path).unwrap());
        let options = |method, mode, t| {
            let level = (method == CompressionMethod::Deflated).then_some(9);
            SimpleFileOptions::default()
                .compression_method(method)
                .compression_level(level)
                .unix_permissions(mode)
                .last_modified_time(t)
        };
        let text = "the quick brown fox jumps over the lazy dog\n".repeat(50);
        z.start_file(
            "p/Deflated.class",
            options(
                CompressionMethod::Deflated,
                0o600,
                time(2021, 3, 4, 5, 6, 8),
            ),
        )
        .unwrap();
        z.write_all(text.as_bytes()).unwrap();
        z.start_file(
            "p/Stored.txt",
            options(
                CompressionMethod::Stored,
                0o755,
                time(2019, 12, 31, 23, 59, 58),
            ),
        )
        .unwrap();
        z.write_all(b"stored as it is").unwrap();
        z.add_directory(
            "d/",
            options(
                CompressionMethod::Stored,
                0o750,
                time(2000, 2, 29, 12, 0, 0),
            ),
        )
        .unwrap();
        z.start_file(
            "p/Gr\u{fc}\u{df}e.txt",
            options(
                CompressionMethod::Deflated,
                0o644,
                time(2022, 1, 2, 3, 4, 6),
            ),
        )
        .unwrap();
        z.write_all(text.as_bytes()).unwrap();
        z.finish().unwrap();
        path
    }

    /// What an entry read back should be.
    struct Expected {
        name: &'static str,
        method: CompressionMethod,
        mode: u32,
        time: DateTime,
        contents: Vec<u8>,
    }

    /// An output using every way of writing an entry, and what it should
    /// hold.
    fn sample_output(dir: &Path) -> (PathBuf, Vec<Expected>) {
        let from = Archive::open(&input_jar(dir)).unwrap();
        let index = |name| from.find(name).unwrap();
        let target = dir.join("out.jar");
        let mut out = OutputArchive::create(&target, OutputKind::Zip).unwrap();
        out.write("META-INF/", b"ignored").unwrap();
        out.write("a/New.class", b"\xCA\xFE\xBA\xBE new class")
            .unwrap();
        out.write("a/Gr\u{fc}\u{df}e/Ma\u{df}.txt", b"non-ASCII name")
            .unwrap();
        out.write("a/empty.bin", b"").unwrap();
        out.write_like(&from, index("p/Stored.txt"), b"changed, still stored")
            .unwrap();
        out.copy_raw(&from, index("p/Deflated.class")).unwrap();
        out.copy_raw(&from, index("d/")).unwrap();
        out.copy_raw(&from, index("p/Gr\u{fc}\u{df}e.txt")).unwrap();
        out.finish().unwrap();

        let text = "the quick brown fox jumps over the lazy dog\n"
            .repeat(50)
            .into_bytes();
        let new = DateTime::default();
        let e = |name, method, mode, time, contents: &[u8]| Expected {
            name,
            method,
            mode,
            time,
            contents: contents.to_vec(),
        };
        use CompressionMethod::{Deflated, Stored};
        let expected = vec![
            e("META-INF/", Stored, 0o40755, new, b""),
            e(
                "a/New.class",
                Deflated,
                0o100644,
                new,
                b"\xCA\xFE\xBA\xBE new class",
            ),
            e(
                "a/Gr\u{fc}\u{df}e/Ma\u{df}.txt",
                Deflated,
                0o100644,
                new,
                b"non-ASCII name",
            ),
            e("a/empty.bin", Deflated, 0o100644, new, b""),
            e(
                "p/Stored.txt",
                Stored,
                0o100755,
                time(2019, 12, 31, 23, 59, 58),
                b"changed, still stored",
            ),
            e(
                "p/Deflated.class",
                Deflated,
                0o100600,
                time(2021, 3, 4, 5, 6, 8),
                &text,
            ),
            e("d/", Stored, 0o40750, time(2000, 2, 29, 12, 0, 0), b""),
            e(
                "p/Gr\u{fc}\u{df}e.txt",
                Deflated,
                0o100644,
                time(2022, 1, 2, 3, 4, 6),
                &text,
            ),
        ];
        (target, expected)
    }

    #[test]
    fn outputs_read_back_by_the_zip_crate() {
        let dir = tempfile::tempdir().unwrap();
        let (path, expected) = sample_output(dir.path());
        let bytes = fs_read(&path);
        let mut zip = zip_of(&path);
        assert_eq!(zip.len(), expected.len());
        for (i, want) in expected.iter().enumerate() {
            let mut file = zip.by_index(i).unwrap();
            assert_eq!(file.name().unwrap(), want.name, "entry {i}");
            let name = want.name;
            assert_eq!(file.is_dir(), name.ends_with('/'), "{name}");
            assert_eq!(file.compression(), want.method, "{name}");
            assert_eq!(file.unix_mode(), Some(want.mode), "{name}");
            assert_eq!(file.last_modified(), Some(want.time), "{name}");
            assert_eq!(file.size(), want.contents.len() as u64, "{name}");
            assert_eq!(file.crc32(), crc32fast::hash(&want.contents), "{name}");
            // Reading to the end checks the CRC-32 too.
            let mut contents = Vec::new();
            file.read_to_end(&mut contents).unwrap();
            assert_eq!(contents, want.contents, "{name}");
            // Flag bit 11 in both headers exactly for the non-ASCII names.
            let utf8 = !name.is_ascii();
            let central = file.central_header_start();
            let local = file.header_start();
            assert_eq!(u32_at(&bytes, central), CENTRAL_HEADER);
            assert_eq!(u32_at(&bytes, local), LOCAL_HEADER);
            assert_eq!(u16_at(&bytes, central + 8) & UTF8 != 0, utf8, "{name}");
            assert_eq!(u16_at(&bytes, local + 6) & UTF8 != 0, utf8, "{name}");
            // Made by Unix, zip 2.0; no data descriptor.
            assert_eq!(u16_at(&bytes, central + 4), 0x0314, "{name}");
            assert_eq!(u16_at(&bytes, local + 6) & DATA_DESCRIPTOR, 0, "{name}");
        }
        // No zip64 end records in a small zip: the end record follows the
        // central directory.
        let end = bytes.len() as u64 - 22 - crate::ZIP_MARKER.len() as u64;
        assert_eq!(u32_at(&bytes, end), END);
        let (len, start) = (u32_at(&bytes, end + 12), u32_at(&bytes, end + 16));
        assert_eq!(u64::from(start) + u64::from(len), end);
        assert_eq!(u16_at(&bytes, end + 10), expected.len() as u16);
        // The archive comment marks the file as major's own.
        assert_eq!(u16_at(&bytes, end + 20), crate::ZIP_MARKER.len() as u16);
        assert_eq!(&bytes[end as usize + 22..], crate::ZIP_MARKER);
    }

    fn fs_read(path: &Path) -> Vec<u8> {
        std::fs::read(path).unwrap()
    }

    #[test]
    fn unzip_tests_an_output() {
        if !Path::new(UNZIP).exists() {
            eprintln!("skipping the unzip check: {UNZIP} does not exist");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let (path, expected) = sample_output(dir.path());
        let run = Command::new(UNZIP).arg("-t").arg(&path).output().unwrap();
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(stdout.contains("No errors detected"), "{stdout}");
        let tested = stdout
            .lines()
            .filter(|l| l.trim_start().starts_with("testing:"));
        assert_eq!(tested.count(), expected.len(), "{stdout}");
    }

    /// 70,000 entries: more than the classic end record can count.
    #[test]
    fn zip64_by_entry_count() {
        const COUNT: usize = 70_000;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("many.jar");
        let name = |i: usize| format!("e/{i:05}.txt");
        let mut out = OutputArchive::create(&path, OutputKind::Zip).unwrap();
        for i in 0..COUNT {
            out.write(&name(i), i.to_string().as_bytes()).unwrap();
        }
        out.finish().unwrap();

        // The classic end record says "see zip64", and the locator points at
        // the zip64 end record, which holds the count.
        let bytes = fs_read(&path);
        let end = bytes.len() as u64 - 22 - crate::ZIP_MARKER.len() as u64;
        assert_eq!(u32_at(&bytes, end), END);
        assert_eq!(u16_at(&bytes, end + 8), 0xFFFF);
        assert_eq!(u16_at(&bytes, end + 10), 0xFFFF);
        assert_eq!(u32_at(&bytes, end - 20), ZIP64_LOCATOR);
        let end64 = u64::from_le_bytes(
            bytes[end as usize - 12..end as usize - 4]
                .try_into()
                .unwrap(),
        );
        assert_eq!(u32_at(&bytes, end64), ZIP64_END);
        assert_eq!(u32_at(&bytes, end64 + 32), COUNT as u32);

        let mut zip = zip_of(&path);
        assert_eq!(zip.len(), COUNT);
        for i in 0..COUNT {
            assert_eq!(zip.by_index_data(i).unwrap().name_raw(), name(i).as_bytes());
        }
        for i in [0, 65_534, 65_535, 65_536, COUNT - 1] {
            let mut contents = String::new();
            zip.by_index(i)
                .unwrap()
                .read_to_string(&mut contents)
                .unwrap();
            assert_eq!(contents, i.to_string());
        }
        drop(zip);
        let ours = Archive::open(&path).unwrap();
        assert_eq!(ours.entries().len(), COUNT);
        assert_eq!(
            &*ours.read(COUNT - 1).unwrap(),
            (COUNT - 1).to_string().as_bytes()
        );

        if Path::new(JAR).exists() {
            let run = Command::new(JAR).arg("tf").arg(&path).output().unwrap();
            let stdout = String::from_utf8_lossy(&run.stdout);
            assert!(
                run.status.success(),
                "{}",
                String::from_utf8_lossy(&run.stderr)
            );
            let lines: Vec<&str> = stdout.lines().collect();
            assert_eq!(lines.len(), COUNT);
            assert_eq!(lines[0], name(0));
            assert_eq!(lines[COUNT - 1], name(COUNT - 1));
        } else {
            eprintln!("skipping the `jar tf` check: {JAR} does not exist");
        }
        if Path::new(UNZIP).exists() {
            let run = Command::new(UNZIP).arg("-tq").arg(&path).output().unwrap();
            let stdout = String::from_utf8_lossy(&run.stdout);
            assert!(run.status.success(), "{stdout}");
            assert!(stdout.contains("No errors detected"), "{stdout}");
        } else {
            eprintln!("skipping the unzip check: {UNZIP} does not exist");
        }
    }

    /// An entry of a zip as the `zip` crate sees it, with its data as stored.
    #[derive(Debug, PartialEq)]
    struct RawRead {
        name: String,
        data: Vec<u8>,
        crc: u32,
        method: CompressionMethod,
        time: Option<DateTime>,
        mode: Option<u32>,
    }

    /// The entries of a zip, with their data as stored.
    fn raw_entries(path: &Path) -> Vec<RawRead> {
        let bytes = fs_read(path);
        let mut zip = zip_of(path);
        (0..zip.len())
            .map(|i| {
                let file = zip.by_index_raw(i).unwrap();
                let start = file.data_start().unwrap() as usize;
                RawRead {
                    name: file.name().unwrap().into_owned(),
                    data: bytes[start..start + file.compressed_size() as usize].to_vec(),
                    crc: file.crc32(),
                    method: file.compression(),
                    time: file.last_modified(),
                    mode: file.unix_mode(),
                }
            })
            .collect()
    }

    /// Raw copies keep the compressed bytes (deflated by zlib at level 9 here,
    /// which libdeflate would not reproduce), the CRC and the method, even one
    /// we cannot decompress.
    /// A raw copy carries the local header's extra field records over (here
    /// extended timestamps), in both headers; the zip64 records are the
    /// writer's own.
    #[test]
    fn copy_raw_keeps_extra_fields() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("extra.jar");
        let mut z = zip::ZipWriter::new(File::create(&input).unwrap());
        let mut marked = zip::write::FullFileOptions::default();
        marked
            .add_extra_field(0x5455, [1, 1, 2, 3, 4], false)
            .unwrap();
        z.add_directory("META-INF/", marked).unwrap();
        let mut stamped = zip::write::FullFileOptions::default();
        stamped
            .add_extra_field(0x5455, [1, 0x10, 0x20, 0x30, 0x40], false)
            .unwrap();
        z.start_file("p/A.class", stamped).unwrap();
        z.write_all(b"\xCA\xFE\xBA\xBE with an extended timestamp")
            .unwrap();
        z.start_file("p/B.class", SimpleFileOptions::default())
            .unwrap();
        z.write_all(b"no extra field").unwrap();
        z.finish().unwrap();

        let from = Archive::open(&input).unwrap();
        let target = dir.path().join("copy.jar");
        let mut out = OutputArchive::create(&target, OutputKind::Zip).unwrap();
        for i in 0..from.entries().len() {
            out.copy_raw(&from, i).unwrap();
        }
        out.finish().unwrap();

        let bytes = fs_read(&target);
        let zip = zip_of(&target);
        let extras = |i: usize| {
            let f = zip.by_index_data(i).unwrap();
            let (local, central) = (f.header_start(), f.central_header_start());
            let name = u16_at(&bytes, local + 26) as u64;
            let len = u16_at(&bytes, local + 28) as usize;
            let at = (local + 30 + name) as usize;
            let local_extra = bytes[at..at + len].to_vec();
            let name = u16_at(&bytes, central + 28) as u64;
            let len = u16_at(&bytes, central + 30) as usize;
            let at = (central + 46 + name) as usize;
            (local_extra, bytes[at..at + len].to_vec())
        };
        let (dir_local, dir_central) = extras(0);
        assert_eq!(dir_local, [0x55, 0x54, 5, 0, 1, 1, 2, 3, 4]);
        assert_eq!(dir_central, dir_local);
        let ut = vec![0x55, 0x54, 5, 0, 1, 0x10, 0x20, 0x30, 0x40];
        assert_eq!(extras(1), (ut.clone(), ut));
        assert_eq!(extras(2), (Vec::new(), Vec::new()));
        // The copy reads back, contents and all.
        let copy = Archive::open(&target).unwrap();
        assert_eq!(
            &*copy.read(1).unwrap(),
            b"\xCA\xFE\xBA\xBE with an extended timestamp"
        );
        // A zip64 record among the extras is not copied (the writer makes its own).
        let with_zip64 = [1, 0, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0x55, 0x54, 1, 0, 1];
        assert_eq!(copied_records(&with_zip64), vec![&with_zip64[12..]]);
        // A malformed record ends what is copied.
        assert_eq!(copied_records(&[0x55, 0x54, 9, 0, 1]), Vec::<&[u8]>::new());
    }

    #[test]
    fn copy_raw_keeps_compressed_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let input = input_jar(dir.path());
        // Make p/Stored.txt a bzip2 entry (method 12), in both headers.
        let mut bytes = fs_read(&input);
        let (local, central) = {
            let zip = zip_of(&input);
            let i = zip.index_for_name("p/Stored.txt").unwrap();
            let file = zip.by_index_data(i).unwrap();
            (file.header_start(), file.central_header_start())
        };
        bytes[local as usize + 8] = 12;
        bytes[central as usize + 10] = 12;
        std::fs::write(&input, &bytes).unwrap();

        let from = Archive::open(&input).unwrap();
        let target = dir.path().join("copy.jar");
        let mut out = OutputArchive::create(&target, OutputKind::Zip).unwrap();
        for i in 0..from.entries().len() {
            out.copy_raw(&from, i).unwrap();
        }
        out.finish().unwrap();

        let (a, b) = (raw_entries(&input), raw_entries(&target));
        assert_eq!(a.len(), 4);
        assert_eq!(a, b);
        let copied = fs_read(&target);
        let zip = zip_of(&target);
        let central = zip.by_index_data(1).unwrap().central_header_start();
        assert_eq!(u16_at(&copied, central + 10), 12);
        assert_eq!(a[1].data, b"stored as it is");
        assert!(a[0].data.len() < 200, "deflated: {} bytes", a[0].data.len());
        // Recompressing would not give the same bytes.
        let text = "the quick brown fox jumps over the lazy dog\n".repeat(50);
        assert_ne!(deflate(text.as_bytes()).unwrap(), a[0].data);
    }

    /// A raw deflate stream of `mib` MiB of zeros (a block of one MiB,
    /// flushed to a byte boundary, repeated, then an empty final block), its
    /// size and its CRC-32.
    fn zeros_deflated(mib: u64) -> (Vec<u8>, u64, u32) {
        let chunk = vec![0u8; 1 << 20];
        let mut c = flate2::Compress::new(flate2::Compression::fast(), false);
        let mut block = Vec::with_capacity(256 << 10);
        c.compress_vec(&chunk, &mut block, flate2::FlushCompress::Sync)
            .unwrap();
        assert_eq!(c.total_in(), 1 << 20);
        let mut stream = Vec::with_capacity(block.len() * mib as usize + 2);
        for _ in 0..mib {
            stream.extend_from_slice(&block);
        }
        stream.extend_from_slice(&[0x03, 0x00]);
        let mut one = crc32fast::Hasher::new();
        one.update(&chunk);
        let mut crc = crc32fast::Hasher::new();
        for _ in 0..mib {
            crc.combine(&one);
        }
        (stream, mib << 20, crc.finalize())
    }

    #[test]
    fn zeros_deflated_inflates_to_zeros() {
        let (stream, size, crc) = zeros_deflated(3);
        let mut out = Vec::new();
        flate2::read::DeflateDecoder::new(&stream[..])
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out.len() as u64, size);
        assert!(out.iter().all(|&b| b == 0));
        assert_eq!(crc32fast::hash(&out), crc);
    }

    /// Zip64 fields for an offset and a size past 4 GiB: a sparse file whose
    /// entries start past 4 GiB, one of them inflating to more than 4 GiB;
    /// then a raw copy of both to an ordinary output.
    #[test]
    fn zip64_by_offset_and_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.zip");
        let base = (1u64 << 32) + 100;
        let mut file = File::create(&path).unwrap();
        file.seek(SeekFrom::Start(base)).unwrap();
        let mut z = ZipOutput::new(file).unwrap();
        let small = Encoded::new("small.txt", b"small", EntryMeta::new()).unwrap();
        z.add(&small.header("small.txt"), small.bytes()).unwrap();
        let (stream, size, crc) = zeros_deflated(4097);
        assert!(size > MARK32);
        let when = time(2024, 5, 6, 7, 8, 10);
        let header = Header {
            name: "zeros.bin",
            flags: 0,
            method: DEFLATED,
            version_needed: VERSION_DEFAULT,
            time: when.timepart(),
            date: when.datepart(),
            crc,
            size,
            mode: S_IFREG | 0o640,
            extra: &[],
        };
        z.add(&header, &stream).unwrap();
        z.finish().unwrap();

        let check = |path: &Path, first: u64| {
            let bytes = fs_read_at_least(path);
            let mut zip = zip_of(path);
            assert_eq!(zip.len(), 2);
            let mut contents = String::new();
            let mut file = zip.by_index(0).unwrap();
            assert_eq!(file.header_start(), first);
            file.read_to_string(&mut contents).unwrap();
            assert_eq!(contents, "small");
            drop(file);
            let file = zip.by_index_raw(1).unwrap();
            assert_eq!(file.name().unwrap(), "zeros.bin");
            assert_eq!(file.size(), size);
            assert_eq!(file.compressed_size(), stream.len() as u64);
            assert_eq!(file.crc32(), crc);
            assert_eq!(file.last_modified(), Some(when));
            assert_eq!(file.unix_mode(), Some(S_IFREG | 0o640));
            let local = file.header_start();
            let start = file.data_start().unwrap();
            drop(file);
            // The local header has the zip64 sizes.
            let local_header = bytes(local, 30 + 9 + 20);
            assert_eq!(u32_at(&local_header, 18), u32::MAX);
            assert_eq!(u32_at(&local_header, 22), u32::MAX);
            assert_eq!(u16_at(&local_header, 28), 20);
            assert_eq!(u16_at(&local_header, 30 + 9), ZIP64_EXTRA);
            assert!(bytes(start, stream.len()) == stream, "the data differs");
            // Inflating the start works.
            let mut head = Vec::new();
            zip.by_index(1)
                .unwrap()
                .take(1 << 20)
                .read_to_end(&mut head)
                .unwrap();
            assert_eq!(head.len(), 1 << 20);
            assert!(head.iter().all(|&b| b == 0));
        };
        check(&path, base);

        if Path::new(UNZIP).exists() {
            // Tests the small entry only: inflating 4 GiB takes too long.
            let run = Command::new(UNZIP)
                .arg("-tq")
                .arg(&path)
                .arg("small.txt")
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&run.stdout);
            assert!(run.status.success(), "{stdout}");
        } else {
            eprintln!("skipping the unzip check: {UNZIP} does not exist");
        }

        // A raw copy to an ordinary zip: offsets fit, the size does not.
        let from = Archive::open(&path).unwrap();
        assert_eq!(from.entries()[1].size, size);
        let copy = dir.path().join("copy.jar");
        let mut out = OutputArchive::create(&copy, OutputKind::Zip).unwrap();
        out.copy_raw(&from, 0).unwrap();
        out.copy_raw(&from, 1).unwrap();
        out.finish().unwrap();
        let len = std::fs::metadata(&copy).unwrap().len();
        assert!(len < stream.len() as u64 + 1000, "{len} bytes");
        check(&copy, 0);
        if Path::new(UNZIP).exists() {
            let run = Command::new(UNZIP).arg("-l").arg(&copy).output().unwrap();
            let stdout = String::from_utf8_lossy(&run.stdout);
            assert!(run.status.success(), "{stdout}");
            assert!(stdout.contains(&size.to_string()), "{stdout}");
        }
    }

    /// A reader of byte ranges of a (possibly huge, sparse) file.
    fn fs_read_at_least(path: &Path) -> impl Fn(u64, usize) -> Vec<u8> {
        let path = path.to_path_buf();
        move |at, len| {
            let mut file = File::open(&path).unwrap();
            file.seek(SeekFrom::Start(at)).unwrap();
            let mut buf = vec![0; len];
            file.read_exact(&mut buf).unwrap();
            buf
        }
    }
}
