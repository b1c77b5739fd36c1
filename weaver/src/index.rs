//! The class-hierarchy index: internal name → super class, interface flag, for
//! every class of the inputs and of a JDK (no class is loaded). It implements
//! [`ClassHierarchy`] and caches the answers to "common super class of A and B".
//!
//! Inputs, the archives to be woven ([`ClassIndex::add_input`]), are indexed
//! by the names in their classes' bytes, read in parallel when added (the
//! weaver then reuses the decompressed bytes). Class-path archives added with
//! [`ClassIndex::add_shared`] are indexed by entry name
//! only: a class's header, and its details (interfaces, members with their
//! modifiers, annotations and exceptions), are read from the archive on first
//! demand and cached. A weave asks about a few thousand of the JDK's ~27,000
//! classes, so most of `lib/modules` is never read (nor paged in).
//! [`ClassIndex::add_archive`] reads every header at once instead, in parallel,
//! and reports the classes that do not parse (for `major check`).
//!
//! JDK run-time images added with [`ClassIndex::add_image`] are not even
//! listed: a class that no archive or added class defines is looked up by
//! name in the images when first asked about, through the image's own hash
//! table, and the answer (found or not) cached.

use rustc_hash::FxHashMap as HashMap;
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use major_archive::{Archive, RuntimeImage};
use major_classfile::annotations::{annotation_types, exception_types};
use major_classfile::class_reader::ACC_INTERFACE;
use major_classfile::hierarchy::common_super_class_uncached;
use major_classfile::{ClassFile, ClassHierarchy, ClassInfo};
use rayon::prelude::*;

use crate::incremental::deps::{self, Level};
use crate::report::MajorError;

/// Cached answers: (a, b) with a <= b → common super class, and the classes
/// the answer was computed from (replayed to [`deps`] on each hit).
type SuperCache = RwLock<HashMap<(Arc<str>, Arc<str>), (Arc<str>, deps::Replay)>>;

/// Where a class's bytes can be read again.
#[derive(Clone)]
enum Source {
    /// Not kept (header-only index).
    None,
    /// Entry `1` of shared archive `0`.
    Archive(u32, u32),
    /// The class of that name in run-time image `0`.
    Image(u32),
    /// Bytes added directly.
    Bytes(Arc<[u8]>),
}

struct Entry {
    /// The header: set when added, or read from `source` on first demand
    /// (`None` if it does not parse).
    info: OnceLock<Option<ClassInfo>>,
    source: Source,
    /// The decompressed bytes of an archive entry, kept for the next reader
    /// (the index or the weaver; see [`ClassIndex::input_bytes`]).
    kept: Mutex<Option<Arc<[u8]>>>,
}

impl Entry {
    fn new(info: OnceLock<Option<ClassInfo>>, source: Source) -> Entry {
        Entry {
            info,
            source,
            kept: Mutex::new(None),
        }
    }

    fn known(info: ClassInfo, source: Source) -> Entry {
        Entry::new(OnceLock::from(Some(info)), source)
    }
}

/// A class found in a run-time image.
struct ImageClass {
    name: Arc<str>,
    entry: Entry,
}

/// Classes looked up in the run-time images: name → the class, or `None` if
/// no image has it.
type ImageCache = RwLock<HashMap<Arc<str>, Option<Arc<ImageClass>>>>;

/// An indexed class, wherever it was found.
enum EntryRef<'a> {
    /// In [`ClassIndex::classes`]: name and entry.
    Eager(&'a Arc<str>, &'a Entry),
    /// In a run-time image.
    Image(Arc<ImageClass>),
}

impl EntryRef<'_> {
    fn name(&self) -> &Arc<str> {
        match self {
            EntryRef::Eager(name, _) => name,
            EntryRef::Image(c) => &c.name,
        }
    }

    fn entry(&self) -> &Entry {
        match self {
            EntryRef::Eager(_, entry) => entry,
            EntryRef::Image(c) => &c.entry,
        }
    }
}

/// How many bytes of decompressed input classes the index keeps at most for a
/// second reader (beyond that, classes are decompressed again when read again).
pub const KEEP_LIMIT: usize = 64 << 20;

/// The bytes of an input class, from [`ClassIndex::input_bytes`].
pub enum ClassBytes<'a> {
    /// Read from the archive.
    Read(Cow<'a, [u8]>),
    /// Decompressed once, shared by the index and the weaver.
    Shared(Arc<[u8]>),
}

impl std::ops::Deref for ClassBytes<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            ClassBytes::Read(b) => b,
            ClassBytes::Shared(b) => b,
        }
    }
}

/// A method or field as the index describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberDetails {
    /// Name.
    pub name: String,
    /// JVM descriptor.
    pub descriptor: String,
    /// Access flags.
    pub access: u16,
    /// Annotation types (internal names).
    pub annotations: Vec<String>,
    /// Declared exceptions (internal names); empty for fields.
    pub exceptions: Vec<String>,
    /// The generic signature (`Signature` attribute), if any.
    pub signature: Option<String>,
}

/// Everything pointcut matching may ask about one class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassDetails {
    /// Internal name.
    pub name: String,
    /// Access flags.
    pub access: u16,
    /// Super class.
    pub super_name: Option<String>,
    /// Direct super interfaces.
    pub interfaces: Vec<String>,
    /// Annotation types.
    pub annotations: Vec<String>,
    /// Declared methods and constructors.
    pub methods: Vec<MemberDetails>,
    /// Declared fields.
    pub fields: Vec<MemberDetails>,
    /// The class's generic signature (`Signature` attribute), if any.
    pub signature: Option<String>,
    /// Whether the class is a nested (member, local or anonymous) class: its
    /// own `InnerClasses` entry says so. A `$` in a name alone does not.
    pub nested: bool,
}

impl ClassDetails {
    /// Reads the details of a class file.
    pub fn read(bytes: &[u8]) -> Result<ClassDetails, major_classfile::Error> {
        let c = ClassFile::parse(bytes)?;
        let member =
            |m: &major_classfile::Member<'_>| -> Result<MemberDetails, major_classfile::Error> {
                Ok(MemberDetails {
                    name: c.member_name(m)?.into_owned(),
                    descriptor: c.member_descriptor(m)?.into_owned(),
                    access: m.access,
                    annotations: annotation_types(&m.attributes, &c.pool)?
                        .into_iter()
                        .map(|s| s.into_owned())
                        .collect(),
                    exceptions: exception_types(&m.attributes, &c.pool)?
                        .into_iter()
                        .map(|s| s.into_owned())
                        .collect(),
                    signature: signature_of(&m.attributes, &c.pool)?,
                })
            };
        Ok(ClassDetails {
            name: c.name()?.into_owned(),
            access: c.access,
            super_name: c.super_name()?.map(|s| s.into_owned()),
            interfaces: c
                .interface_names()?
                .into_iter()
                .map(|s| s.into_owned())
                .collect(),
            annotations: annotation_types(&c.attributes, &c.pool)?
                .into_iter()
                .map(|s| s.into_owned())
                .collect(),
            methods: c.methods.iter().map(member).collect::<Result<_, _>>()?,
            fields: c.fields.iter().map(member).collect::<Result<_, _>>()?,
            signature: signature_of(&c.attributes, &c.pool)?,
            nested: is_nested(&c)?,
        })
    }

    /// The declared method `name` `descriptor`.
    pub fn method(&self, name: &str, descriptor: &str) -> Option<&MemberDetails> {
        self.methods
            .iter()
            .find(|m| m.name == name && m.descriptor == descriptor)
    }

    /// The declared field `name`.
    pub fn field(&self, name: &str) -> Option<&MemberDetails> {
        self.fields.iter().find(|m| m.name == name)
    }
}

/// The `Signature` attribute among `attributes`, if any.
fn signature_of(
    attributes: &[major_classfile::class_reader::Attribute<'_>],
    pool: &major_classfile::constant_pool::ConstantPool<'_>,
) -> Result<Option<String>, major_classfile::Error> {
    match attributes.iter().find(|a| a.name == b"Signature") {
        Some(a) => {
            let mut r = major_classfile::bytes::Cursor::new(a.data, a.data_offset());
            Ok(Some(pool.utf8(r.u16("signature_index")?)?.into_owned()))
        }
        None => Ok(None),
    }
}

/// Whether a class file lists itself in its `InnerClasses` attribute (JVMS
/// 4.7.6: every nested class does).
fn is_nested(c: &ClassFile<'_>) -> Result<bool, major_classfile::Error> {
    let Some(a) = c.attribute("InnerClasses") else {
        return Ok(false);
    };
    let this = c.name()?;
    let mut r = major_classfile::bytes::Cursor::new(a.data, a.data_offset());
    let n = r.u16("number_of_classes")?;
    for _ in 0..n {
        let inner = r.u16("inner_class_info_index")?;
        r.u16("outer_class_info_index")?;
        r.u16("inner_name_index")?;
        r.u16("inner_class_access_flags")?;
        if c.pool.class_name(inner)? == this {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The index. The first definition of a name wins (class-path order); classes
/// of run-time images ([`ClassIndex::add_image`]) come after all others.
#[derive(Default)]
pub struct ClassIndex {
    archives: Vec<Arc<Archive>>,
    images: Vec<Arc<RuntimeImage>>,
    /// Classes indexed when added.
    classes: HashMap<Arc<str>, Entry>,
    /// Classes of `images`, looked up on demand.
    image_classes: ImageCache,
    details: RwLock<HashMap<Arc<str>, Option<Arc<ClassDetails>>>>,
    /// [`ClassIndex::is_nested`] answers of classes whose details were not
    /// read: found from the class's pool and `InnerClasses` alone.
    nested: RwLock<HashMap<Arc<str>, bool>>,
    cache: SuperCache,
    /// Bytes kept in [`Entry::kept`], in all.
    kept_bytes: AtomicUsize,
    /// Classes of inputs ([`ClassIndex::add_input`]): (archive, entry) → the
    /// name in the class's bytes.
    input_names: HashMap<(u32, u32), Arc<str>>,
}

impl ClassIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of classes indexed when added: those of [`add_class`],
    /// [`add_archive`] and [`add_shared`]. Classes of run-time images
    /// ([`add_image`]) are not counted: they are looked up on demand.
    ///
    /// [`add_class`]: ClassIndex::add_class
    /// [`add_archive`]: ClassIndex::add_archive
    /// [`add_shared`]: ClassIndex::add_shared
    /// [`add_image`]: ClassIndex::add_image
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// True when no class is indexed as [`len`](ClassIndex::len) counts them
    /// (run-time images are not looked at).
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// Whether a class of this name is indexed (or in a run-time image).
    pub fn contains(&self, name: &str) -> bool {
        deps::note(name, Level::Presence);
        self.entry(name).is_some()
    }

    /// Adds one class file (kept, so its details can be asked for); returns its
    /// name. An existing entry is kept.
    pub fn add_class(&mut self, bytes: &[u8]) -> Result<Arc<str>, major_classfile::Error> {
        let (name, info) = header(bytes)?;
        let source = Source::Bytes(Arc::from(bytes));
        self.classes
            .entry(name.clone())
            .or_insert(Entry::known(info, source));
        Ok(name)
    }

    /// Adds a class seen at run time (a load-time weaver's: defined by a
    /// class loader, or generated) through a shared reference, so that the
    /// questions about the classes after it can name it. A class already
    /// known, from any source, keeps its definition; one looked up earlier
    /// and not found is now found.
    pub fn add_defined(&self, bytes: &[u8]) -> Result<Arc<str>, major_classfile::Error> {
        let (name, info) = header(bytes)?;
        if self.classes.contains_key(&*name) {
            return Ok(name);
        }
        let class = Arc::new(ImageClass {
            name: name.clone(),
            entry: Entry::known(info, Source::Bytes(Arc::from(bytes))),
        });
        let mut cache = self.image_classes.write().expect("image classes lock");
        let slot = cache.entry(name.clone()).or_insert(None);
        if slot.is_none() {
            *slot = Some(class);
        }
        Ok(name)
    }

    /// Adds every class of `archive` (read in parallel), headers only; the
    /// archive is not kept. Entries that fail to parse are returned as errors
    /// and left out of the index.
    pub fn add_archive(&mut self, archive: &Archive) -> Vec<MajorError> {
        type Found = Result<(Arc<str>, ClassInfo), MajorError>;
        let found: Vec<Found> = archive
            .entries()
            .par_iter()
            .enumerate()
            .filter(|(_, e)| e.class_name().is_some_and(is_indexed))
            .map(|(i, e)| {
                let bytes = archive.read(i)?;
                header(&bytes).map_err(|err| MajorError::class(archive.path(), &e.name, err))
            })
            .collect();
        let mut errors = Vec::new();
        for r in found {
            match r {
                Ok((name, info)) => {
                    self.classes
                        .entry(name)
                        .or_insert(Entry::known(info, Source::None));
                }
                Err(e) => errors.push(e),
            }
        }
        errors
    }

    /// Adds the classes of `archive` by entry name and keeps the archive: headers
    /// and [`ClassIndex::details`] are read from it on first demand. Names
    /// already indexed keep their first definition. Multi-release entries
    /// (`META-INF/versions/..`) are not indexed.
    pub fn add_shared(&mut self, archive: Arc<Archive>) {
        let id = self.archives.len() as u32;
        for (i, e) in archive.entries().iter().enumerate() {
            let Some(name) = e.class_name().filter(|n| is_indexed(n)) else {
                continue;
            };
            if name.starts_with("META-INF/") || self.classes.contains_key(name) {
                continue;
            }
            self.classes.insert(
                Arc::from(name),
                Entry::new(OnceLock::new(), Source::Archive(id, i as u32)),
            );
        }
        self.archives.push(archive);
    }

    /// Adds the classes of input `archive` (one to be woven) under the names
    /// their bytes give, wherever they are stored (a class `m$x` stored as
    /// `Lib/m$x.class` is indexed as `m$x`), and keeps the archive. Every
    /// class is read now, in parallel; what was decompressed is kept for the
    /// weaver ([`input_bytes`](Self::input_bytes)), so inputs are still
    /// decompressed once. Names already indexed keep their first definition.
    ///
    /// `release`: the Java release the classes are seen from. `None` indexes
    /// the base classes only; `Some(n)` makes the versioned classes of a
    /// multi-release jar (`META-INF/versions/k/..`, `k <= n`) replace the base
    /// ones, the highest `k` first, as a JDK of release `n` loads them. Other
    /// `META-INF/..` classes and `module-info` are not indexed.
    ///
    /// A class that does not parse is an error naming the archive and entry.
    pub fn add_input(
        &mut self,
        archive: Arc<Archive>,
        release: Option<u32>,
    ) -> Result<(), MajorError> {
        self.add_input_known(archive, release, |_| None)
    }

    /// [`add_input`](Self::add_input), where `known(i)` gives the name in the
    /// bytes of entry `i` when the caller already knows it (an incremental
    /// weave whose file stamps show the entry unchanged since a weave read
    /// it): such an entry is indexed unread, as
    /// [`add_shared`](Self::add_shared) indexes class-path classes, and read
    /// on first demand.
    pub fn add_input_known(
        &mut self,
        archive: Arc<Archive>,
        release: Option<u32>,
        known: impl Fn(usize) -> Option<Arc<str>> + Sync,
    ) -> Result<(), MajorError> {
        let id = self.archives.len() as u32;
        let multi_release = release.is_some() && archive.is_multi_release();
        // (priority, entry): the base classes 0, versioned ones their release.
        let mut chosen: Vec<(u32, usize)> = Vec::new();
        for (i, e) in archive.entries().iter().enumerate() {
            let Some(name) = e.class_name().filter(|n| is_indexed(n)) else {
                continue;
            };
            match e.versioned_class() {
                Some((k, _)) if multi_release && release.is_some_and(|r| k <= r) => {
                    chosen.push((k, i))
                }
                _ if name.starts_with("META-INF/") => {}
                _ => chosen.push((0, i)),
            }
        }
        // Highest release first, so that it is the definition kept.
        chosen.sort_by_key(|&(k, i)| (std::cmp::Reverse(k), i));
        let kept_bytes = &self.kept_bytes;
        type Found = Result<(Arc<str>, Option<ClassInfo>, Option<Arc<[u8]>>), MajorError>;
        // The known names first, on this thread; only the others are read,
        // in parallel if there are enough of them (an update: a few).
        let mut found: Vec<Option<Found>> = chosen
            .iter()
            .map(|&(_, i)| known(i).map(|name| Ok((name, None, None))))
            .collect();
        let unknown: Vec<usize> = (0..chosen.len()).filter(|&c| found[c].is_none()).collect();
        let read = crate::pool::map(&unknown, 16, |&c| {
            let i = chosen[c].1;
            let e = &archive.entries()[i];
            let bytes = archive.read(i)?;
            let (name, info) = input_header(&bytes)
                .map_err(|err| MajorError::class(archive.path(), &e.name, err))?;
            let kept = match bytes {
                Cow::Borrowed(_) => None,
                Cow::Owned(v) => {
                    let total = kept_bytes.fetch_add(v.len(), Ordering::Relaxed);
                    if total + v.len() > KEEP_LIMIT {
                        kept_bytes.fetch_sub(v.len(), Ordering::Relaxed);
                        None
                    } else {
                        Some(Arc::from(v))
                    }
                }
            };
            Ok((name, Some(info), kept))
        });
        for (c, r) in unknown.into_iter().zip(read) {
            found[c] = Some(r);
        }
        // Room for them all at once: a table grown step by step is copied
        // into fresh pages at each step.
        self.classes.reserve(chosen.len());
        self.input_names.reserve(chosen.len());
        for (&(_, i), r) in chosen.iter().zip(found) {
            let (name, info, kept) = r.expect("every entry known or read")?;
            self.input_names.insert((id, i as u32), name.clone());
            match self.classes.entry(name) {
                std::collections::hash_map::Entry::Occupied(_) => {
                    if let Some(k) = kept {
                        self.kept_bytes.fetch_sub(k.len(), Ordering::Relaxed);
                    }
                }
                std::collections::hash_map::Entry::Vacant(v) => {
                    let source = Source::Archive(id, i as u32);
                    let entry = match info {
                        Some(info) => Entry::known(info, source),
                        None => Entry::new(OnceLock::new(), source),
                    };
                    *entry.kept.lock().expect("kept bytes lock") = kept;
                    v.insert(entry);
                }
            }
        }
        self.archives.push(archive);
        Ok(())
    }

    /// The name in the bytes of entry `i` of input `archive`, as
    /// [`add_input`](Self::add_input) indexed it.
    pub fn input_class_name(&self, archive: &Arc<Archive>, i: usize) -> Option<&str> {
        let id = self.archives.iter().position(|a| Arc::ptr_eq(a, archive))?;
        self.input_names.get(&(id as u32, i as u32)).map(|n| &**n)
    }

    /// Keeps a JDK run-time image: classes that no archive or class added
    /// (before or after) defines are looked up in it by name when first asked
    /// about, images in the order added, and the answer is cached. Nothing is
    /// listed or read now. `module-info` and `META-INF/..` names are never
    /// looked up.
    ///
    /// A class whose lookup fails on a damaged image counts as present but
    /// unreadable (no header, no details), as an unreadable entry of
    /// [`add_shared`](ClassIndex::add_shared) does.
    pub fn add_image(&mut self, image: Arc<RuntimeImage>) {
        self.images.push(image);
    }

    /// The class `name`: indexed, or else from the run-time images.
    fn entry(&self, name: &str) -> Option<EntryRef<'_>> {
        if let Some((key, entry)) = self.classes.get_key_value(name) {
            return Some(EntryRef::Eager(key, entry));
        }
        if let Some(found) = self
            .image_classes
            .read()
            .expect("image classes lock")
            .get(name)
        {
            return found.clone().map(EntryRef::Image);
        }
        if self.images.is_empty() {
            return None;
        }
        let found = self.find_in_images(name).map(Arc::new);
        let mut cache = self.image_classes.write().expect("image classes lock");
        // Another thread may have looked it up meanwhile: keep its answer.
        let found = match found {
            Some(class) => cache.entry(class.name.clone()).or_insert(Some(class)),
            None => cache.entry(Arc::from(name)).or_insert(None),
        };
        found.clone().map(EntryRef::Image)
    }

    /// Looks `name` up in the run-time images, reading its header.
    fn find_in_images(&self, name: &str) -> Option<ImageClass> {
        if !is_indexed(name) || name.starts_with("META-INF/") {
            return None;
        }
        self.images.iter().enumerate().find_map(|(id, image)| {
            let info = match image.read_class(name) {
                Ok(None) => return None,
                Ok(Some(bytes)) => header(&bytes).ok().map(|(_, info)| info),
                Err(_) => None,
            };
            Some(ImageClass {
                name: Arc::from(name),
                entry: Entry::new(OnceLock::from(info), Source::Image(id as u32)),
            })
        })
    }

    /// The bytes of class `name`, if they were kept.
    fn bytes<'a>(&'a self, name: &str, entry: &'a Entry) -> Option<ClassBytes<'a>> {
        match &entry.source {
            Source::None => None,
            Source::Bytes(b) => Some(ClassBytes::Read(Cow::Borrowed(b))),
            Source::Archive(a, i) => self
                .archive_bytes(entry, &self.archives[*a as usize], *i as usize)
                .ok(),
            Source::Image(id) => self.images[*id as usize]
                .read_class(name)
                .ok()
                .flatten()
                .map(ClassBytes::Read),
        }
    }

    /// Entry `i` of `archive`, indexed as `entry`: decompressed at most once
    /// while the kept bytes stay under [`KEEP_LIMIT`].
    fn archive_bytes<'a>(
        &self,
        entry: &Entry,
        archive: &'a Archive,
        i: usize,
    ) -> Result<ClassBytes<'a>, major_archive::ArchiveError> {
        let mut kept = entry.kept.lock().expect("kept bytes lock");
        if let Some(b) = kept.as_ref() {
            return Ok(ClassBytes::Shared(b.clone()));
        }
        Ok(match archive.read(i)? {
            Cow::Borrowed(b) => ClassBytes::Read(Cow::Borrowed(b)),
            Cow::Owned(v) => {
                let total = self.kept_bytes.fetch_add(v.len(), Ordering::Relaxed);
                if total + v.len() > KEEP_LIMIT {
                    self.kept_bytes.fetch_sub(v.len(), Ordering::Relaxed);
                    ClassBytes::Read(Cow::Owned(v))
                } else {
                    let shared: Arc<[u8]> = Arc::from(v);
                    *kept = Some(shared.clone());
                    ClassBytes::Shared(shared)
                }
            }
        })
    }

    /// Entry `i` of input `archive` (added with [`add_input`](Self::add_input)
    /// or [`add_shared`](Self::add_shared)),
    /// for weaving. The index and the weaver share what either of them
    /// decompressed first, so each input class is decompressed once (while the
    /// bytes kept stay under [`KEEP_LIMIT`]).
    pub fn input_bytes<'a>(
        &self,
        archive: &'a Arc<Archive>,
        i: usize,
    ) -> Result<ClassBytes<'a>, major_archive::ArchiveError> {
        let name = self
            .input_class_name(archive, i)
            .or_else(|| archive.entries()[i].class_name());
        let entry = name.and_then(|n| self.classes.get(n)).filter(|e| {
            matches!(e.source, Source::Archive(a, k)
                if k as usize == i && Arc::ptr_eq(&self.archives[a as usize], archive))
        });
        match entry {
            Some(e) => self.archive_bytes(e, archive, i),
            None => Ok(ClassBytes::Read(archive.read(i)?)),
        }
    }

    /// The header of class `name`, read on first demand.
    fn info<'a>(&'a self, name: &str, entry: &'a Entry) -> Option<&'a ClassInfo> {
        entry
            .info
            .get_or_init(|| header(&self.bytes(name, entry)?).ok().map(|(_, info)| info))
            .as_ref()
    }

    /// The details of a class, read on first demand; `None` for classes not in
    /// the index or added header-only, and for classes that do not parse.
    pub fn details(&self, name: &str) -> Option<Arc<ClassDetails>> {
        deps::note(name, Level::Details);
        self.details_unrecorded(name)
    }

    /// [`details`](Self::details), not recorded as a dependency.
    pub(crate) fn details_unrecorded(&self, name: &str) -> Option<Arc<ClassDetails>> {
        if let Some(d) = self.details.read().expect("details lock").get(name) {
            return d.clone();
        }
        let found = self.entry(name)?;
        let d = self
            .bytes(name, found.entry())
            .and_then(|b| ClassDetails::read(&b).ok())
            .map(Arc::new);
        self.details
            .write()
            .expect("details lock")
            .insert(found.name().clone(), d.clone());
        d
    }

    /// Whether class `name` is nested ([`ClassDetails::nested`]), recorded as
    /// a dependency on its details as [`details`](Self::details) is. Pointcuts
    /// such as `within(T)` ask this of every class with a `$` in its name,
    /// and most of them never need the details: the answer is read from the
    /// class's pool and attributes alone
    /// ([`major_classfile::class_header::lists_itself_as_inner`]), unless the
    /// details were read already. A class that cannot be read is not nested.
    pub fn is_nested(&self, name: &str) -> bool {
        deps::note(name, Level::Details);
        if let Some(d) = self.details.read().expect("details lock").get(name) {
            return d.as_ref().is_some_and(|d| d.nested);
        }
        if let Some(&n) = self.nested.read().expect("nested lock").get(name) {
            return n;
        }
        let Some(found) = self.entry(name) else {
            return false;
        };
        let nested = self.bytes(name, found.entry()).is_some_and(|b| {
            major_classfile::class_header::lists_itself_as_inner(&b).unwrap_or(false)
        });
        self.nested
            .write()
            .expect("nested lock")
            .insert(found.name().clone(), nested);
        nested
    }

    /// Without recording a dependency ([`crate::incremental`] asks this to
    /// compare runs): `None` if no class `name` is indexed, else the bytes it
    /// resolves to (`None` when not kept: a header-only index).
    pub(crate) fn resolved_bytes(&self, name: &str) -> Option<Option<ClassBytes<'_>>> {
        let found = self.entry(name)?;
        Some(match found {
            EntryRef::Eager(n, e) => self.bytes(n, e),
            EntryRef::Image(c) => match &c.entry.source {
                Source::Image(id) => self.images[*id as usize]
                    .read_class(name)
                    .ok()
                    .flatten()
                    .map(ClassBytes::Read),
                _ => None,
            },
        })
    }

    /// [`ClassHierarchy::class_info`], not recorded as a dependency.
    pub(crate) fn class_info_unrecorded(&self, name: &str) -> Option<ClassInfo> {
        let found = self.entry(name)?;
        self.info(name, found.entry()).cloned()
    }

    /// Every proper supertype of `name` (super classes and interfaces,
    /// transitively), nearest first; unknown classes end the walk.
    pub fn super_types(&self, name: &str) -> Vec<String> {
        self.super_types_checked(name).0
    }

    /// Every proper supertype of `name` that the index knows, and the first
    /// class on the way (`name` itself, or a super type) that it does not
    /// know: then the list may be incomplete.
    pub fn super_types_checked(&self, name: &str) -> (Vec<String>, Option<String>) {
        let mut out: Vec<String> = Vec::new();
        let mut missing = None;
        let mut todo = vec![name.to_string()];
        while let Some(n) = todo.pop() {
            let Some(d) = self.details(&n) else {
                match self.class_info(&n) {
                    Some(info) => {
                        if let Some(s) = info.super_name {
                            if !out.iter().any(|o| **o == *s) {
                                out.push(s.to_string());
                                todo.push(s.to_string());
                            }
                        }
                    }
                    // Arrays and primitives are no classes to find.
                    None if n.starts_with('[') || !n.contains('/') && is_primitive_name(&n) => {}
                    None => {
                        missing.get_or_insert(n);
                    }
                }
                continue;
            };
            for s in d.super_name.iter().chain(d.interfaces.iter()) {
                if !out.contains(s) {
                    out.push(s.clone());
                    todo.push(s.clone());
                }
            }
        }
        (out, missing)
    }
}

/// Whether `n` names a primitive type (as type patterns may ask about).
fn is_primitive_name(n: &str) -> bool {
    matches!(
        n,
        "int" | "long" | "short" | "byte" | "char" | "boolean" | "float" | "double" | "void"
    ) || (n.len() == 1 && "IJSBCZFDV".contains(n))
}

/// Whether a class name belongs in the index (`module-info` does not).
fn is_indexed(name: &str) -> bool {
    name != "module-info" && !name.ends_with("/module-info")
}

/// Name, super class and interface flag of a class file.
fn header(bytes: &[u8]) -> Result<(Arc<str>, ClassInfo), major_classfile::Error> {
    let c = ClassFile::parse(bytes)?;
    let name: Arc<str> = Arc::from(&*c.name()?);
    let super_name = c.super_name()?.map(|s| Arc::from(&*s));
    Ok((
        name,
        ClassInfo {
            super_name,
            is_interface: c.access & ACC_INTERFACE != 0,
        },
    ))
}

/// [`header`] of an input class, which the weaver parses in full (and
/// rejects if malformed) when it weaves it: only the header is read here
/// ([`ClassHeader`](major_classfile::ClassHeader)). A class whose header does
/// not read is parsed in full for the error.
fn input_header(bytes: &[u8]) -> Result<(Arc<str>, ClassInfo), major_classfile::Error> {
    let Ok(h) = major_classfile::ClassHeader::read(bytes) else {
        return header(bytes);
    };
    Ok((
        Arc::from(&*h.name),
        ClassInfo {
            super_name: h.super_name.map(|s| Arc::from(&*s)),
            is_interface: h.access & ACC_INTERFACE != 0,
        },
    ))
}

impl ClassHierarchy for ClassIndex {
    fn class_info(&self, name: &str) -> Option<ClassInfo> {
        deps::note(name, Level::Header);
        self.class_info_unrecorded(name)
    }

    fn common_super_class(&self, a: &str, b: &str) -> major_classfile::Result<Arc<str>> {
        let key = if a <= b {
            (Arc::from(a), Arc::from(b))
        } else {
            (Arc::from(b), Arc::from(a))
        };
        if let Some((r, from)) = self.cache.read().expect("cache lock").get(&key) {
            deps::note_all(from);
            return Ok(r.clone());
        }
        let (r, from) = deps::capture_replay(|| common_super_class_uncached(self, a, b));
        let r = r?;
        self.cache
            .write()
            .expect("cache lock")
            .insert(key, (r.clone(), from));
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn details_of_jdk_classes() {
        let modules = std::path::Path::new("/usr/lib/jvm/java-17-openjdk-amd64/lib/modules");
        if !modules.exists() {
            eprintln!("SKIP: no JDK 17 run-time image");
            return;
        }
        let mut shared = ClassIndex::new();
        shared.add_shared(Arc::new(Archive::open(modules).unwrap()));
        let mut image = ClassIndex::new();
        image.add_image(Arc::new(RuntimeImage::open(modules).unwrap()));
        for index in [&shared, &image] {
            check_jdk_details(index);
        }
    }

    /// `is_nested`, read from a class's pool and attributes alone, agrees
    /// with the full details on every class of JDK 17's java.base.
    #[test]
    fn nested_from_attributes_equals_details() {
        let jmod = std::path::Path::new("/usr/lib/jvm/java-17-openjdk-amd64/jmods/java.base.jmod");
        if !jmod.exists() {
            eprintln!("SKIP: no JDK 17 jmods (Debian package openjdk-17-jmods)");
            return;
        }
        let archive = Arc::new(Archive::open(jmod).unwrap());
        let (mut quick, mut full) = (ClassIndex::new(), ClassIndex::new());
        quick.add_shared(archive.clone());
        full.add_shared(archive);
        let names: Vec<Arc<str>> = quick.classes.keys().cloned().collect();
        assert!(names.len() > 5000, "{} classes", names.len());
        let mut nested = 0;
        for n in &names {
            let d = full.details(n).unwrap_or_else(|| panic!("details of {n}"));
            assert_eq!(quick.is_nested(n), d.nested, "{n}");
            nested += usize::from(d.nested);
        }
        assert!(nested > 1000, "only {nested} nested classes");
        assert!(
            quick.details.read().unwrap().is_empty(),
            "details were read"
        );
        assert!(quick.is_nested("java/util/Map$Entry"));
        assert!(!quick.is_nested("java/util/Map"));
        assert!(!quick.is_nested("no/such/Class$Inner"));
    }

    fn check_jdk_details(index: &ClassIndex) {
        let d = index.details("java/util/ArrayList").unwrap();
        assert_eq!(d.super_name.as_deref(), Some("java/util/AbstractList"));
        assert!(d.interfaces.iter().any(|i| i == "java/util/List"));
        assert!(d
            .method("add", "(Ljava/lang/Object;)Z")
            .is_some_and(|m| m.access & 1 != 0));
        let sup = index.super_types("java/util/ArrayList");
        for s in [
            "java/util/AbstractList",
            "java/util/List",
            "java/util/Collection",
            "java/lang/Iterable",
            "java/lang/Object",
        ] {
            assert!(sup.iter().any(|x| x == s), "{s} missing from {sup:?}");
        }
        let m = index.details("java/lang/Thread").unwrap();
        assert!(m
            .method("sleep", "(J)V")
            .unwrap()
            .exceptions
            .iter()
            .any(|e| e == "java/lang/InterruptedException"));
        assert!(index
            .details("java/lang/Deprecated")
            .unwrap()
            .annotations
            .iter()
            .any(|a| a == "java/lang/annotation/Retention"));
    }

    /// The index and the weaver share decompressed input classes: whichever
    /// reads a class first decompresses it, the other gets the same bytes.
    #[test]
    fn input_bytes_are_decompressed_once() {
        let jar = std::path::Path::new("/usr/share/java/guava.jar");
        if !jar.exists() {
            eprintln!("SKIP: guava.jar not installed (Debian package libguava-java)");
            return;
        }
        let archive = Arc::new(Archive::open(jar).unwrap());
        let mut index = ClassIndex::new();
        index.add_shared(archive.clone());
        let position = |name: &str| {
            let entry = format!("{name}.class");
            archive
                .entries()
                .iter()
                .position(|e| e.name == entry)
                .unwrap()
        };
        let kept = |name: &str| index.classes[name].kept.lock().unwrap().clone();
        // Read by the index first, then by the weaver.
        let list = "com/google/common/collect/ImmutableList";
        assert!(index.details(list).is_some());
        let first = kept(list).expect("kept");
        let i = position(list);
        let original = archive.read(i).unwrap().into_owned();
        let woven = index.input_bytes(&archive, i).unwrap();
        assert!(matches!(&woven, ClassBytes::Shared(b) if Arc::ptr_eq(b, &first)));
        assert_eq!(*woven, *original);
        // Read by the weaver first, then by the index.
        let map = "com/google/common/collect/ImmutableMap";
        let j = position(map);
        assert!(kept(map).is_none());
        let woven = index.input_bytes(&archive, j).unwrap();
        let shared = kept(map).expect("kept");
        assert!(matches!(&woven, ClassBytes::Shared(b) if Arc::ptr_eq(b, &shared)));
        assert!(index.details(map).is_some());
        assert!(index.class_info(map).is_some());
        assert!(Arc::ptr_eq(&kept(map).unwrap(), &shared));
        // An entry of another archive with the same name is not confused with it.
        let other = Arc::new(Archive::open(jar).unwrap());
        let set = "com/google/common/collect/ImmutableSet";
        assert!(matches!(
            index.input_bytes(&other, position(set)).unwrap(),
            ClassBytes::Read(_)
        ));
        assert!(kept(set).is_none());
        // What is kept is counted, and bounded.
        let total = index.kept_bytes.load(Ordering::Relaxed);
        assert_eq!(total, first.len() + shared.len());
        assert!(total <= KEEP_LIMIT);
    }

    /// An index over the run-time image answers as one over the listed
    /// image does, for every class of the image and for unknown names.
    #[test]
    fn image_classes_on_demand() {
        let modules = std::path::Path::new("/usr/lib/jvm/java-17-openjdk-amd64/lib/modules");
        if !modules.exists() {
            eprintln!("SKIP: no JDK 17 run-time image");
            return;
        }
        let archive = Arc::new(Archive::open(modules).unwrap());
        let mut shared = ClassIndex::new();
        shared.add_shared(archive.clone());
        let mut image = ClassIndex::new();
        image.add_image(Arc::new(RuntimeImage::open(modules).unwrap()));
        assert_eq!(image.len(), 0);
        let mut names: Vec<&str> = archive
            .entries()
            .iter()
            .filter_map(|e| e.class_name())
            .collect();
        names.extend([
            "module-info",
            "java/lang/NoSuchClass",
            "nope/X",
            "java/lang",
            "",
            "META-INF/versions/11/java/lang/Object",
        ]);
        names.par_iter().for_each(|name| {
            assert_eq!(shared.contains(name), image.contains(name), "{name}");
            let (a, b) = (shared.class_info(name), image.class_info(name));
            assert_eq!(
                a.as_ref().map(|i| (&i.super_name, i.is_interface)),
                b.as_ref().map(|i| (&i.super_name, i.is_interface)),
                "{name}"
            );
        });
        for name in names.iter().step_by(97).chain(&["java/util/HashMap"]) {
            assert_eq!(shared.details(name), image.details(name), "{name}");
            assert_eq!(shared.super_types(name), image.super_types(name), "{name}");
        }
        assert!(!image.contains("module-info"));
        assert!(image.contains("java/lang/Object"));
        // Negative answers are cached too.
        let cache = image.image_classes.read().unwrap();
        assert!(matches!(cache.get("nope/X"), Some(None)));
        assert!(matches!(cache.get("java/lang/Object"), Some(Some(_))));
    }

    /// Classes added otherwise, even after an image, hide those of the image.
    #[test]
    fn added_classes_come_before_images() {
        let modules = std::path::Path::new("/usr/lib/jvm/java-17-openjdk-amd64/lib/modules");
        if !modules.exists() {
            eprintln!("SKIP: no JDK 17 run-time image");
            return;
        }
        let mut index = ClassIndex::new();
        index.add_image(Arc::new(RuntimeImage::open(modules).unwrap()));
        // A class file `java/lang/Thread`: a public interface extending
        // java/lang/Object, with nothing else.
        let mut bytes = vec![0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 52, 0, 5];
        for (i, name) in ["java/lang/Thread", "java/lang/Object"].iter().enumerate() {
            bytes.push(1); // Utf8
            bytes.extend_from_slice(&(name.len() as u16).to_be_bytes());
            bytes.extend_from_slice(name.as_bytes());
            bytes.push(7); // Class
            bytes.extend_from_slice(&(2 * i as u16 + 1).to_be_bytes());
        }
        bytes.extend_from_slice(&[0x06, 0x01, 0, 2, 0, 4]); // flags, this, super
        bytes.extend_from_slice(&[0; 8]); // no interfaces, fields, methods, attributes
        assert_eq!(&*index.add_class(&bytes).unwrap(), "java/lang/Thread");
        assert!(index.class_info("java/lang/Thread").unwrap().is_interface);
        assert!(index
            .details("java/lang/Thread")
            .unwrap()
            .methods
            .is_empty());
        assert!(index.class_info("java/lang/Runnable").unwrap().is_interface);
        assert!(!index.class_info("java/lang/Object").unwrap().is_interface);
    }
}
