//! Zip and jmod inputs, read in place from a memory mapping: the central
//! directory of a plain zip by [`central`], anything else by the `zip` crate.

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::{Cursor, Read};
use std::path::Path;
use std::sync::Arc;

use memmap2::Mmap;
use zip::result::ZipError;
use zip::{CompressionMethod, ZipArchive};

use crate::central::{self, Method, Record};
use crate::{ArchiveError, ArchiveKind, Entry};

/// The largest class entry read, declared or actual uncompressed size: no
/// JVM loads a class file anywhere near it, and a hostile archive must not
/// make major inflate gigabytes (zero-filled deflate data shrinks about
/// 1000:1).
pub const MAX_CLASS_SIZE: u64 = 256 << 20;

/// The first bytes of every class file.
const CLASS_MAGIC: [u8; 4] = [0xCA, 0xFE, 0xBA, 0xBE];

/// How many bytes of large entries are inflated at once across all threads
/// (see [`InflateBudget`]).
const INFLATE_BUDGET: u64 = 512 << 20;

/// Entries up to this size are inflated without asking the budget.
const SMALL_ENTRY: u64 = 8 << 20;

/// Class entries larger than this must start with [`CLASS_MAGIC`], checked
/// before they are inflated whole; smaller ones are read as they are and
/// judged by the class-file parser.
const MAGIC_CHECKED: u64 = 64 << 10;

/// The mapped bytes of a zip, from `start` (4 for a jmod, past its header)
/// to the end of the file. Cloning shares the mapping.
#[derive(Clone)]
pub(crate) struct MapSlice {
    map: Arc<Mmap>,
    start: usize,
}

impl AsRef<[u8]> for MapSlice {
    fn as_ref(&self) -> &[u8] {
        // `start` is checked against the length when the slice is made.
        self.map.get(self.start..).unwrap_or_default()
    }
}

/// The reader handed to the `zip` crate: a cursor over the mapping.
pub(crate) type MapReader = Cursor<MapSlice>;

/// An opened zip or jmod.
pub(crate) struct ZipInput {
    /// What major asks of each entry, in central-directory order.
    records: Vec<Record>,
    /// The `zip` crate's index: built on open for a zip that is not plain
    /// ([`central::read`]), else only if an entry needs the crate (a
    /// compression method other than stored and deflated). Cloning it is
    /// cheap (the metadata is shared); each clone has its own cursor.
    zip: std::sync::OnceLock<Result<ZipArchive<MapReader>, String>>,
    /// Entry names (their hashes, [`name_key`]) to indices, built from the
    /// listed names on the first lookup by name; `u32::MAX` where two names
    /// share a hash.
    by_name: std::sync::OnceLock<rustc_hash::FxHashMap<u64, u32>>,
    /// The same bytes, to return stored entries borrowed.
    data: MapSlice,
}

/// The key of an entry name in [`ZipInput::by_name`].
fn name_key(name: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(name)
}

/// The `zip` crate's index of `data`.
fn crate_index(data: &MapSlice) -> Result<ZipArchive<MapReader>, ZipError> {
    ZipArchive::new(Cursor::new(data.clone()))
}

/// The fields of an entry of the `zip` crate's index.
fn record_of(file: &zip::read::ZipFileEntry<'_>) -> Record {
    Record {
        central_at: file.central_header_start(),
        local_at: file.header_start(),
        compressed: file.compressed_size(),
        size: file.size(),
        crc: file.crc32(),
        method: match file.compression() {
            CompressionMethod::Stored => Method::Stored,
            CompressionMethod::Deflated => Method::Deflated,
            _ => Method::Other,
        },
        encrypted: file.encrypted(),
        mode: file.unix_mode(),
        time: file.last_modified(),
    }
}

/// Opens the zip in `map[start..]`, listing its entries.
pub(crate) fn open(
    path: &Path,
    map: Mmap,
    start: usize,
    kind: ArchiveKind,
) -> Result<(ZipInput, Vec<Entry>), ArchiveError> {
    let start = start.min(map.len());
    let data = MapSlice {
        map: Arc::new(map),
        start,
    };
    let duplicate = |name: Option<String>| {
        let detail = match &name {
            Some(name) => format!("the zip directory lists `{name}` more than once"),
            None => "the zip directory lists an entry name more than once".to_owned(),
        };
        ArchiveError::corrupt(path, name.as_deref(), detail)
    };
    match central::read(data.as_ref()) {
        Ok(listed) => {
            let bytes = data.as_ref();
            let mut records = Vec::with_capacity(listed.len());
            let mut entries = Vec::with_capacity(listed.len());
            for l in listed {
                // (UTF-8: checked by the read.)
                let name = String::from_utf8_lossy(&bytes[l.name]).into_owned();
                let is_dir = central::is_dir(&name);
                entries.push(Entry::new(name, is_dir, l.record.size, kind));
                records.push(l.record);
            }
            let input = ZipInput {
                records,
                zip: std::sync::OnceLock::new(),
                by_name: std::sync::OnceLock::new(),
                data,
            };
            return Ok((input, entries));
        }
        Err(central::NotRead::Duplicate(name)) => return Err(duplicate(Some(name))),
        Err(central::NotRead::NotPlain) => {}
    }
    // Not a plain zip: the `zip` crate reads it.
    let zip = crate_index(&data)
        .map_err(|e| zip_error(path, None, e, "cannot read the zip directory"))?;

    if zip.has_duplicate_names() {
        return Err(duplicate(find_duplicate_name(
            data.as_ref(),
            zip.central_directory_start(),
        )));
    }

    let mut entries = Vec::with_capacity(zip.len());
    let mut records = Vec::with_capacity(zip.len());
    for index in 0..zip.len() {
        let file = zip
            .by_index_data(index)
            .map_err(|e| zip_error(path, None, e, "cannot read the zip directory"))?;
        let name = decode_name(file.name_raw(), || file.name().ok().map(Cow::into_owned))
            .ok_or_else(|| {
                ArchiveError::corrupt(
                    path,
                    None,
                    format!(
                        "entry {index} has an undecodable name `{}`",
                        file.name_raw().escape_ascii()
                    ),
                )
            })?;
        records.push(record_of(&file));
        entries.push(Entry::new(name, file.is_dir(), file.size(), kind));
    }
    let input = ZipInput {
        records,
        zip: std::sync::OnceLock::from(Ok(zip)),
        by_name: std::sync::OnceLock::new(),
        data,
    };
    Ok((input, entries))
}

/// Decodes an entry name: UTF-8 when it is valid UTF-8, whatever the
/// language-encoding flag says (as Java does), else as the `zip` crate
/// decodes it (CP437 without the flag).
fn decode_name(raw: &[u8], fallback: impl FnOnce() -> Option<String>) -> Option<String> {
    match std::str::from_utf8(raw) {
        Ok(name) => Some(name.to_owned()),
        Err(_) => fallback(),
    }
}

/// Finds the first name listed twice by walking the central directory
/// headers from `start`. The `zip` crate only says that there are duplicates,
/// not which. Returns `None` if the walk goes wrong (it stops at the first
/// malformed header).
fn find_duplicate_name(data: &[u8], start: u64) -> Option<String> {
    const SIGNATURE: [u8; 4] = [b'P', b'K', 1, 2];
    const FIXED: usize = 46;
    let mut seen: HashSet<&[u8]> = HashSet::new();
    let mut pos = usize::try_from(start).ok()?;
    loop {
        let header = data.get(pos..pos.checked_add(FIXED)?)?;
        if header[..4] != SIGNATURE {
            return None;
        }
        let u16_at = |at: usize| usize::from(u16::from_le_bytes([header[at], header[at + 1]]));
        let (name_len, extra_len, comment_len) = (u16_at(28), u16_at(30), u16_at(32));
        let name_start = pos + FIXED;
        let name = data.get(name_start..name_start.checked_add(name_len)?)?;
        if !seen.insert(name) {
            return Some(String::from_utf8_lossy(name).into_owned());
        }
        pos = name_start + name_len + extra_len + comment_len;
    }
}

/// What a raw copy takes from an input entry: its data as stored
/// (compressed or not, borrowed from the mapping) and its header fields.
pub(crate) struct RawEntry<'a> {
    /// The entry's data as stored.
    pub(crate) data: &'a [u8],
    /// The extra field of its local header, as stored.
    pub(crate) extra: &'a [u8],
    /// General purpose flags, from the central directory.
    pub(crate) flags: u16,
    /// The compression method number, whatever it is.
    pub(crate) method: u16,
    /// Version needed to extract (its lower byte).
    pub(crate) version_needed: u16,
    /// MS-DOS modification time, as stored.
    pub(crate) time: u16,
    /// MS-DOS modification date, as stored.
    pub(crate) date: u16,
    /// The declared CRC-32.
    pub(crate) crc: u32,
    /// Where, in the mapping, the data starts.
    pub(crate) data_at: usize,
    /// The declared uncompressed size (zip64 included).
    pub(crate) size: u64,
    /// The Unix mode (type and permission bits), as the `zip` crate sees it:
    /// `None` if the entry has no external attributes.
    pub(crate) mode: Option<u32>,
}

impl ZipInput {
    /// The `zip` crate's index of the archive (built on first use for a
    /// plain zip), a cheap copy with its own cursor.
    pub(crate) fn archive(&self) -> Result<ZipArchive<MapReader>, String> {
        self.zip
            .get_or_init(|| crate_index(&self.data).map_err(|e| e.to_string()))
            .clone()
    }

    /// The central directory fields of entry `index`.
    pub(crate) fn record(&self, index: usize) -> Option<&Record> {
        self.records.get(index)
    }

    /// Where the data of the entry whose local header is at `local_at`
    /// starts, per that header (`None`: no local header there).
    fn data_start(&self, local_at: u64) -> Option<usize> {
        let bytes = self.data.as_ref();
        let at = usize::try_from(local_at).ok()?;
        let local = bytes.get(at..at.checked_add(30)?)?;
        if local[..4] != *b"PK\x03\x04" {
            return None;
        }
        let u16_at = |at: usize| usize::from(u16::from_le_bytes([local[at], local[at + 1]]));
        Some(at + 30 + u16_at(26) + u16_at(28))
    }

    /// Entry `index` (named `name`) for a raw copy: its data located through
    /// its local header in the mapping, its fields read from its central
    /// directory record (sizes as the `zip` crate decoded them, zip64
    /// included). Nothing is decompressed or checked.
    pub(crate) fn raw_entry(
        &self,
        path: &Path,
        index: usize,
        name: &str,
    ) -> Result<RawEntry<'_>, ArchiveError> {
        let corrupt = |why: &str| ArchiveError::corrupt(path, Some(name), why);
        let file = *self
            .record(index)
            .ok_or_else(|| corrupt("no such entry in the zip directory"))?;
        let bytes = self.data.as_ref();
        let header_at = |at: u64, len: usize, signature: &[u8; 4]| {
            usize::try_from(at)
                .ok()
                .and_then(|at| Some((at, bytes.get(at..at.checked_add(len)?)?)))
                .filter(|(_, h)| h[..4] == signature[..])
        };
        let u16_at = |h: &[u8], at: usize| u16::from_le_bytes([h[at], h[at + 1]]);
        let (_, central) = header_at(file.central_at, 46, b"PK\x01\x02")
            .ok_or_else(|| corrupt("the entry's central directory record was not found"))?;
        let (local_at, local) = header_at(file.local_at, 30, b"PK\x03\x04")
            .ok_or_else(|| corrupt("the entry's local header was not found"))?;
        let extra_at = local_at + 30 + usize::from(u16_at(local, 26));
        let start = extra_at + usize::from(u16_at(local, 28));
        let extra = bytes
            .get(extra_at..start)
            .ok_or_else(|| corrupt("the entry's local header extends past the end of file"))?;
        let data = usize::try_from(file.compressed)
            .ok()
            .and_then(|len| bytes.get(start..start.checked_add(len)?))
            .ok_or_else(|| corrupt("the entry data extends past the end of file"))?;
        Ok(RawEntry {
            data,
            extra,
            data_at: start,
            version_needed: u16_at(central, 6) & 0xFF,
            flags: u16_at(central, 8),
            method: u16_at(central, 10),
            time: u16_at(central, 12),
            date: u16_at(central, 14),
            crc: file.crc,
            size: file.size,
            mode: file.mode,
        })
    }

    /// The mapped bytes.
    pub(crate) fn mapping(&self) -> &MapSlice {
        &self.data
    }

    /// The index of the entry named `name` among `entries` (this zip's, as
    /// it listed them), if there is one. The index by name is built from
    /// the listed names on the first call, so an absent name is answered
    /// without a scan; only a name whose hash another name shares is looked
    /// for entry by entry.
    pub(crate) fn index_for_name(&self, name: &str, entries: &[Entry]) -> Option<usize> {
        let map = self.by_name.get_or_init(|| {
            let mut map = rustc_hash::FxHashMap::default();
            map.reserve(entries.len());
            for (i, e) in entries.iter().enumerate() {
                map.entry(name_key(&e.name))
                    .and_modify(|k| *k = u32::MAX)
                    .or_insert(i as u32);
            }
            map
        });
        match *map.get(&name_key(name))? {
            u32::MAX => entries.iter().position(|e| e.name == name),
            i => Some(i as usize).filter(|&i| entries.get(i).is_some_and(|e| e.name == name)),
        }
    }

    /// Reads entry `index`: stored entries borrowed from the mapping, deflated
    /// ones inflated straight from it (both checked against the declared size
    /// and CRC-32), other methods decompressed by the `zip` crate, which
    /// checks the CRC-32 and the size at the end of the stream.
    pub(crate) fn read<'a>(
        &'a self,
        path: &Path,
        index: usize,
        entry: &Entry,
    ) -> Result<Cow<'a, [u8]>, ArchiveError> {
        let name = Some(entry.name.as_str());
        let is_class = entry.class_name().is_some();
        let check_magic = is_class && entry.size > MAGIC_CHECKED;
        if is_class && entry.size > MAX_CLASS_SIZE {
            return Err(ArchiveError::corrupt(
                path,
                name,
                format!(
                    "a class entry of {} bytes: larger than the {} MiB major reads",
                    entry.size,
                    MAX_CLASS_SIZE >> 20
                ),
            ));
        }
        let record = *self.record(index).ok_or_else(|| {
            ArchiveError::corrupt(path, name, "no such entry in the zip directory")
        })?;
        if record.encrypted {
            return Err(ArchiveError::unsupported(path, name, "encrypted zip entry"));
        }
        let method = record.method;
        if matches!(method, Method::Stored | Method::Deflated) {
            let (size, crc, stored) = (record.size, record.crc, record.compressed);
            let start = self.data_start(record.local_at).ok_or_else(|| {
                ArchiveError::corrupt(path, name, "the entry's local header was not found")
            })?;
            if method == Method::Stored && stored != size {
                return Err(ArchiveError::corrupt(
                    path,
                    name,
                    format!("stored entry has {stored} bytes of data but a size of {size}"),
                ));
            }
            let data = usize::try_from(stored)
                .ok()
                .and_then(|len| self.data.as_ref().get(start..start.checked_add(len)?))
                .ok_or_else(|| {
                    ArchiveError::corrupt(path, name, "the entry data extends past the end of file")
                })?;
            // A class is checked to start like one before it is inflated
            // whole: a few bytes of the stream are inflated first.
            if check_magic {
                let head = if method == Method::Stored {
                    data.get(..4).unwrap_or(data).to_vec()
                } else {
                    inflate_head(data, 4)
                };
                check_class_magic(&head).map_err(|why| ArchiveError::corrupt(path, name, why))?;
            }
            let _budget = InflateBudget::take(if method == Method::Stored { 0 } else { size });
            let bytes = if method == Method::Stored {
                Cow::Borrowed(data)
            } else {
                Cow::Owned(
                    inflate(data, size).map_err(|why| ArchiveError::corrupt(path, name, why))?,
                )
            };
            let actual = crc32fast::hash(&bytes);
            if actual != crc {
                return Err(ArchiveError::corrupt(
                    path,
                    name,
                    format!("CRC-32 mismatch: expected {crc:08x}, found {actual:08x}"),
                ));
            }
            return Ok(bytes);
        }
        let size = entry.size;
        let mut zip = self.archive().map_err(|e| {
            ArchiveError::corrupt(path, name, format!("cannot open the entry: {e}"))
        })?;
        let mut file = zip
            .by_index(index)
            .map_err(|e| zip_error(path, name, e, "cannot open the entry"))?;
        // The declared size is only a hint for the allocation: a hostile
        // header must not make us reserve gigabytes up front.
        let capacity = usize::try_from(size.min(64 << 20)).unwrap_or(0);
        let mut out = Vec::with_capacity(capacity);
        let _budget = InflateBudget::take(size);
        let decompress_error = |e: std::io::Error| {
            ArchiveError::corrupt(path, name, format!("cannot decompress the entry: {e}"))
        };
        if check_magic {
            (&mut file)
                .take(4)
                .read_to_end(&mut out)
                .map_err(decompress_error)?;
            check_class_magic(&out).map_err(|why| ArchiveError::corrupt(path, name, why))?;
        }
        // Never more than one byte past the declared size.
        let limit = size.saturating_add(1).saturating_sub(out.len() as u64);
        (&mut file)
            .take(limit)
            .read_to_end(&mut out)
            .map_err(decompress_error)?;
        if out.len() as u64 != size {
            return Err(ArchiveError::corrupt(
                path,
                name,
                format!(
                    "the entry decompresses to {} bytes, but its declared size is {size}",
                    out.len()
                ),
            ));
        }
        Ok(Cow::Owned(out))
    }
}

/// Checks that `head` (the first bytes of an entry) starts a class file.
fn check_class_magic(head: &[u8]) -> Result<(), String> {
    if head.starts_with(&CLASS_MAGIC) {
        Ok(())
    } else {
        Err(format!(
            "not a class file: it starts with {:02x?}, not CA FE BA BE",
            head
        ))
    }
}

/// Inflates at most `n` bytes from the start of the raw deflate stream
/// `data` (fewer if the stream ends or is damaged), reading only as much of
/// the stream as that takes.
fn inflate_head(data: &[u8], n: usize) -> Vec<u8> {
    let mut inflater = flate2::Decompress::new(false);
    let mut out = Vec::with_capacity(n);
    let mut input = data;
    while out.len() < n {
        let before_in = inflater.total_in();
        let before_out = out.len();
        // Feed the stream in small pieces, so that little is decoded past
        // the bytes asked for.
        let piece = &input[..input.len().min(256)];
        match inflater.decompress_vec(piece, &mut out, flate2::FlushDecompress::None) {
            Ok(flate2::Status::StreamEnd) | Err(_) => break,
            Ok(_) => {}
        }
        let used = (inflater.total_in() - before_in) as usize;
        input = &input[used..];
        if used == 0 && out.len() == before_out {
            break;
        }
    }
    out.truncate(n);
    out
}

/// Bounds the bytes of large entries being inflated at once across all
/// threads to [`INFLATE_BUDGET`]: a read of an entry over [`SMALL_ENTRY`]
/// waits while others hold the budget, unless nothing is being inflated (so
/// that one entry larger than the whole budget still goes through).
struct InflateBudget {
    size: u64,
}

/// Bytes of large entries being inflated now, and the condition readers
/// waiting for room wait on.
static BUDGET: (std::sync::Mutex<u64>, std::sync::Condvar) =
    (std::sync::Mutex::new(0), std::sync::Condvar::new());

impl InflateBudget {
    /// Takes `size` bytes of the budget (nothing for a small entry), waiting
    /// for room; given back on drop.
    fn take(size: u64) -> InflateBudget {
        if size <= SMALL_ENTRY {
            return InflateBudget { size: 0 };
        }
        let (lock, room) = &BUDGET;
        let mut used = lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while *used > 0 && *used + size > INFLATE_BUDGET {
            used = room
                .wait(used)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        *used += size;
        InflateBudget { size }
    }
}

impl Drop for InflateBudget {
    fn drop(&mut self) {
        if self.size > 0 {
            let (lock, room) = &BUDGET;
            let mut used = lock
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            *used -= self.size;
            room.notify_all();
        }
    }
}

thread_local! {
    /// One libdeflate decompressor per thread, reused for every entry.
    static INFLATER: std::cell::RefCell<libdeflater::Decompressor> =
        std::cell::RefCell::new(libdeflater::Decompressor::new());
}

/// Inflates the raw deflate stream `data`, which must decompress to exactly
/// `size` bytes; the error says what is wrong.
fn inflate(data: &[u8], size: u64) -> Result<Vec<u8>, String> {
    use libdeflater::DecompressionError;
    // The declared size is only trusted up to what deflate can give: a hostile
    // header must not make us reserve gigabytes for a few bytes of data.
    let limit = (data.len() as u64).saturating_mul(1032).saturating_add(64);
    if size > limit {
        return Err(format!(
            "the entry cannot decompress to its declared size of {size} bytes \
             ({} bytes of deflate data)",
            data.len()
        ));
    }
    let len = usize::try_from(size).map_err(|_| format!("declared size {size} is too large"))?;
    INFLATER.with(|d| {
        let mut out = vec![0u8; len];
        match d.borrow_mut().deflate_decompress(data, &mut out) {
            Ok(n) if n == len => Ok(out),
            Ok(n) => Err(format!(
                "the entry decompresses to {n} bytes, but its declared size is {size}"
            )),
            Err(DecompressionError::InsufficientSpace) => Err(format!(
                "the entry decompresses to more than its declared size of {size} bytes"
            )),
            Err(DecompressionError::BadData) => {
                Err("cannot decompress the entry: invalid deflate data".to_string())
            }
        }
    })
}

/// Turns an error of the `zip` crate into ours.
pub(crate) fn zip_error(
    path: &Path,
    entry: Option<&str>,
    error: ZipError,
    context: &str,
) -> ArchiveError {
    match error {
        ZipError::UnsupportedArchive(what) => ArchiveError::unsupported(path, entry, what),
        ZipError::CompressionMethodNotSupported(method) => {
            ArchiveError::unsupported(path, entry, format!("zip compression method {method}"))
        }
        ZipError::InvalidPassword => ArchiveError::unsupported(path, entry, "encrypted zip entry"),
        other => ArchiveError::corrupt(path, entry, format!("{context}: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use zip::write::SimpleFileOptions;
    use zip::ZipWriter;

    use super::*;
    use crate::Archive;

    /// Records with their entries' names.
    type Named = Vec<(String, Record)>;

    /// The records of `bytes` as the plain reader gives them and as the
    /// `zip` crate's index does, and the names of both.
    fn both_readings(bytes: &[u8]) -> (Named, Named) {
        let plain = central::read(bytes)
            .unwrap_or_else(|e| panic!("not read as a plain zip: {e:?}"))
            .into_iter()
            .map(|l| {
                let name = std::str::from_utf8(&bytes[l.name]).unwrap().to_owned();
                (name, l.record)
            })
            .collect();
        let zip = ZipArchive::new(Cursor::new(bytes)).unwrap();
        let by_crate = (0..zip.len())
            .map(|i| {
                let f = zip.by_index_data(i).unwrap();
                (f.name().unwrap().into_owned(), record_of(&f))
            })
            .collect();
        (plain, by_crate)
    }

    #[test]
    fn the_plain_reader_agrees_with_the_zip_crate() {
        // Written by the crate: stored, deflated, a directory, Unix modes
        // (with special bits), odd times, a comment.
        let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
        writer
            .set_comment("a comment with PK\x05\x06 inside")
            .unwrap();
        let dt =
            |y, mo, d, h, mi, s| zip::DateTime::from_date_and_time(y, mo, d, h, mi, s).unwrap();
        let entries: [(&str, CompressionMethod, u32, zip::DateTime); 5] = [
            (
                "META-INF/",
                CompressionMethod::Stored,
                0o755,
                dt(1980, 1, 1, 0, 0, 0),
            ),
            (
                "a/B.class",
                CompressionMethod::Deflated,
                0o644,
                dt(2024, 2, 29, 23, 59, 58),
            ),
            (
                "a/stored.txt",
                CompressionMethod::Stored,
                0o4755,
                dt(2107, 12, 31, 23, 59, 58),
            ),
            (
                "a/ro.txt",
                CompressionMethod::Deflated,
                0o444,
                dt(2001, 9, 9, 1, 46, 40),
            ),
            (
                "\u{e9}t\u{e9}/\u{fc}.txt",
                CompressionMethod::Deflated,
                0o600,
                dt(1999, 12, 31, 12, 0, 0),
            ),
        ];
        for (name, method, mode, time) in entries {
            let options = SimpleFileOptions::default()
                .compression_method(method)
                .unix_permissions(mode)
                .last_modified_time(time);
            if name.ends_with('/') {
                writer.add_directory(name, options).unwrap();
            } else {
                writer.start_file(name, options).unwrap();
                writer.write_all(name.repeat(40).as_bytes()).unwrap();
            }
        }
        let mut bytes = writer.finish().unwrap().into_inner();
        let (plain, by_crate) = both_readings(&bytes);
        assert_eq!(plain.len(), 5);
        assert_eq!(plain, by_crate);
        // Made on MS-DOS (read-only, directory and plain attribute bits), on
        // another system with and without Unix bits, and an invalid
        // MS-DOS date: each record's "made by" and attributes patched.
        let cases: [(u8, u32, u16); 5] = [
            (0, 0x01, 0x21),
            (0, 0x10, 0xffff),
            (0, 0x20, 0),
            (11, 0o100640 << 16, 0x5000),
            (19, 0x20, 0x21),
        ];
        let mut at = bytes.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
        for (system, external, date) in cases {
            bytes[at + 5] = system;
            bytes[at + 38..at + 42].copy_from_slice(&external.to_le_bytes());
            bytes[at + 14..at + 16].copy_from_slice(&date.to_le_bytes());
            let len =
                |k: usize| usize::from(u16::from_le_bytes([bytes[at + k], bytes[at + k + 1]]));
            at += 46 + len(28) + len(30) + len(32);
        }
        let (plain, by_crate) = both_readings(&bytes);
        assert_eq!(plain, by_crate);
        assert!(
            plain.iter().any(|(_, r)| r.time.is_none()),
            "an invalid date read as none"
        );
    }

    #[test]
    fn the_plain_reader_agrees_with_the_zip_crate_on_the_jars_here() {
        let jars: Vec<std::path::PathBuf> = ["guava.jar", "asm.jar", "hsqldb.jar", "h2.jar"]
            .iter()
            .map(|j| std::path::Path::new("/usr/share/java").join(j))
            .filter(|p| p.is_file())
            .collect();
        if jars.is_empty() {
            eprintln!("skipped: none of guava, asm, hsqldb, h2 in /usr/share/java");
            return;
        }
        for jar in jars {
            let bytes = std::fs::read(&jar).unwrap();
            let (plain, by_crate) = both_readings(&bytes);
            assert!(!plain.is_empty());
            assert_eq!(plain, by_crate, "{}", jar.display());
        }
    }

    #[test]
    fn zips_the_plain_reader_leaves_to_the_crate_are_still_read() {
        // Bytes before the zip (offsets not counted from them), and a zip64
        // end record: both read through the crate's index, entries intact.
        let plain = build_zip(&[
            ("a.txt", b"hello", CompressionMethod::Deflated),
            ("b.txt", b"stored", CompressionMethod::Stored),
        ]);
        let mut prepended = b"#!/bin/sh\nexit 0\n".to_vec();
        prepended.extend_from_slice(&plain);
        assert_eq!(
            central::read(&prepended).unwrap_err(),
            central::NotRead::NotPlain
        );
        let mut w = ZipWriter::new(Cursor::new(Vec::new()));
        w.start_file("big.txt", SimpleFileOptions::default().large_file(true))
            .unwrap();
        w.write_all(b"zip64").unwrap();
        let zip64 = w.finish().unwrap().into_inner();
        for (bytes, names) in [
            (prepended, vec!["a.txt", "b.txt"]),
            (zip64, vec!["big.txt"]),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("x.zip");
            std::fs::write(&path, &bytes).unwrap();
            let a = Archive::open(&path).unwrap();
            let listed: Vec<&str> = a.entries().iter().map(|e| e.name.as_str()).collect();
            assert_eq!(listed, names);
            for (i, name) in names.iter().enumerate() {
                assert!(!a.read(i).unwrap().is_empty());
                assert_eq!(a.find(name), Some(i));
            }
            assert_eq!(a.find("absent.txt"), None);
        }
    }

    /// Every listed name finds its entry and an absent one none, also
    /// where the index by name holds a hash two names share (looked for
    /// entry by entry) or a hash that leads to another entry.
    #[test]
    fn entries_are_found_by_name() {
        let names: Vec<String> = (0..300).map(|i| format!("p/C{i}.class")).collect();
        let entries: Vec<(&str, &[u8], CompressionMethod)> = names
            .iter()
            .map(|n| {
                (
                    n.as_str(),
                    b"\xCA\xFE".as_slice(),
                    CompressionMethod::Stored,
                )
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.jar");
        std::fs::write(&path, build_zip(&entries)).unwrap();
        let mut a = Archive::open(&path).unwrap();
        for (i, n) in names.iter().enumerate() {
            assert_eq!(a.find(n), Some(i), "{n}");
        }
        assert_eq!(a.find("p/Absent.class"), None);
        let crate::Source::Zip(zip) = &mut a.source else {
            panic!("not read as a zip");
        };
        let map = zip.by_name.get_mut().unwrap();
        map.insert(name_key(&names[7]), u32::MAX);
        map.insert(name_key("p/Absent.class"), 3);
        assert_eq!(a.find(&names[7]), Some(7));
        assert_eq!(a.find("p/Absent.class"), None);
    }

    fn build_zip(entries: &[(&str, &[u8], CompressionMethod)]) -> Vec<u8> {
        let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
        for (name, data, method) in entries {
            let options = SimpleFileOptions::default().compression_method(*method);
            if name.ends_with('/') {
                writer.add_directory(*name, options).unwrap();
            } else {
                writer.start_file(*name, options).unwrap();
                writer.write_all(data).unwrap();
            }
        }
        writer.finish().unwrap().into_inner()
    }

    fn sample() -> Vec<u8> {
        let big: Vec<u8> = (0..20_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        build_zip(&[
            ("META-INF/", b"", CompressionMethod::Stored),
            (
                "META-INF/MANIFEST.MF",
                b"Manifest-Version: 1.0\r\n",
                CompressionMethod::Stored,
            ),
            (
                "a/B.class",
                &[0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 61],
                CompressionMethod::Deflated,
            ),
            ("a/big.bin", &big, CompressionMethod::Deflated),
        ])
    }

    fn write_temp(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// A zip whose entries are `size` zero bytes each, deflated (or stored).
    fn zeros_zip(names: &[&str], size: u64, method: CompressionMethod) -> Vec<u8> {
        let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
        let chunk = vec![0u8; 1 << 20];
        for name in names {
            let options = SimpleFileOptions::default()
                .compression_method(method)
                .large_file(size >= 1 << 32);
            writer.start_file(*name, options).unwrap();
            let mut left = size;
            while left > 0 {
                let n = left.min(chunk.len() as u64) as usize;
                writer.write_all(&chunk[..n]).unwrap();
                left -= n as u64;
            }
        }
        writer.finish().unwrap().into_inner()
    }

    #[test]
    fn a_class_entry_that_is_no_class_fails_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        for method in [CompressionMethod::Deflated, CompressionMethod::Stored] {
            let bytes = zeros_zip(&["p/Zero.class", "p/zero.bin"], 20 << 20, method);
            let archive = Archive::open(&write_temp(&dir, "z.jar", &bytes)).unwrap();
            let err = archive.read(0).unwrap_err();
            assert_eq!(err.entry(), Some("p/Zero.class"));
            assert!(err.to_string().contains("not a class file"), "{err}");
            // Another entry of the same bytes is no class: read as it is.
            assert_eq!(archive.read(1).unwrap().len(), 20 << 20);
        }
    }

    #[test]
    fn a_class_entry_over_the_size_cap_fails_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let size = MAX_CLASS_SIZE + 1;
        let bytes = zeros_zip(&["p/Huge.class"], size, CompressionMethod::Deflated);
        assert!(bytes.len() < 2 << 20, "{}", bytes.len());
        let archive = Archive::open(&write_temp(&dir, "h.jar", &bytes)).unwrap();
        let err = archive.read(0).unwrap_err();
        assert_eq!(err.entry(), Some("p/Huge.class"));
        assert!(err.to_string().contains("larger than the 256 MiB"), "{err}");
    }

    #[test]
    fn inflating_the_head_of_a_stream_reads_little() {
        let data: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_be_bytes()).collect();
        let deflated = {
            let mut c = libdeflater::Compressor::new(libdeflater::CompressionLvl::default());
            let mut out = vec![0; c.deflate_compress_bound(data.len())];
            let n = c.deflate_compress(&data, &mut out).unwrap();
            out.truncate(n);
            out
        };
        assert_eq!(inflate_head(&deflated, 8), data[..8]);
        assert_eq!(inflate_head(&deflated[..0], 8), b"");
        assert_eq!(inflate_head(b"\xff\xff garbage", 4).len(), 0);
    }

    #[test]
    fn lists_and_reads() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = sample();
        let path = write_temp(&dir, "x.jar", &bytes);
        let archive = Archive::open(&path).unwrap();
        assert_eq!(archive.kind(), ArchiveKind::Zip);
        assert_eq!(archive.size_bytes(), bytes.len() as u64);
        let names: Vec<_> = archive.entries().iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "META-INF/",
                "META-INF/MANIFEST.MF",
                "a/B.class",
                "a/big.bin"
            ]
        );
        assert!(archive.entries()[0].is_dir);
        assert_eq!(archive.entries()[2].class_name(), Some("a/B"));
        assert_eq!(archive.entries()[1].class_name(), None);

        let manifest = archive.read(1).unwrap();
        assert!(matches!(manifest, Cow::Borrowed(_)));
        assert_eq!(&*manifest, b"Manifest-Version: 1.0\r\n");
        let class = archive.read(2).unwrap();
        assert_eq!(&*class, &[0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 61]);
        let big = archive.read(3).unwrap();
        assert_eq!(big.len(), 80_000);
        assert_eq!(archive.entries()[3].size, 80_000);
        assert!(archive.read(0).unwrap().is_empty());
        assert_eq!(archive.find("a/B.class"), Some(2));
        assert_eq!(archive.find("nope"), None);
        assert!(matches!(
            archive.read(4),
            Err(ArchiveError::NoSuchEntry { index: 4, .. })
        ));
    }

    #[test]
    fn reads_from_many_threads() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_temp(&dir, "x.zip", &sample());
        let archive = Archive::open(&path).unwrap();
        let expected: Vec<Vec<u8>> = (0..archive.entries().len())
            .map(|i| archive.read(i).unwrap().into_owned())
            .collect();
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..20 {
                        for (i, want) in expected.iter().enumerate() {
                            assert_eq!(&*archive.read(i).unwrap(), &want[..]);
                        }
                    }
                });
            }
        });
    }

    /// Renames the second entry to the first one's name (same length) in
    /// both its local and its central header.
    #[test]
    fn duplicate_names_are_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = build_zip(&[
            ("a/One.class", b"1", CompressionMethod::Stored),
            ("a/Two.class", b"2", CompressionMethod::Stored),
        ]);
        let mut replaced = 0;
        for i in 0..bytes.len() - 11 {
            if &bytes[i..i + 11] == b"a/Two.class" {
                bytes[i..i + 11].copy_from_slice(b"a/One.class");
                replaced += 1;
            }
        }
        assert_eq!(replaced, 2);
        let path = write_temp(&dir, "dup.jar", &bytes);
        let err = Archive::open(&path).unwrap_err();
        match &err {
            ArchiveError::Corrupt { entry, detail, .. } => {
                assert_eq!(entry.as_deref(), Some("a/One.class"), "{detail}");
            }
            other => panic!("expected Corrupt, got {other:?}"),
        }
        assert!(err.to_string().contains("dup.jar"), "{err}");
        assert!(err.to_string().contains("a/One.class"), "{err}");
    }

    #[test]
    fn truncated_zip_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = sample();
        for cut in [bytes.len() / 2, bytes.len() - 1, 30, 3] {
            let path = write_temp(&dir, "cut.jar", &bytes[..cut]);
            let err = Archive::open(&path).unwrap_err();
            assert!(matches!(err, ArchiveError::Corrupt { .. }), "{err}");
            assert!(err.to_string().contains("cut.jar"), "{err}");
        }
    }

    #[test]
    fn corrupt_deflate_stream_is_reported_on_read() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = sample();
        let path = write_temp(&dir, "good.jar", &bytes);
        let archive = Archive::open(&path).unwrap();
        // Find where a/big.bin's compressed data lies.
        let mut zip = archive_zip(&archive);
        let raw = zip.by_index_raw(3).unwrap();
        let start = raw.data_start().unwrap() as usize;
        let len = raw.compressed_size() as usize;
        drop(raw);
        drop(archive);

        // A few flipped bytes in the middle: inflate error or CRC mismatch.
        let mut damaged = bytes.clone();
        for b in &mut damaged[start + len / 2..start + len / 2 + 8] {
            *b ^= 0x5A;
        }
        let path = write_temp(&dir, "bad.jar", &damaged);
        let archive = Archive::open(&path).unwrap();
        let err = archive.read(3).unwrap_err();
        match &err {
            ArchiveError::Corrupt { entry, .. } => assert_eq!(entry.as_deref(), Some("a/big.bin")),
            other => panic!("expected Corrupt, got {other:?}"),
        }
        // The other entries are still readable.
        assert_eq!(archive.read(2).unwrap()[..4], [0xCA, 0xFE, 0xBA, 0xBE]);

        // A damaged stored entry fails its CRC check.
        let first = bytes
            .windows(16)
            .position(|w| w == b"Manifest-Version")
            .unwrap();
        let mut damaged = bytes.clone();
        damaged[first] = b'm';
        let path = write_temp(&dir, "bad2.jar", &damaged);
        let archive = Archive::open(&path).unwrap();
        let err = archive.read(1).unwrap_err();
        assert!(
            matches!(&err, ArchiveError::Corrupt { entry: Some(e), .. } if e == "META-INF/MANIFEST.MF"),
            "{err}"
        );
    }

    fn archive_zip(archive: &Archive) -> ZipArchive<MapReader> {
        match &archive.source {
            crate::Source::Zip(zip) => zip.archive().unwrap(),
            _ => panic!("not a zip"),
        }
    }

    #[test]
    fn jmod_strips_classes_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let zip = build_zip(&[
            (
                "classes/module-info.class",
                b"\xCA\xFE\xBA\xBE",
                CompressionMethod::Deflated,
            ),
            (
                "classes/java/lang/Object.class",
                b"\xCA\xFE\xBA\xBE!",
                CompressionMethod::Stored,
            ),
            ("lib/libfoo.so", b"ELF", CompressionMethod::Deflated),
            ("conf/x.properties", b"a=b", CompressionMethod::Deflated),
        ]);
        let mut bytes = b"JM\x01\x00".to_vec();
        bytes.extend_from_slice(&zip);
        let path = write_temp(&dir, "java.base.jmod", &bytes);
        let archive = Archive::open(&path).unwrap();
        assert_eq!(archive.kind(), ArchiveKind::Jmod);
        let classes: Vec<_> = archive.entries().iter().map(|e| e.class_name()).collect();
        assert_eq!(
            classes,
            [Some("module-info"), Some("java/lang/Object"), None, None]
        );
        assert_eq!(archive.entries()[1].name, "classes/java/lang/Object.class");
        assert_eq!(&*archive.read(1).unwrap(), b"\xCA\xFE\xBA\xBE!");
        assert_eq!(&*archive.read(3).unwrap(), b"a=b");

        // A file called .jmod without the header.
        let path = write_temp(&dir, "plain.jmod", b"nothing here");
        let err = Archive::open(&path).unwrap_err();
        assert!(matches!(err, ArchiveError::Corrupt { .. }), "{err}");
    }
}
