//! JDK run-time images: the `lib/modules` file of a JDK 9 or later, in the
//! "jimage" format, version 1.0.
//!
//! Layout (integers in the byte order of the platform that wrote the image;
//! the magic tells which):
//!
//! ```text
//! header     magic u32 (0xCAFEDADA), version u32 (major << 16 | minor),
//!            flags u32, resource_count u32, table_length u32,
//!            locations_size u32, strings_size u32
//! redirect   table_length × i32    (the hash table for lookups, unused here)
//! offsets    table_length × u32    (offsets of locations in the blob below)
//! locations  locations_size bytes  (attribute streams)
//! strings    strings_size bytes    (NUL-terminated modified UTF-8)
//! contents   resource bytes, at offsets relative to the end of `strings`
//! ```
//!
//! A location is a stream of attributes, each a byte `kind << 3 | (len - 1)`
//! followed by a `len`-byte big-endian value, up to an attribute of kind 0.
//! Resources compressed by jlink (`--compress`) start with a header of magic
//! 0xCAFEFAFA naming the decompressor; only the `zip` one (zlib) is
//! supported.

use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

use memmap2::Mmap;

use crate::{ArchiveError, ArchiveKind, Entry};

/// The magic number of a jimage.
const MAGIC: u32 = 0xCAFE_DADA;
/// The size of the image header.
const HEADER_SIZE: u64 = 7 * 4;
/// The magic number of the header of a compressed resource.
const COMPRESSED_MAGIC: u32 = 0xCAFE_FAFA;
/// The size of the header of a compressed resource: magic u32, compressed
/// size u64, uncompressed size u64, decompressor name u32, decompressor
/// configuration u32, terminal flag u8.
const COMPRESSED_HEADER_SIZE: usize = 29;
/// Compression plugins can be stacked; more stages than this is damage.
const MAX_STAGES: usize = 8;
/// No single resource decompresses to more than this (JDK classes are far
/// smaller); a header claiming more is damage.
const MAX_RESOURCE_SIZE: u64 = 1 << 31;

/// Location attribute kinds.
const ATTR_END: u8 = 0;
const ATTR_MODULE: usize = 1;
const ATTR_PARENT: usize = 2;
const ATTR_BASE: usize = 3;
const ATTR_EXTENSION: usize = 4;
const ATTR_OFFSET: usize = 5;
const ATTR_COMPRESSED: usize = 6;
const ATTR_UNCOMPRESSED: usize = 7;
const ATTR_COUNT: usize = 8;

/// Whether `data` starts with the jimage magic in either byte order.
pub(crate) fn has_magic(data: &[u8]) -> bool {
    ByteOrder::detect(data).is_some()
}

/// Whether `module` is one of the pseudo-modules under which an image
/// describes its directory tree (`/modules/...` and `/packages/...`).
pub(crate) fn is_index_module(module: &str) -> bool {
    module == "modules" || module == "packages"
}

/// The byte order of an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ByteOrder {
    Little,
    Big,
}

impl ByteOrder {
    fn detect(data: &[u8]) -> Option<ByteOrder> {
        let magic: [u8; 4] = data.get(..4)?.try_into().ok()?;
        if u32::from_le_bytes(magic) == MAGIC {
            Some(ByteOrder::Little)
        } else if u32::from_be_bytes(magic) == MAGIC {
            Some(ByteOrder::Big)
        } else {
            None
        }
    }

    fn u32_at(self, data: &[u8], at: usize) -> Option<u32> {
        let bytes: [u8; 4] = data.get(at..at.checked_add(4)?)?.try_into().ok()?;
        Some(match self {
            ByteOrder::Little => u32::from_le_bytes(bytes),
            ByteOrder::Big => u32::from_be_bytes(bytes),
        })
    }

    fn u64_at(self, data: &[u8], at: usize) -> Option<u64> {
        let bytes: [u8; 8] = data.get(at..at.checked_add(8)?)?.try_into().ok()?;
        Some(match self {
            ByteOrder::Little => u64::from_le_bytes(bytes),
            ByteOrder::Big => u64::from_be_bytes(bytes),
        })
    }
}

/// Where the bytes of one resource lie.
#[derive(Debug, Clone, Copy)]
struct Resource {
    /// Absolute offset in the file.
    start: usize,
    /// Bytes stored in the file: the compressed size if compressed.
    stored: usize,
    /// Whether the stored bytes are compressed.
    compressed: bool,
}

/// An opened jimage.
pub(crate) struct JImage {
    map: Mmap,
    order: ByteOrder,
    /// The strings blob, as a range of `map`.
    strings: std::ops::Range<usize>,
    /// One per entry, in the same (name) order.
    resources: Vec<Resource>,
}

impl JImage {
    /// Parses and checks the index of the image in `map`, listing its
    /// resources sorted by name.
    pub(crate) fn open(path: &Path, map: Mmap) -> Result<(JImage, Vec<Entry>), ArchiveError> {
        let corrupt = |detail: String| ArchiveError::corrupt(path, None, detail);
        let data: &[u8] = &map;
        let order = ByteOrder::detect(data)
            .ok_or_else(|| corrupt("not a jimage: bad magic (expected 0xCAFEDADA)".to_owned()))?;
        if (data.len() as u64) < HEADER_SIZE {
            return Err(corrupt(format!(
                "the file ({} bytes) is too short for a jimage header",
                data.len()
            )));
        }
        let field = |i: usize| order.u32_at(data, i * 4).unwrap_or(0);
        let version = field(1);
        let (major, minor) = (version >> 16, version & 0xFFFF);
        if (major, minor) != (1, 0) {
            return Err(corrupt(format!(
                "unsupported jimage version {major}.{minor} (only 1.0 is known)"
            )));
        }
        let table_length = u64::from(field(4));
        let locations_size = u64::from(field(5));
        let strings_size = u64::from(field(6));
        // All in u64: at most 28 + 2^35 + 2^33, no overflow.
        let offsets_start = HEADER_SIZE + table_length * 4;
        let locations_start = offsets_start + table_length * 4;
        let strings_start = locations_start + locations_size;
        let index_size = strings_start + strings_size;
        if index_size > data.len() as u64 {
            return Err(corrupt(format!(
                "the index ({index_size} bytes for {table_length} table slots, \
                 {locations_size} bytes of locations and {strings_size} bytes of strings) \
                 extends past the end of the file ({} bytes)",
                data.len()
            )));
        }
        // All of these are at most data.len(), so they fit in usize.
        let offsets_start = offsets_start as usize;
        let locations = &data[locations_start as usize..strings_start as usize];
        let strings_range = strings_start as usize..index_size as usize;
        let strings = &data[strings_range.clone()];
        let index_size = index_size as usize;

        // Every slot of the offsets table points at a location; visit each
        // location once.
        let mut offsets: Vec<u32> = (0..table_length as usize)
            .map(|i| order.u32_at(data, offsets_start + i * 4).unwrap_or(0))
            .collect();
        offsets.sort_unstable();
        offsets.dedup();

        let mut found = Vec::with_capacity(offsets.len());
        for offset in offsets {
            let attributes = decode_location(locations, offset)
                .map_err(|detail| corrupt(format!("location at offset {offset}: {detail}")))?;
            if attributes == [0; ATTR_COUNT] {
                continue;
            }
            let string = |kind: usize| {
                string_at(strings, attributes[kind])
                    .map_err(|detail| corrupt(format!("location at offset {offset}: {detail}")))
            };
            let module = string(ATTR_MODULE)?;
            let parent = string(ATTR_PARENT)?;
            let base = string(ATTR_BASE)?;
            let extension = string(ATTR_EXTENSION)?;
            let name = full_name(&module, &parent, &base, &extension);
            if name.is_empty() {
                continue;
            }

            let compressed = attributes[ATTR_COMPRESSED];
            let uncompressed = attributes[ATTR_UNCOMPRESSED];
            let stored = if compressed != 0 {
                compressed
            } else {
                uncompressed
            };
            let start = (index_size as u64).checked_add(attributes[ATTR_OFFSET]);
            let end = start.and_then(|start| start.checked_add(stored));
            let (start, stored) = match (start, end) {
                (Some(start), Some(end)) if end <= data.len() as u64 => {
                    (start as usize, stored as usize)
                }
                _ => {
                    return Err(ArchiveError::corrupt(
                        path,
                        Some(&name),
                        format!(
                            "contents ({stored} bytes at offset {} after the index) extend \
                             past the end of the file ({} bytes)",
                            attributes[ATTR_OFFSET],
                            data.len()
                        ),
                    ));
                }
            };
            let is_dir = name == "/modules" || name == "/packages" || is_index_module(&module);
            let resource = Resource {
                start,
                stored,
                compressed: compressed != 0,
            };
            found.push((name, is_dir, uncompressed, resource));
        }

        found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        if let Some(pair) = found.windows(2).find(|pair| pair[0].0 == pair[1].0) {
            let name = &pair[0].0;
            return Err(ArchiveError::corrupt(
                path,
                Some(name),
                format!("the image lists `{name}` more than once"),
            ));
        }
        let mut entries = Vec::with_capacity(found.len());
        let mut resources = Vec::with_capacity(found.len());
        for (name, is_dir, size, resource) in found {
            entries.push(Entry::new(name, is_dir, size, ArchiveKind::JImage));
            resources.push(resource);
        }
        let image = JImage {
            map,
            order,
            strings: strings_range,
            resources,
        };
        Ok((image, entries))
    }

    /// The contents of entry `index`: borrowed if stored uncompressed.
    pub(crate) fn read<'a>(
        &'a self,
        path: &Path,
        index: usize,
        entry: &Entry,
    ) -> Result<Cow<'a, [u8]>, ArchiveError> {
        let name = Some(entry.name.as_str());
        let resource = self
            .resources
            .get(index)
            .ok_or_else(|| ArchiveError::NoSuchEntry {
                path: path.to_path_buf(),
                index,
                count: self.resources.len(),
            })?;
        // Checked at open time; `get` keeps this panic-free regardless.
        let stored = self
            .map
            .get(resource.start..resource.start.saturating_add(resource.stored))
            .ok_or_else(|| ArchiveError::corrupt(path, name, "contents past the end of file"))?;
        if !resource.compressed {
            return Ok(Cow::Borrowed(stored));
        }
        let data = self.decompress(path, name, stored)?;
        if data.len() as u64 != entry.size {
            return Err(ArchiveError::corrupt(
                path,
                name,
                format!(
                    "decompresses to {} bytes, but the location says {}",
                    data.len(),
                    entry.size
                ),
            ));
        }
        Ok(Cow::Owned(data))
    }

    /// Undoes the compression stages of a compressed resource.
    fn decompress(
        &self,
        path: &Path,
        name: Option<&str>,
        stored: &[u8],
    ) -> Result<Vec<u8>, ArchiveError> {
        let corrupt = |detail: String| ArchiveError::corrupt(path, name, detail);
        let strings = &self.map[self.strings.clone()];
        let mut current = Cow::Borrowed(stored);
        let mut stages = 0;
        while let Some(header) = CompressedHeader::parse(&current, self.order) {
            stages += 1;
            if stages > MAX_STAGES {
                return Err(corrupt(format!(
                    "more than {MAX_STAGES} nested compression headers"
                )));
            }
            let decompressor = string_at(strings, u64::from(header.decompressor))
                .map_err(|detail| corrupt(format!("compression header: {detail}")))?;
            if header.uncompressed > MAX_RESOURCE_SIZE {
                return Err(corrupt(format!(
                    "compression header claims {} uncompressed bytes",
                    header.uncompressed
                )));
            }
            let payload = &current[COMPRESSED_HEADER_SIZE..];
            let out = match decompressor.as_str() {
                "zip" => inflate(payload, header.uncompressed).map_err(corrupt)?,
                other => {
                    return Err(ArchiveError::unsupported(
                        path,
                        name,
                        format!("compressed jimage resource (decompressor `{other}`)"),
                    ))
                }
            };
            current = Cow::Owned(out);
        }
        if stages == 0 {
            return Err(corrupt(
                "marked compressed but has no compression header".to_owned(),
            ));
        }
        Ok(current.into_owned())
    }
}

/// The header of a compressed resource.
struct CompressedHeader {
    uncompressed: u64,
    decompressor: u32,
}

impl CompressedHeader {
    /// The header at the start of `data`, if there is one.
    fn parse(data: &[u8], order: ByteOrder) -> Option<CompressedHeader> {
        if data.len() < COMPRESSED_HEADER_SIZE || order.u32_at(data, 0)? != COMPRESSED_MAGIC {
            return None;
        }
        Some(CompressedHeader {
            uncompressed: order.u64_at(data, 12)?,
            decompressor: order.u32_at(data, 20)?,
        })
    }
}

/// Inflates a zlib stream that must give exactly `size` bytes.
fn inflate(payload: &[u8], size: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    flate2::read::ZlibDecoder::new(payload)
        .take(size.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| format!("cannot inflate: {e}"))?;
    if out.len() as u64 != size {
        return Err(format!(
            "inflates to {}{} bytes instead of {size}",
            out.len(),
            if out.len() as u64 > size { "+" } else { "" }
        ));
    }
    Ok(out)
}

/// Decodes the attribute stream at `offset` in the locations blob.
fn decode_location(locations: &[u8], offset: u32) -> Result<[u64; ATTR_COUNT], String> {
    let mut pos = offset as usize;
    if pos >= locations.len() {
        return Err(format!(
            "past the end of the locations blob ({} bytes)",
            locations.len()
        ));
    }
    let mut attributes = [0u64; ATTR_COUNT];
    loop {
        let byte = *locations.get(pos).ok_or("unterminated attribute stream")?;
        pos += 1;
        let kind = byte >> 3;
        if kind == ATTR_END {
            return Ok(attributes);
        }
        let kind = usize::from(kind);
        if kind >= ATTR_COUNT {
            return Err(format!("unknown attribute kind {kind}"));
        }
        let len = usize::from(byte & 7) + 1;
        let bytes = locations
            .get(pos..pos + len)
            .ok_or("attribute value past the end of the locations blob")?;
        attributes[kind] = bytes.iter().fold(0u64, |v, &b| v << 8 | u64::from(b));
        pos += len;
    }
}

/// The NUL-terminated string at `offset` of the strings blob.
fn string_at(strings: &[u8], offset: u64) -> Result<String, String> {
    let start = usize::try_from(offset)
        .ok()
        .filter(|&start| start < strings.len())
        .ok_or_else(|| {
            format!(
                "string offset {offset} is out of range (the strings blob has {} bytes)",
                strings.len()
            )
        })?;
    let len = strings[start..]
        .iter()
        .position(|&b| b == 0)
        .ok_or_else(|| format!("unterminated string at offset {offset}"))?;
    decode_modified_utf8(&strings[start..start + len])
        .ok_or_else(|| format!("invalid modified UTF-8 in the string at offset {offset}"))
}

/// Decodes modified UTF-8 (Java's: NUL as two bytes, supplementary
/// characters as surrogate pairs of three bytes each). Plain UTF-8, which is
/// what names nearly always are, takes the fast path.
fn decode_modified_utf8(bytes: &[u8]) -> Option<String> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Some(s.to_owned());
    }
    let mut units = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let continuation = |at: usize| {
            bytes
                .get(at)
                .filter(|&&c| c & 0xC0 == 0x80)
                .map(|&c| u16::from(c & 0x3F))
        };
        if b & 0x80 == 0 {
            units.push(u16::from(b));
            i += 1;
        } else if b & 0xE0 == 0xC0 {
            units.push(u16::from(b & 0x1F) << 6 | continuation(i + 1)?);
            i += 2;
        } else if b & 0xF0 == 0xE0 {
            units
                .push(u16::from(b & 0x0F) << 12 | continuation(i + 1)? << 6 | continuation(i + 2)?);
            i += 3;
        } else {
            return None;
        }
    }
    String::from_utf16(&units).ok()
}

/// The full name of a resource, as the JDK builds it:
/// `/module/parent/base.extension`, each part only when present.
fn full_name(module: &str, parent: &str, base: &str, extension: &str) -> String {
    let mut name =
        String::with_capacity(module.len() + parent.len() + base.len() + extension.len() + 4);
    if !module.is_empty() {
        name.push('/');
        name.push_str(module);
        name.push('/');
    }
    if !parent.is_empty() {
        name.push_str(parent);
        name.push('/');
    }
    name.push_str(base);
    if !extension.is_empty() {
        name.push('.');
        name.push_str(extension);
    }
    name
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::io::Write;
    use std::path::PathBuf;

    use super::*;
    use crate::Archive;

    /// How a test resource is stored.
    #[derive(Clone, Copy)]
    enum Store {
        Plain,
        /// Compressed by the named decompressor (only "zip" really
        /// compresses; others just get the header).
        Compressed(&'static str),
    }

    /// Builds small jimages.
    struct Builder {
        big_endian: bool,
        version: u32,
        strings: Vec<u8>,
        interned: HashMap<String, u32>,
        /// (module, parent, base, extension, content, store)
        resources: Vec<(String, String, String, String, Vec<u8>, Store)>,
    }

    impl Builder {
        fn new(big_endian: bool) -> Builder {
            let mut builder = Builder {
                big_endian,
                version: 1 << 16,
                strings: Vec::new(),
                interned: HashMap::new(),
                resources: Vec::new(),
            };
            builder.intern("");
            builder
        }

        fn intern(&mut self, s: &str) -> u32 {
            if let Some(&at) = self.interned.get(s) {
                return at;
            }
            let at = self.strings.len() as u32;
            self.strings.extend_from_slice(s.as_bytes());
            self.strings.push(0);
            self.interned.insert(s.to_owned(), at);
            at
        }

        fn add(&mut self, module: &str, parent: &str, base: &str, ext: &str, content: &[u8]) {
            self.add_stored(module, parent, base, ext, content, Store::Plain);
        }

        fn add_stored(
            &mut self,
            module: &str,
            parent: &str,
            base: &str,
            ext: &str,
            content: &[u8],
            store: Store,
        ) {
            self.resources.push((
                module.into(),
                parent.into(),
                base.into(),
                ext.into(),
                content.into(),
                store,
            ));
        }

        fn u32(&self, v: u32) -> [u8; 4] {
            if self.big_endian {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        }

        fn u64(&self, v: u64) -> [u8; 8] {
            if self.big_endian {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        }

        fn attribute(out: &mut Vec<u8>, kind: u8, value: u64) {
            if value == 0 {
                return;
            }
            let bytes = value.to_be_bytes();
            let skip = bytes.iter().take_while(|&&b| b == 0).count().min(7);
            let len = 8 - skip;
            out.push(kind << 3 | (len as u8 - 1));
            out.extend_from_slice(&bytes[skip..]);
        }

        fn build(mut self) -> Vec<u8> {
            let resources = std::mem::take(&mut self.resources);
            let mut locations = Vec::new();
            let mut offsets = Vec::new();
            let mut contents = Vec::new();
            for (module, parent, base, ext, content, store) in &resources {
                let (stored, compressed) = match store {
                    Store::Plain => (content.clone(), 0),
                    Store::Compressed(decompressor) => {
                        let payload = if *decompressor == "zip" {
                            let mut encoder = flate2::write::ZlibEncoder::new(
                                Vec::new(),
                                flate2::Compression::default(),
                            );
                            encoder.write_all(content).unwrap();
                            encoder.finish().unwrap()
                        } else {
                            content.clone()
                        };
                        let name = self.intern(decompressor);
                        let mut stored = Vec::new();
                        stored.extend_from_slice(&self.u32(COMPRESSED_MAGIC));
                        stored.extend_from_slice(&self.u64(payload.len() as u64));
                        stored.extend_from_slice(&self.u64(content.len() as u64));
                        stored.extend_from_slice(&self.u32(name));
                        stored.extend_from_slice(&self.u32(0));
                        stored.push(1);
                        stored.extend_from_slice(&payload);
                        let len = stored.len() as u64;
                        (stored, len)
                    }
                };
                offsets.push(locations.len() as u32);
                let m = self.intern(module);
                let p = self.intern(parent);
                let b = self.intern(base);
                let e = self.intern(ext);
                Self::attribute(&mut locations, ATTR_MODULE as u8, u64::from(m));
                Self::attribute(&mut locations, ATTR_PARENT as u8, u64::from(p));
                Self::attribute(&mut locations, ATTR_BASE as u8, u64::from(b));
                Self::attribute(&mut locations, ATTR_EXTENSION as u8, u64::from(e));
                Self::attribute(&mut locations, ATTR_OFFSET as u8, contents.len() as u64);
                Self::attribute(&mut locations, ATTR_COMPRESSED as u8, compressed);
                Self::attribute(
                    &mut locations,
                    ATTR_UNCOMPRESSED as u8,
                    content.len() as u64,
                );
                locations.push(0);
                contents.extend_from_slice(&stored);
            }
            let mut out = Vec::new();
            for v in [
                MAGIC,
                self.version,
                0,
                resources.len() as u32,
                resources.len() as u32,
                locations.len() as u32,
                self.strings.len() as u32,
            ] {
                out.extend_from_slice(&self.u32(v));
            }
            for _ in &offsets {
                out.extend_from_slice(&self.u32(0));
            }
            for &offset in &offsets {
                out.extend_from_slice(&self.u32(offset));
            }
            out.extend_from_slice(&locations);
            out.extend_from_slice(&self.strings);
            out.extend_from_slice(&contents);
            out
        }
    }

    const OBJECT: &[u8] = b"\xCA\xFE\xBA\xBE\x00\x00\x00\x3DObject";

    fn sample(big_endian: bool) -> Vec<u8> {
        let mut b = Builder::new(big_endian);
        b.add("java.base", "java/lang", "Object", "class", OBJECT);
        b.add(
            "java.base",
            "",
            "module-info",
            "class",
            b"\xCA\xFE\xBA\xBEmi",
        );
        b.add("java.base", "java/lang", "uniName", "dat", &[7; 300]);
        b.add("", "", "/modules", "", &[0, 0, 0, 0]);
        b.add("modules", "", "java.base/java/lang", "", &[1, 2, 3, 4]);
        b.add("packages", "", "java.lang", "", &[0; 8]);
        let long: Vec<u8> = (0..5000u32).flat_map(|i| (i % 7).to_be_bytes()).collect();
        b.add_stored(
            "java.base",
            "java/util",
            "List",
            "class",
            &long,
            Store::Compressed("zip"),
        );
        b.add_stored(
            "jdk.x",
            "x",
            "Shared",
            "class",
            b"abc",
            Store::Compressed("compact-cp"),
        );
        b.build()
    }

    fn write_image(dir: &tempfile::TempDir, bytes: &[u8]) -> PathBuf {
        let path = dir.path().join("modules");
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn check_sample(big_endian: bool) {
        let dir = tempfile::tempdir().unwrap();
        let path = write_image(&dir, &sample(big_endian));
        let archive = Archive::open(&path).unwrap();
        assert_eq!(archive.kind(), ArchiveKind::JImage);
        let names: Vec<_> = archive.entries().iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "/java.base/java/lang/Object.class",
                "/java.base/java/lang/uniName.dat",
                "/java.base/java/util/List.class",
                "/java.base/module-info.class",
                "/jdk.x/x/Shared.class",
                "/modules",
                "/modules/java.base/java/lang",
                "/packages/java.lang",
            ]
        );
        let classes: Vec<_> = archive.entries().iter().map(Entry::class_name).collect();
        assert_eq!(
            classes,
            [
                Some("java/lang/Object"),
                None,
                Some("java/util/List"),
                Some("module-info"),
                Some("x/Shared"),
                None,
                None,
                None
            ]
        );
        let dirs: Vec<_> = archive.entries().iter().map(|e| e.is_dir).collect();
        assert_eq!(dirs, [false, false, false, false, false, true, true, true]);

        let object = archive.read(0).unwrap();
        assert!(matches!(object, Cow::Borrowed(_)));
        assert_eq!(&*object, OBJECT);
        assert_eq!(&*archive.read(1).unwrap(), &[7; 300][..]);
        let list = archive.read(2).unwrap();
        assert_eq!(list.len(), 20_000);
        assert_eq!(archive.entries()[2].size, 20_000);
        assert_eq!(&list[..8], &[0, 0, 0, 0, 0, 0, 0, 1]);
        let err = archive.read(4).unwrap_err();
        match &err {
            ArchiveError::Unsupported { entry, what, .. } => {
                assert_eq!(entry.as_deref(), Some("/jdk.x/x/Shared.class"));
                assert!(what.contains("compact-cp"), "{what}");
            }
            other => panic!("expected Unsupported, got {other:?}"),
        }
        assert_eq!(&*archive.read(6).unwrap(), &[1, 2, 3, 4]);
        assert_eq!(archive.find("/java.base/module-info.class"), Some(3));
        assert_eq!(archive.find("/java.base/Nope.class"), None);
    }

    #[test]
    fn reads_little_endian_image() {
        check_sample(false);
    }

    #[test]
    fn reads_big_endian_image() {
        check_sample(true);
    }

    fn expect_corrupt(bytes: &[u8], what: &str) {
        let dir = tempfile::tempdir().unwrap();
        let path = write_image(&dir, bytes);
        match Archive::open(&path) {
            Err(ArchiveError::Corrupt { detail, .. }) => {
                assert!(detail.contains(what), "{detail:?} should mention {what:?}")
            }
            other => panic!("expected Corrupt ({what}), got {other:?}"),
        }
    }

    fn set_u32(bytes: &mut [u8], at: usize, v: u32) {
        bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    #[test]
    fn bad_headers_are_corrupt() {
        let good = sample(false);

        let mut bad = good.clone();
        bad[0] = 0xDB;
        expect_corrupt(&bad, "magic");

        let mut bad = good.clone();
        set_u32(&mut bad, 4, 2 << 16);
        expect_corrupt(&bad, "version");

        let mut bad = good.clone();
        set_u32(&mut bad, 16, u32::MAX);
        expect_corrupt(&bad, "past the end of the file");

        let mut bad = good.clone();
        set_u32(&mut bad, 20, u32::MAX);
        expect_corrupt(&bad, "past the end of the file");

        let mut bad = good.clone();
        set_u32(&mut bad, 24, u32::MAX - 3);
        expect_corrupt(&bad, "past the end of the file");

        expect_corrupt(&good[..27], "too short");
        expect_corrupt(&good[..3], "magic");
    }

    #[test]
    fn bad_locations_are_corrupt() {
        let good = sample(false);
        let count = 8;
        let offsets_at = 28 + count * 4;
        let locations_size = u32::from_le_bytes(good[20..24].try_into().unwrap()) as usize;
        let strings_size = u32::from_le_bytes(good[24..28].try_into().unwrap());
        let locations_at = offsets_at + count * 4;

        // A location offset past the blob.
        let mut bad = good.clone();
        set_u32(&mut bad, offsets_at + 4, locations_size as u32);
        expect_corrupt(&bad, "past the end of the locations blob");

        // A string offset out of range: rewrite the first location's module
        // attribute (its first attribute) to point past the blob.
        let mut bad = good.clone();
        let first = bad[locations_at];
        assert_eq!(first >> 3, ATTR_MODULE as u8);
        let len = usize::from(first & 7) + 1;
        assert_eq!(len, 1);
        bad[locations_at] = (ATTR_MODULE as u8) << 3 | 3;
        bad.splice(
            locations_at + 1..locations_at + 2,
            (strings_size + 10).to_be_bytes(),
        );
        set_u32(&mut bad, 20, locations_size as u32 + 3);
        // The other locations moved by 3 bytes.
        for i in 1..count {
            let at = offsets_at + i * 4;
            let v = u32::from_le_bytes(bad[at..at + 4].try_into().unwrap());
            set_u32(&mut bad, at, v + 3);
        }
        expect_corrupt(&bad, "string offset");

        // An unknown attribute kind.
        let mut bad = good.clone();
        bad[locations_at] = 9 << 3;
        expect_corrupt(&bad, "unknown attribute kind");

        // Contents past the end of the file.
        let dir = tempfile::tempdir().unwrap();
        let path = write_image(&dir, &good[..good.len() - 1]);
        let err = Archive::open(&path).unwrap_err();
        assert!(
            matches!(&err, ArchiveError::Corrupt { entry: Some(_), .. }),
            "{err}"
        );
    }

    /// Damage every byte of the index in turn: opening and reading must
    /// answer an error or data, never panic.
    #[test]
    fn no_panic_on_damaged_index() {
        let good = sample(false);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("modules");
        let field = |i: usize| u32::from_le_bytes(good[i * 4..i * 4 + 4].try_into().unwrap());
        let index_len = 28 + field(4) as usize * 8 + field(5) as usize + field(6) as usize;
        for at in 0..index_len {
            for flip in [0xFF, 0x80, 0x01] {
                let mut bad = good.clone();
                bad[at] ^= flip;
                std::fs::write(&path, &bad).unwrap();
                if let Ok(archive) = Archive::open(&path) {
                    for i in 0..archive.entries().len() {
                        let _ = archive.read(i);
                    }
                }
            }
        }
        for cut in 0..good.len().min(600) {
            std::fs::write(&path, &good[..cut]).unwrap();
            assert!(Archive::open(&path).is_err());
        }
    }

    #[test]
    fn modified_utf8() {
        assert_eq!(decode_modified_utf8(b"abc").as_deref(), Some("abc"));
        assert_eq!(decode_modified_utf8(b"a\xC0\x80b").as_deref(), Some("a\0b"));
        // U+1F600 as a CESU-8 surrogate pair.
        assert_eq!(
            decode_modified_utf8(b"\xED\xA0\xBD\xED\xB8\x80").as_deref(),
            Some("\u{1F600}")
        );
        assert_eq!(decode_modified_utf8(b"\xED\xA0\xBD"), None);
        assert_eq!(decode_modified_utf8(b"\xC3"), None);
        assert_eq!(decode_modified_utf8(b"\xFF"), None);
    }

    fn check_jdk_image(path: &str) {
        let path = Path::new(path);
        if !path.exists() {
            eprintln!("skipping: {} does not exist", path.display());
            return;
        }
        let archive = Archive::open(path).unwrap();
        assert_eq!(archive.kind(), ArchiveKind::JImage);
        let mut classes = 0;
        for (i, entry) in archive.entries().iter().enumerate() {
            if entry.class_name().is_some() {
                classes += 1;
                let bytes = archive.read(i).unwrap();
                assert_eq!(bytes.len() as u64, entry.size);
                assert_eq!(&bytes[..4], b"\xCA\xFE\xBA\xBE", "{}", entry.name);
            }
        }
        assert!(classes > 20_000, "only {classes} classes");
        let object = archive.find("/java.base/java/lang/Object.class").unwrap();
        assert_eq!(
            archive.entries()[object].class_name(),
            Some("java/lang/Object")
        );
        let bytes = archive.read(object).unwrap();
        assert!(matches!(bytes, Cow::Borrowed(_)));
        assert_eq!(&bytes[..4], b"\xCA\xFE\xBA\xBE");
        assert!(archive
            .find("/java.base/module-info.class")
            .is_some_and(|i| archive.entries()[i].class_name() == Some("module-info")));
        eprintln!(
            "{}: {} entries, {classes} classes",
            path.display(),
            archive.entries().len()
        );
    }

    #[test]
    fn jdk17_image() {
        check_jdk_image("/usr/lib/jvm/java-17-openjdk-amd64/lib/modules");
    }

    #[test]
    fn jdk25_image() {
        check_jdk_image("/usr/lib/jvm/temurin-25-jdk-amd64/lib/modules");
    }
}
