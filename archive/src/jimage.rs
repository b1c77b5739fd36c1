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
//! redirect   table_length × i32    (the perfect-hash table for lookups)
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
//!
//! A resource is found by name without enumerating anything through the
//! redirect table, a perfect hash: slot `hash(name) % table_length` of
//! `redirect` holds either `-index - 1` (the location is `offsets[index]`)
//! or a seed `s > 0` (the location is `offsets[hash_s(name) % table_length]`)
//! or 0 (no such resource). Any name lands on some location, so the location
//! found must still be checked to bear the name. The resource
//! `/packages/<package.with.dots>` lists the modules holding a package, as
//! pairs of u32 `(is_empty, module name string offset)`.
//!
//! [`JImage`] (behind [`Archive`](crate::Archive)) lists every resource at
//! open time; [`RuntimeImage`] only looks classes up by name.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use memmap2::Mmap;

use crate::{ArchiveError, ArchiveKind, Entry};

/// The magic number of a jimage.
pub(crate) const MAGIC: u32 = 0xCAFE_DADA;
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
/// The multiplier of the image's string hash, also its default seed.
pub(crate) const HASH_MULTIPLIER: i32 = 0x0100_0193;

/// Location attribute kinds.
pub(crate) const ATTR_END: u8 = 0;
pub(crate) const ATTR_MODULE: usize = 1;
pub(crate) const ATTR_PARENT: usize = 2;
pub(crate) const ATTR_BASE: usize = 3;
pub(crate) const ATTR_EXTENSION: usize = 4;
pub(crate) const ATTR_OFFSET: usize = 5;
pub(crate) const ATTR_COMPRESSED: usize = 6;
pub(crate) const ATTR_UNCOMPRESSED: usize = 7;
pub(crate) const ATTR_COUNT: usize = 8;

/// The decoded attributes of a location, indexed by kind.
pub(crate) type Attributes = [u64; ATTR_COUNT];

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

/// The mapped file of an image, its byte order and where its tables lie:
/// everything [`JImage`] and [`RuntimeImage`] share. Opening checks the
/// header and that the tables lie within the file, and decodes nothing
/// else.
struct ImageTables {
    map: Mmap,
    order: ByteOrder,
    /// Slots of the redirect and offsets tables.
    table_length: usize,
    /// Where the redirect table starts in `map`.
    redirect_start: usize,
    /// Where the offsets table starts in `map`.
    offsets_start: usize,
    /// The locations blob, as a range of `map`.
    locations: Range<usize>,
    /// The strings blob, as a range of `map`.
    strings: Range<usize>,
}

impl ImageTables {
    /// Checks the magic, version and table bounds of the image in `map`.
    fn open(path: &Path, map: Mmap) -> Result<ImageTables, ArchiveError> {
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
        Ok(ImageTables {
            order,
            table_length: table_length as usize,
            redirect_start: HEADER_SIZE as usize,
            offsets_start: offsets_start as usize,
            locations: locations_start as usize..strings_start as usize,
            strings: strings_start as usize..index_size as usize,
            map,
        })
    }

    fn locations(&self) -> &[u8] {
        &self.map[self.locations.clone()]
    }

    fn strings(&self) -> &[u8] {
        &self.map[self.strings.clone()]
    }

    /// The size of the index; resource offsets are relative to its end.
    fn index_size(&self) -> usize {
        self.strings.end
    }

    /// Slot `slot` of the offsets table.
    fn offset(&self, slot: usize) -> Option<u32> {
        if slot >= self.table_length {
            return None;
        }
        self.order.u32_at(&self.map, self.offsets_start + slot * 4)
    }

    /// Slot `slot` of the redirect table.
    fn redirect(&self, slot: usize) -> Option<i32> {
        if slot >= self.table_length {
            return None;
        }
        let v = self
            .order
            .u32_at(&self.map, self.redirect_start + slot * 4)?;
        Some(v as i32)
    }

    /// The attributes of the location at `offset` of the locations blob.
    fn location(&self, offset: u32) -> Result<Attributes, String> {
        decode_location(self.locations(), offset)
            .map_err(|detail| format!("location at offset {offset}: {detail}"))
    }

    /// The raw (modified UTF-8) bytes of the string at `offset`.
    fn string_bytes(&self, offset: u64) -> Result<&[u8], String> {
        string_bytes_at(self.strings(), offset)
    }

    /// Where the contents of the location with `attributes` lie, or why they
    /// cannot be in the file.
    fn resource(&self, attributes: &Attributes) -> Result<Resource, String> {
        let len = self.map.len() as u64;
        let compressed = attributes[ATTR_COMPRESSED];
        let stored = if compressed != 0 {
            compressed
        } else {
            attributes[ATTR_UNCOMPRESSED]
        };
        let start = (self.index_size() as u64).checked_add(attributes[ATTR_OFFSET]);
        let end = start.and_then(|start| start.checked_add(stored));
        match (start, end) {
            (Some(start), Some(end)) if end <= len => Ok(Resource {
                start: start as usize,
                stored: stored as usize,
                compressed: compressed != 0,
            }),
            _ => Err(format!(
                "contents ({stored} bytes at offset {} after the index) extend \
                 past the end of the file ({len} bytes)",
                attributes[ATTR_OFFSET]
            )),
        }
    }

    /// The location named `name` (a full name, `/module/parent/base.ext`),
    /// found through the perfect-hash table and checked to bear that name.
    /// An error means that the tables are damaged.
    fn find(&self, name: &str) -> Result<Option<Attributes>, String> {
        let count = self.table_length;
        if count == 0 {
            return Ok(None);
        }
        let bytes = modified_utf8(name);
        let slot = hash(&bytes, HASH_MULTIPLIER) as usize % count;
        let redirect = self
            .redirect(slot)
            .ok_or_else(|| format!("redirect slot {slot} is past the end of the file"))?;
        let index = match redirect {
            0 => return Ok(None),
            r if r < 0 => (-i64::from(r) - 1) as usize,
            seed => hash(&bytes, seed) as usize % count,
        };
        let offset = self.offset(index).ok_or_else(|| {
            format!("redirect slot {slot} ({redirect}) points outside the table of {count} slots")
        })?;
        let attributes = self.location(offset)?;
        if self.bears_name(&attributes, &bytes)? {
            Ok(Some(attributes))
        } else {
            Ok(None)
        }
    }

    /// Whether the location with `attributes` is named `name` (modified
    /// UTF-8), that is whether `name` is `/module/parent/base.extension` as
    /// [`full_name`] builds it.
    fn bears_name(&self, attributes: &Attributes, name: &[u8]) -> Result<bool, String> {
        let module = self.string_bytes(attributes[ATTR_MODULE])?;
        let parent = self.string_bytes(attributes[ATTR_PARENT])?;
        let base = self.string_bytes(attributes[ATTR_BASE])?;
        let extension = self.string_bytes(attributes[ATTR_EXTENSION])?;
        let mut rest = name;
        // Strips `part` off the front of `rest` if it is there.
        let mut eat = |part: &[u8]| match rest.strip_prefix(part) {
            Some(tail) => {
                rest = tail;
                true
            }
            None => false,
        };
        let matches = (module.is_empty() || (eat(b"/") && eat(module) && eat(b"/")))
            && (parent.is_empty() || (eat(parent) && eat(b"/")))
            && eat(base)
            && (extension.is_empty() || (eat(b".") && eat(extension)));
        Ok(matches && rest.is_empty())
    }

    /// The contents of `resource`, which decompress to `size` bytes: borrowed
    /// if stored uncompressed. `name` is for messages.
    fn read(
        &self,
        path: &Path,
        name: Option<&str>,
        resource: Resource,
        size: u64,
    ) -> Result<Cow<'_, [u8]>, ArchiveError> {
        // Checked when the resource was made; `get` keeps this panic-free
        // regardless.
        let stored = self
            .map
            .get(resource.start..resource.start.saturating_add(resource.stored))
            .ok_or_else(|| ArchiveError::corrupt(path, name, "contents past the end of file"))?;
        if !resource.compressed {
            return Ok(Cow::Borrowed(stored));
        }
        let data = self.decompress(path, name, stored)?;
        if data.len() as u64 != size {
            return Err(ArchiveError::corrupt(
                path,
                name,
                format!(
                    "decompresses to {} bytes, but the location says {size}",
                    data.len(),
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
        let strings = self.strings();
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

/// An opened jimage, every resource listed.
pub(crate) struct JImage {
    /// Shared by the images [`select`](Self::select) makes of one file.
    tables: Arc<ImageTables>,
    /// One per entry, in the same (name) order.
    resources: Vec<Resource>,
}

impl JImage {
    /// The same image with only the resources at `keep` (indices, in order).
    pub(crate) fn select(&self, keep: &[usize]) -> JImage {
        let resources = keep.iter().map(|&i| self.resources[i]).collect();
        JImage {
            tables: self.tables.clone(),
            resources,
        }
    }

    /// Parses and checks the index of the image in `map`, listing its
    /// resources sorted by name.
    pub(crate) fn open(path: &Path, map: Mmap) -> Result<(JImage, Vec<Entry>), ArchiveError> {
        let corrupt = |detail: String| ArchiveError::corrupt(path, None, detail);
        let tables = ImageTables::open(path, map)?;
        let strings = tables.strings();

        // Every slot of the offsets table points at a location; visit each
        // location once.
        let mut offsets: Vec<u32> = (0..tables.table_length)
            .map(|slot| tables.offset(slot).unwrap_or(0))
            .collect();
        offsets.sort_unstable();
        offsets.dedup();

        let mut found = Vec::with_capacity(offsets.len());
        for offset in offsets {
            let attributes = tables.location(offset).map_err(corrupt)?;
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
            let resource = tables
                .resource(&attributes)
                .map_err(|detail| ArchiveError::corrupt(path, Some(&name), detail))?;
            let is_dir = name == "/modules" || name == "/packages" || is_index_module(&module);
            found.push((name, is_dir, attributes[ATTR_UNCOMPRESSED], resource));
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
        let tables = Arc::new(tables);
        Ok((JImage { tables, resources }, entries))
    }

    /// The contents of entry `index`: borrowed if stored uncompressed.
    pub(crate) fn read<'a>(
        &'a self,
        path: &Path,
        index: usize,
        entry: &Entry,
    ) -> Result<Cow<'a, [u8]>, ArchiveError> {
        let resource = self
            .resources
            .get(index)
            .ok_or_else(|| ArchiveError::NoSuchEntry {
                path: path.to_path_buf(),
                index,
                count: self.resources.len(),
            })?;
        self.tables
            .read(path, Some(entry.name.as_str()), *resource, entry.size)
    }
}

/// A JDK run-time image (`lib/modules`) opened for lookups by name; nothing
/// is enumerated.
///
/// Opening checks the header and the bounds of the tables, like
/// [`Archive::open`](crate::Archive::open) does, but decodes no location:
/// it costs a memory mapping and a few reads. Each
/// [`read_class`](RuntimeImage::read_class) then finds the module of the
/// class's package (cached) and the class itself through the image's own
/// perfect-hash table, as the JVM does. Damage outside what a lookup reads
/// goes unnoticed.
///
/// `RuntimeImage` is `Send + Sync`; lookups take `&self`. As with
/// [`Archive`](crate::Archive), the file must not be modified while it is
/// mapped.
pub struct RuntimeImage {
    path: PathBuf,
    tables: ImageTables,
    /// Package (internal form, `java/lang`) → the module holding its
    /// classes, `None` if the image has no such package.
    packages: RwLock<HashMap<Box<str>, Option<Arc<str>>>>,
}

impl fmt::Debug for RuntimeImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RuntimeImage")
            .field("path", &self.path)
            .field("table_length", &self.tables.table_length)
            .finish()
    }
}

impl RuntimeImage {
    /// Maps `path` and checks that it is a jimage (magic, version 1.0)
    /// whose tables lie within the file; damage there is
    /// [`ArchiveError::Corrupt`].
    pub fn open(path: &Path) -> Result<RuntimeImage, ArchiveError> {
        let file = std::fs::File::open(path).map_err(|e| ArchiveError::io(path, None, e))?;
        // SAFETY: as in `Archive::open`: the mapping is read-only, the
        // file must not change while mapped (documented at the crate level),
        // and every read of the mapping is bounds-checked.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| ArchiveError::io(path, None, e))?;
        drop(file);
        let tables = ImageTables::open(path, map)?;
        Ok(RuntimeImage {
            path: path.to_path_buf(),
            tables,
            packages: RwLock::new(HashMap::new()),
        })
    }

    /// The path the image was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The class file of class `internal_name` (`java/lang/Object`): the
    /// contents of `/<module>/java/lang/Object.class`, where the module is
    /// the one that `/packages/java.lang` names, decompressed if jlink
    /// compressed it. Borrowed from the mapping when stored uncompressed.
    ///
    /// `Ok(None)` when the image has no such class, including for names in
    /// no package (`module-info`, which every module has, among them).
    /// Errors are for damaged tables or contents
    /// ([`ArchiveError::Corrupt`]) and for compression this crate cannot
    /// undo ([`ArchiveError::Unsupported`]).
    pub fn read_class(&self, internal_name: &str) -> Result<Option<Cow<'_, [u8]>>, ArchiveError> {
        let Some((package, simple)) = internal_name.rsplit_once('/') else {
            return Ok(None);
        };
        if package.is_empty() || simple.is_empty() {
            return Ok(None);
        }
        let Some(module) = self.module_of(package)? else {
            return Ok(None);
        };
        let name = format!("/{module}/{internal_name}.class");
        let corrupt = |detail: String| ArchiveError::corrupt(&self.path, Some(&name), detail);
        let Some(attributes) = self.tables.find(&name).map_err(corrupt)? else {
            return Ok(None);
        };
        let resource = self.tables.resource(&attributes).map_err(corrupt)?;
        self.tables
            .read(
                &self.path,
                Some(&name),
                resource,
                attributes[ATTR_UNCOMPRESSED],
            )
            .map(Some)
    }

    /// The module whose classes are in `package` (`java/lang`): the first
    /// module that `/packages/java.lang` lists as non-empty. Cached.
    pub fn module_of(&self, package: &str) -> Result<Option<Arc<str>>, ArchiveError> {
        if let Some(module) = self
            .packages
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(package)
        {
            return Ok(module.clone());
        }
        let name = format!("/packages/{}", package.replace('/', "."));
        let corrupt = |detail: String| ArchiveError::corrupt(&self.path, Some(&name), detail);
        let mut module = None;
        if let Some(attributes) = self.tables.find(&name).map_err(corrupt)? {
            let resource = self.tables.resource(&attributes).map_err(corrupt)?;
            let contents = self.tables.read(
                &self.path,
                Some(&name),
                resource,
                attributes[ATTR_UNCOMPRESSED],
            )?;
            if contents.len() % 8 != 0 {
                return Err(corrupt(format!(
                    "{} bytes, not a list of (u32, u32) pairs",
                    contents.len()
                )));
            }
            let order = self.tables.order;
            for pair in contents.chunks_exact(8) {
                let is_empty = order.u32_at(pair, 0).unwrap_or(1);
                let offset = order.u32_at(pair, 4).unwrap_or(0);
                if is_empty != 0 {
                    continue;
                }
                let m = string_at(self.tables.strings(), u64::from(offset))
                    .map_err(|detail| corrupt(format!("module name: {detail}")))?;
                // A class lives in a real module, never in the pseudo-modules
                // of the directory tree.
                if !m.is_empty() && !is_index_module(&m) {
                    module = Some(Arc::from(m));
                }
                break;
            }
        }
        self.packages
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(package.into(), module.clone());
        Ok(module)
    }
}

/// The image's string hash: each byte of `name` (modified UTF-8) folded
/// into `seed` as `seed * HASH_MULTIPLIER ^ byte` in 32-bit arithmetic, then
/// made non-negative.
pub(crate) fn hash(name: &[u8], seed: i32) -> i32 {
    let h = name
        .iter()
        .fold(seed, |h, &b| h.wrapping_mul(HASH_MULTIPLIER) ^ i32::from(b));
    h & 0x7FFF_FFFF
}

/// `s` in modified UTF-8, the encoding of the image's strings: NUL as two
/// bytes and supplementary characters as two three-byte surrogates; other
/// characters as in UTF-8, so most names are borrowed unchanged.
pub(crate) fn modified_utf8(s: &str) -> Cow<'_, [u8]> {
    if !s.bytes().any(|b| b == 0 || b >= 0xF0) {
        return Cow::Borrowed(s.as_bytes());
    }
    let mut out = Vec::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c == '\0' {
            out.extend_from_slice(&[0xC0, 0x80]);
        } else if u32::from(c) > 0xFFFF {
            let mut units = [0u16; 2];
            for &unit in c.encode_utf16(&mut units).iter() {
                out.push(0xE0 | (unit >> 12) as u8);
                out.push(0x80 | ((unit >> 6) & 0x3F) as u8);
                out.push(0x80 | (unit & 0x3F) as u8);
            }
        } else {
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
    }
    Cow::Owned(out)
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
pub(crate) fn decode_location(locations: &[u8], offset: u32) -> Result<Attributes, String> {
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

/// The raw bytes of the NUL-terminated string at `offset` of the strings
/// blob.
fn string_bytes_at(strings: &[u8], offset: u64) -> Result<&[u8], String> {
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
    Ok(&strings[start..start + len])
}

/// The NUL-terminated string at `offset` of the strings blob.
pub(crate) fn string_at(strings: &[u8], offset: u64) -> Result<String, String> {
    decode_modified_utf8(string_bytes_at(strings, offset)?)
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
pub(crate) fn full_name(module: &str, parent: &str, base: &str, extension: &str) -> String {
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

        /// Adds `/packages/<package>`, listing `(module, is_empty)`.
        fn add_package(&mut self, package: &str, modules: &[(&str, bool)]) {
            let mut content = Vec::new();
            for &(module, is_empty) in modules {
                let at = self.intern(module);
                content.extend_from_slice(&self.u32(u32::from(is_empty)));
                content.extend_from_slice(&self.u32(at));
            }
            self.add("packages", "", package, "", &content);
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
            let names: Vec<Vec<u8>> = resources
                .iter()
                .map(|(m, p, b, e, ..)| super::modified_utf8(&full_name(m, p, b, e)).into_owned())
                .collect();
            let (redirect, slots) = perfect_hash(&names);
            let mut table = vec![0; offsets.len()];
            for (i, &slot) in slots.iter().enumerate() {
                table[slot] = offsets[i];
            }
            for r in redirect {
                out.extend_from_slice(&self.u32(r as u32));
            }
            for offset in table {
                out.extend_from_slice(&self.u32(offset));
            }
            out.extend_from_slice(&locations);
            out.extend_from_slice(&self.strings);
            out.extend_from_slice(&contents);
            out
        }
    }

    /// A perfect-hash table for `names` (modified UTF-8), built as the
    /// JDK's builder does: names are put in buckets by their hash with the
    /// default seed; each bucket of several names gets the first seed
    /// that sends them all to free distinct slots, then each bucket of one
    /// name gets the next free slot directly (`-slot - 1`). Answers the
    /// redirect table and the slot of each name.
    fn perfect_hash(names: &[Vec<u8>]) -> (Vec<i32>, Vec<usize>) {
        let count = names.len();
        let mut buckets = vec![Vec::new(); count];
        for (i, name) in names.iter().enumerate() {
            buckets[hash(name, HASH_MULTIPLIER) as usize % count].push(i);
        }
        let mut order: Vec<usize> = (0..count).collect();
        order.sort_by_key(|&b| std::cmp::Reverse(buckets[b].len()));
        let mut redirect = vec![0i32; count];
        let mut used = vec![false; count];
        let mut slots = vec![usize::MAX; count];
        for &b in order.iter().filter(|&&b| buckets[b].len() > 1) {
            let seed = (1..1_000_000)
                .find(|&seed| {
                    let mut taken: Vec<usize> = buckets[b]
                        .iter()
                        .map(|&i| hash(&names[i], seed) as usize % count)
                        .collect();
                    taken.sort_unstable();
                    taken.dedup();
                    taken.len() == buckets[b].len() && taken.iter().all(|&s| !used[s])
                })
                .expect("no seed separates the bucket: duplicate names?");
            redirect[b] = seed;
            for &i in &buckets[b] {
                let slot = hash(&names[i], seed) as usize % count;
                used[slot] = true;
                slots[i] = slot;
            }
        }
        let mut free = (0..count)
            .filter(|&s| !used[s])
            .collect::<Vec<_>>()
            .into_iter();
        for &b in order.iter().filter(|&&b| buckets[b].len() == 1) {
            let slot = free.next().unwrap();
            redirect[b] = -(slot as i32) - 1;
            slots[buckets[b][0]] = slot;
        }
        (redirect, slots)
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
        b.add_package(
            "java.lang",
            &[("java.instrument", true), ("java.base", false)],
        );
        b.add_package("java.util", &[("java.base", false)]);
        b.add_package("x", &[("jdk.x", false)]);
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
                "/packages/java.util",
                "/packages/x",
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
                None,
                None,
                None
            ]
        );
        let dirs: Vec<_> = archive.entries().iter().map(|e| e.is_dir).collect();
        assert_eq!(
            dirs,
            [false, false, false, false, false, true, true, true, true, true]
        );

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
        let count = u32::from_le_bytes(good[16..20].try_into().unwrap()) as usize;
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
        for i in 0..count {
            let at = offsets_at + i * 4;
            let v = u32::from_le_bytes(bad[at..at + 4].try_into().unwrap());
            if v != 0 {
                set_u32(&mut bad, at, v + 3);
            }
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

    fn open_runtime(bytes: &[u8]) -> (tempfile::TempDir, RuntimeImage) {
        let dir = tempfile::tempdir().unwrap();
        let path = write_image(&dir, bytes);
        let image = RuntimeImage::open(&path).unwrap();
        (dir, image)
    }

    /// Names that no image of these tests holds as a class.
    const MISSING: &[&str] = &[
        "java/lang/NoSuchClass",
        "nope/X",
        "java/lang",
        "java",
        "module-info",
        "java/lang/",
        "/java/lang/Object",
        "java//lang/Object",
        "",
        "/",
        "java/lang/uniName",
        "java/lang/Object.class",
        "java/lang/Object\0",
        "java/lang/Obj\u{1F600}ect",
    ];

    fn check_runtime_sample(big_endian: bool) {
        let (_dir, image) = open_runtime(&sample(big_endian));
        let object = image.read_class("java/lang/Object").unwrap().unwrap();
        assert!(matches!(object, Cow::Borrowed(_)));
        assert_eq!(&*object, OBJECT);
        let list = image.read_class("java/util/List").unwrap().unwrap();
        assert!(matches!(list, Cow::Owned(_)));
        assert_eq!(list.len(), 20_000);
        assert_eq!(&list[..8], &[0, 0, 0, 0, 0, 0, 0, 1]);
        let err = image.read_class("x/Shared").unwrap_err();
        match &err {
            ArchiveError::Unsupported { entry, what, .. } => {
                assert_eq!(entry.as_deref(), Some("/jdk.x/x/Shared.class"));
                assert!(what.contains("compact-cp"), "{what}");
            }
            other => panic!("expected Unsupported, got {other:?}"),
        }
        for name in MISSING {
            assert!(image.read_class(name).unwrap().is_none(), "{name:?}");
        }
        // The empty `java.instrument` is skipped, `java.base` is cached.
        assert_eq!(
            image.module_of("java/lang").unwrap().as_deref(),
            Some("java.base")
        );
        assert_eq!(image.module_of("nope").unwrap(), None);
        let cached = image.packages.read().unwrap();
        assert_eq!(cached.get("java/lang"), Some(&Some(Arc::from("java.base"))));
        assert_eq!(cached.get("nope"), Some(&None));
        drop(cached);
        // Every resource is found by its full name, and nothing else is.
        let archive = Archive::open(image.path()).unwrap();
        for entry in archive.entries() {
            let found = image.tables.find(&entry.name).unwrap();
            assert!(found.is_some(), "{}", entry.name);
            assert!(image
                .tables
                .find(&format!("{}x", entry.name))
                .unwrap()
                .is_none());
        }
        assert_eq!(image.path(), archive.path());
    }

    #[test]
    fn runtime_image_little_endian() {
        check_runtime_sample(false);
    }

    #[test]
    fn runtime_image_big_endian() {
        check_runtime_sample(true);
    }

    /// A larger image, so that the hash table has buckets of several names
    /// (found with a seed) as well as single ones.
    #[test]
    fn runtime_image_many_classes() {
        for big_endian in [false, true] {
            let mut b = Builder::new(big_endian);
            let class = |i: usize| format!("p{}/q/C{i}", i % 13);
            for k in 0..13 {
                b.add_package(&format!("p{k}.q"), &[(&format!("m{}", k % 3), false)]);
            }
            for i in 0..2000 {
                let name = class(i);
                let (parent, base) = name.rsplit_once('/').unwrap();
                let module = format!("m{}", i % 13 % 3);
                let content = format!("class {i}").into_bytes();
                let store = if i % 5 == 0 {
                    Store::Compressed("zip")
                } else {
                    Store::Plain
                };
                b.add_stored(&module, parent, base, "class", &content, store);
            }
            let bytes = b.build();
            let (_dir, image) = open_runtime(&bytes);
            let count = image.tables.table_length;
            let redirect: Vec<i32> = (0..count)
                .map(|slot| image.tables.redirect(slot).unwrap())
                .collect();
            assert!(redirect.iter().any(|&r| r > 0), "no seeded bucket");
            assert!(redirect.iter().any(|&r| r < 0), "no direct bucket");
            assert!(redirect.contains(&0), "no empty bucket");
            std::thread::scope(|scope| {
                for t in 0..4 {
                    let image = &image;
                    scope.spawn(move || {
                        for i in (t..2000).step_by(4) {
                            let got = image.read_class(&class(i)).unwrap().unwrap();
                            assert_eq!(&*got, format!("class {i}").as_bytes());
                            let missing = format!("p{}/q/D{i}", i % 13);
                            assert!(image.read_class(&missing).unwrap().is_none());
                        }
                    });
                }
            });
            // A class in a package of another module is not found.
            assert!(image.read_class("p1/q/C0").unwrap().is_none());
        }
    }

    #[test]
    fn runtime_image_bad_headers_are_corrupt() {
        let good = sample(false);
        let dir = tempfile::tempdir().unwrap();
        let expect = |bytes: &[u8], what: &str| {
            let path = write_image(&dir, bytes);
            match RuntimeImage::open(&path) {
                Err(ArchiveError::Corrupt { detail, .. }) => {
                    assert!(detail.contains(what), "{detail:?} should mention {what:?}")
                }
                other => panic!("expected Corrupt ({what}), got {other:?}"),
            }
        };
        let mut bad = good.clone();
        bad[0] = 0xDB;
        expect(&bad, "magic");
        let mut bad = good.clone();
        set_u32(&mut bad, 4, 2 << 16);
        expect(&bad, "version");
        for field in [16, 20, 24] {
            let mut bad = good.clone();
            set_u32(&mut bad, field, u32::MAX - 3);
            expect(&bad, "past the end of the file");
        }
        expect(&good[..27], "too short");
        expect(&good[..3], "magic");
        expect(&[], "magic");
        let err = RuntimeImage::open(&dir.path().join("missing")).unwrap_err();
        assert!(matches!(err, ArchiveError::Io { .. }), "{err}");

        // An empty redirect table finds nothing.
        let count = u32::from_le_bytes(good[16..20].try_into().unwrap()) as usize;
        let mut bad = good.clone();
        bad[28..28 + count * 4].fill(0);
        let (_dir, image) = open_runtime(&bad);
        assert!(image.read_class("java/lang/Object").unwrap().is_none());
        // A redirect past the table is damage.
        let mut bad = good.clone();
        for slot in 0..count {
            set_u32(&mut bad, 28 + slot * 4, (-(count as i32) - 1) as u32);
        }
        let (_dir, image) = open_runtime(&bad);
        let err = image.read_class("java/lang/Object").unwrap_err();
        assert!(matches!(err, ArchiveError::Corrupt { .. }), "{err}");
    }

    /// Damage every byte of the index (the redirect and offsets tables
    /// first of all) in turn: lookups must answer an error, `None` or data,
    /// never panic.
    #[test]
    fn runtime_image_no_panic_on_damaged_index() {
        let good = sample(false);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("modules");
        let field = |i: usize| u32::from_le_bytes(good[i * 4..i * 4 + 4].try_into().unwrap());
        let index_len = 28 + field(4) as usize * 8 + field(5) as usize + field(6) as usize;
        let names = ["java/lang/Object", "java/util/List", "x/Shared"];
        let mut outcomes = [0usize; 3];
        for at in 0..index_len {
            for flip in [0xFF, 0x80, 0x01, 0x7F] {
                let mut bad = good.clone();
                bad[at] ^= flip;
                std::fs::write(&path, &bad).unwrap();
                let Ok(image) = RuntimeImage::open(&path) else {
                    continue;
                };
                for name in names.iter().chain(MISSING) {
                    match image.read_class(name) {
                        Ok(Some(_)) => outcomes[0] += 1,
                        Ok(None) => outcomes[1] += 1,
                        Err(_) => outcomes[2] += 1,
                    }
                }
            }
        }
        assert!(outcomes.iter().all(|&n| n > 0), "{outcomes:?}");
        for cut in 0..good.len() {
            std::fs::write(&path, &good[..cut]).unwrap();
            if let Ok(image) = RuntimeImage::open(&path) {
                for name in names.iter().chain(MISSING) {
                    let _ = image.read_class(name);
                }
            }
        }
    }

    #[test]
    fn hash_and_modified_utf8() {
        assert!(matches!(super::modified_utf8("a/\u{e9}"), Cow::Borrowed(_)));
        assert_eq!(&*super::modified_utf8("a\0b"), b"a\xC0\x80b");
        let smiley = super::modified_utf8("\u{1F600}");
        assert_eq!(&*smiley, b"\xED\xA0\xBD\xED\xB8\x80");
        assert_eq!(decode_modified_utf8(&smiley).as_deref(), Some("\u{1F600}"));
        // Worked by hand: ((0x01000193 * 0x01000193) ^ 0x61) & 0x7FFFFFFF.
        let expected = (HASH_MULTIPLIER.wrapping_mul(HASH_MULTIPLIER) ^ 0x61) & 0x7FFF_FFFF;
        assert_eq!(hash(b"a", HASH_MULTIPLIER), expected);
        assert_eq!(hash(b"", 5), 5);
        assert!(hash(b"\xFF\xFF\xFF\xFF", i32::MIN) >= 0);
    }

    /// For every class that [`Archive`] lists, [`RuntimeImage::read_class`]
    /// answers the same bytes.
    fn check_jdk_runtime_image(path: &str) {
        let path = Path::new(path);
        if !path.exists() {
            eprintln!("SKIP: {} does not exist", path.display());
            return;
        }
        let t0 = std::time::Instant::now();
        let archive = Archive::open(path).unwrap();
        let t1 = std::time::Instant::now();
        let image = RuntimeImage::open(path).unwrap();
        let t2 = std::time::Instant::now();
        let mut classes = 0;
        for (i, entry) in archive.entries().iter().enumerate() {
            assert!(
                image.tables.find(&entry.name).unwrap().is_some(),
                "{}",
                entry.name
            );
            let Some(class) = entry.class_name() else {
                continue;
            };
            if class == "module-info" {
                // In every module: not a class one can look up by name.
                assert!(image.read_class(class).unwrap().is_none());
                continue;
            }
            classes += 1;
            let expected = archive.read(i).unwrap();
            let got = image.read_class(class).unwrap();
            assert_eq!(got.as_deref(), Some(&*expected), "{}", entry.name);
        }
        let t3 = std::time::Instant::now();
        assert!(classes > 20_000, "only {classes} classes");
        for name in MISSING {
            assert!(image.read_class(name).unwrap().is_none(), "{name:?}");
        }
        for name in [
            "java/lang/Object",
            "java/util/ArrayList",
            "javax/lang/model/SourceVersion",
        ] {
            let bytes = image.read_class(name).unwrap().unwrap();
            assert_eq!(&bytes[..4], b"\xCA\xFE\xBA\xBE", "{name}");
        }
        eprintln!(
            "{}: Archive::open {:?}, RuntimeImage::open {:?}, {classes} classes compared in {:?}",
            path.display(),
            t1 - t0,
            t2 - t1,
            t3 - t2
        );
    }

    #[test]
    fn jdk17_runtime_image() {
        check_jdk_runtime_image("/usr/lib/jvm/java-17-openjdk-amd64/lib/modules");
    }

    #[test]
    fn jdk25_runtime_image() {
        check_jdk_runtime_image("/usr/lib/jvm/temurin-25-jdk-amd64/lib/modules");
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
