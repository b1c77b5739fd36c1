//! Writing JDK run-time images (`lib/modules`, jimage format 1.0): the
//! counterpart of the reader in `jimage.rs`, whose module documentation
//! describes the layout.
//!
//! An [`ImageWriter`] is given resources, each a module, a path inside the
//! module and bytes, and derives everything else an image holds, as jlink
//! does:
//!
//! * `/modules/<module>/<dir>...`: one entry for every module and every
//!   directory of a module, whose contents are the location offsets (u32) of
//!   its children (sub-directories and resources) in name order; `/modules`
//!   lists the modules;
//! * `/packages/<package>`: one entry for every package (a directory of a
//!   module below the module's root, outside `META-INF`) listing the modules
//!   that have that directory as pairs of u32 `(is_empty, module name)`,
//!   sorted by module name, `is_empty` 0 only for the module with resources
//!   directly in the directory; `/packages` lists the packages;
//! * a location for every resource and index entry (module, parent, base,
//!   extension, offset, size), the strings they name, and the perfect-hash
//!   redirect table through which the JVM finds a location by name.
//!
//! Integers are in the byte order of the host, as jlink writes them.
//! Resources are stored uncompressed. The output depends only on the set of
//! resources: they are laid out in name order, the index entries after them.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::jimage::{
    hash, is_index_module, modified_utf8, ATTR_BASE, ATTR_END, ATTR_EXTENSION, ATTR_MODULE,
    ATTR_OFFSET, ATTR_PARENT, ATTR_UNCOMPRESSED, HASH_MULTIPLIER, MAGIC,
};
use crate::output::{remove_stale_siblings, sibling};
use crate::{Archive, ArchiveError, ArchiveKind};

/// The version the writer puts in the header: 1.0, that of every image
/// from JDK 9 to JDK 25.
const VERSION: u32 = 1 << 16;

/// Strings every jlink image starts its strings table with, at offsets 0
/// and 1: the empty string and the most frequent extension.
const FIRST_STRINGS: [&str; 2] = ["", "class"];

/// The contents of one resource of an [`ImageWriter`].
enum Contents<'a> {
    /// Bytes given to the writer.
    Bytes(Cow<'a, [u8]>),
    /// Entry `index` of the source image, read when the image is written.
    Source(usize),
}

/// Writes a JDK run-time image (`lib/modules`).
///
/// Resources are added by module and path inside the module
/// (`("java.base", "java/lang/Object.class")`), or copied all at once from
/// an existing image by [`from_image`](Self::from_image), after which some
/// can be [replaced](Self::replace) or [added](Self::add).
/// [`write`](Self::write) derives the directory and package index entries,
/// the locations, strings and hash table (see the module documentation),
/// and writes the image under a temporary name beside the target, then
/// renames it into place: the target is either left as it was or replaced
/// whole.
///
/// Bytes given as `&'a [u8]` are not copied; resources of the source image
/// are read from its mapping only while writing.
pub struct ImageWriter<'a> {
    /// Where [`write`](Self::write) puts the image.
    target: PathBuf,
    /// The image copied by [`from_image`](Self::from_image), if any.
    source: Option<&'a Archive>,
    /// Full name (`/module/path`) → contents.
    resources: BTreeMap<String, Contents<'a>>,
}

impl std::fmt::Debug for ImageWriter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImageWriter")
            .field("target", &self.target)
            .field("source", &self.source.map(Archive::path))
            .field("resources", &self.resources.len())
            .finish()
    }
}

impl<'a> ImageWriter<'a> {
    /// An empty image that [`write`](Self::write) will put at `target`.
    pub fn new(target: &Path) -> ImageWriter<'a> {
        ImageWriter {
            target: target.to_path_buf(),
            source: None,
            resources: BTreeMap::new(),
        }
    }

    /// An image holding every resource of `source` (a jimage: a JDK's
    /// `lib/modules`), to be written at `target`, which may be the source
    /// itself. The `/modules/...` and `/packages/...` index entries of the
    /// source are not copied: [`write`](Self::write) derives them anew.
    /// Compressed resources are written uncompressed.
    ///
    /// An error if `source` is not a jimage, or holds a resource outside
    /// any module (jlink never makes one).
    pub fn from_image(source: &'a Archive, target: &Path) -> Result<ImageWriter<'a>, ArchiveError> {
        if source.kind() != ArchiveKind::JImage {
            return Err(ArchiveError::unsupported(
                source.path(),
                None,
                format!(
                    "an image can only be copied from a JDK run-time image (lib/modules), \
                     not from a {:?} archive",
                    source.kind()
                ),
            ));
        }
        let mut writer = ImageWriter::new(target);
        writer.source = Some(source);
        for (index, entry) in source.entries().iter().enumerate() {
            if entry.is_dir {
                continue;
            }
            let valid = split_name(&entry.name).is_some_and(|(module, path)| {
                check_module(module).is_ok() && check_path(path).is_ok()
            });
            if !valid {
                return Err(ArchiveError::unsupported(
                    source.path(),
                    Some(&entry.name),
                    "a resource not named /<module>/<path> cannot be copied",
                ));
            }
            writer
                .resources
                .insert(entry.name.clone(), Contents::Source(index));
        }
        Ok(writer)
    }

    /// Adds resource `path` of `module` (`"java/lang/Object.class"`,
    /// `"module-info.class"`, `"sun/net/www/content-types.properties"`).
    /// An error if the image already holds it
    /// ([`ArchiveError::Duplicate`]) or if the names are not valid
    /// ([`ArchiveError::InvalidName`]): the module must be non-empty,
    /// without `/` and not `modules` or `packages`; the path relative, with
    /// no empty, `.` or `..` component, not ending in `.`; neither may hold
    /// a NUL.
    pub fn add(
        &mut self,
        module: &str,
        path: &str,
        bytes: impl Into<Cow<'a, [u8]>>,
    ) -> Result<(), ArchiveError> {
        let name = self.checked_name(module, path)?;
        if self.resources.contains_key(&name) {
            return Err(ArchiveError::Duplicate {
                path: self.target.clone(),
                entry: name,
            });
        }
        self.resources.insert(name, Contents::Bytes(bytes.into()));
        Ok(())
    }

    /// Replaces the contents of resource `path` of `module`. An error if
    /// the image holds no such resource ([`ArchiveError::InvalidName`]).
    pub fn replace(
        &mut self,
        module: &str,
        path: &str,
        bytes: impl Into<Cow<'a, [u8]>>,
    ) -> Result<(), ArchiveError> {
        let name = self.checked_name(module, path)?;
        match self.resources.get_mut(&name) {
            Some(contents) => {
                *contents = Contents::Bytes(bytes.into());
                Ok(())
            }
            None => Err(ArchiveError::InvalidName {
                path: self.target.clone(),
                entry: name,
                reason: "the image holds no such resource to replace",
            }),
        }
    }

    /// Whether the image holds resource `path` of `module`.
    pub fn contains(&self, module: &str, path: &str) -> bool {
        self.resources.contains_key(&format!("/{module}/{path}"))
    }

    /// How many resources the image holds (index entries not counted).
    pub fn len(&self) -> usize {
        self.resources.len()
    }

    /// Whether the image holds no resource.
    pub fn is_empty(&self) -> bool {
        self.resources.is_empty()
    }

    /// The full name `/module/path` of a resource, once both are checked.
    fn checked_name(&self, module: &str, path: &str) -> Result<String, ArchiveError> {
        let name = format!("/{module}/{path}");
        check_module(module)
            .and_then(|()| check_path(path))
            .map_err(|reason| ArchiveError::InvalidName {
                path: self.target.clone(),
                entry: name.clone(),
                reason,
            })?;
        Ok(name)
    }

    /// Writes the image at the target given at construction, atomically:
    /// under a temporary name beside it, renamed into place at the end.
    ///
    /// Errors: reading a resource of the source image; a resource path that
    /// is also a directory of other resources of its module, or a package
    /// with resources in two modules ([`ArchiveError::Unsupported`], naming
    /// the resource or the package); an image too large for the format's
    /// 32-bit tables; writing.
    pub fn write(&self) -> Result<(), ArchiveError> {
        let layout = Layout::new(self)?;
        let target = &self.target;
        let io_error = |e| ArchiveError::io(target, None, e);
        let temp = sibling(target, "tmp").ok_or_else(|| {
            io_error(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the output path has no file name",
            ))
        })?;
        if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(io_error)?;
        }
        remove_stale_siblings(target);
        if fs::symlink_metadata(&temp).is_ok() {
            fs::remove_file(&temp).map_err(io_error)?;
        }
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(io_error)?;
        let guard = RemoveOnDrop(&temp);
        let mut out = BufWriter::with_capacity(1 << 20, file);
        self.write_to(&layout, &mut out)?;
        let file = out.into_inner().map_err(|e| io_error(e.into_error()))?;
        drop(file);
        fs::rename(&temp, target).map_err(io_error)?;
        std::mem::forget(guard);
        Ok(())
    }

    /// Writes the image laid out as `layout` to `out`.
    fn write_to(&self, layout: &Layout, out: &mut impl Write) -> Result<(), ArchiveError> {
        let io_error = |e| ArchiveError::io(&self.target, None, e);
        out.write_all(&layout.index).map_err(io_error)?;
        for ((name, contents), &expected) in self.resources.iter().zip(&layout.sizes) {
            let (bytes, source_path) = match contents {
                Contents::Bytes(bytes) => (Cow::Borrowed(&**bytes), None),
                Contents::Source(index) => {
                    let source = self.source.expect("Source contents come with a source");
                    (source.read(*index)?, Some(source.path()))
                }
            };
            // The layout took the size the source image declares; the
            // reader checks decompressed sizes, but not stored ones.
            if bytes.len() as u64 != expected {
                return Err(ArchiveError::corrupt(
                    source_path.unwrap_or(&self.target),
                    Some(name),
                    format!(
                        "reads as {} bytes, but the image declares {expected}",
                        bytes.len()
                    ),
                ));
            }
            out.write_all(&bytes)
                .map_err(|e| ArchiveError::io(&self.target, Some(name), e))?;
        }
        out.write_all(&layout.index_contents).map_err(io_error)?;
        out.flush().map_err(io_error)
    }

    /// The size of resource `name` as the image will store it.
    fn size_of(&self, contents: &Contents<'_>) -> u64 {
        match contents {
            Contents::Bytes(bytes) => bytes.len() as u64,
            Contents::Source(index) => self
                .source
                .and_then(|s| s.entries().get(*index))
                .map_or(0, |e| e.size),
        }
    }
}

/// Removes a temporary file unless forgotten.
struct RemoveOnDrop<'p>(&'p Path);

impl Drop for RemoveOnDrop<'_> {
    fn drop(&mut self) {
        let _ = fs::remove_file(self.0);
    }
}

/// `/module/path` split into its module and path.
fn split_name(name: &str) -> Option<(&str, &str)> {
    name.strip_prefix('/')?.split_once('/')
}

/// Checks a module name (see [`ImageWriter::add`]).
fn check_module(module: &str) -> Result<(), &'static str> {
    if module.is_empty() {
        Err("the module name is empty")
    } else if module.contains('/') || module.contains('\0') {
        Err("the module name holds a `/` or a NUL")
    } else if is_index_module(module) {
        Err("`modules` and `packages` name the image's index, not modules")
    } else {
        Ok(())
    }
}

/// Checks a path inside a module (see [`ImageWriter::add`]).
fn check_path(path: &str) -> Result<(), &'static str> {
    if path.is_empty() {
        Err("the path is empty")
    } else if path.contains('\0') {
        Err("the path holds a NUL")
    } else if path
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == "..")
    {
        Err("the path has an empty, `.` or `..` component")
    } else if path.ends_with('.') {
        // jimage splits the extension off at the last dot and puts the dot
        // back only before a non-empty extension.
        Err("the path ends with `.`")
    } else {
        Ok(())
    }
}

/// `/module/parent/base.extension`: the four strings of a location naming
/// `rest` (the part after the module) as jlink splits it: the parent is
/// everything before the last `/` if that slash is past the first
/// character, the extension everything after the last `.` of what
/// remains. Joined back as the readers do, they give the name again.
fn split_rest(rest: &str) -> (&str, &str, &str) {
    let (parent, file) = match rest.rfind('/') {
        Some(slash) if slash > 1 => (&rest[..slash], &rest[slash + 1..]),
        _ => ("", rest),
    };
    let (base, extension) = file.rsplit_once('.').unwrap_or((file, ""));
    (parent, base, extension)
}

/// Java's order of strings (`String.compareTo`: UTF-16 code units), which
/// is the order of jlink's trees; the same as byte order but for
/// supplementary characters.
fn java_order(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        a.cmp(b)
    } else {
        a.encode_utf16().cmp(b.encode_utf16())
    }
}

/// A directory of the `/modules` tree.
struct Dir<'n> {
    /// Its path below `/modules/`: `java.base/java/lang`.
    path: &'n str,
    /// Its sub-directories and resources.
    children: Vec<Child>,
    /// Whether it holds a resource directly.
    has_resources: bool,
}

/// A child of a [`Dir`].
#[derive(Clone, Copy)]
enum Child {
    /// The resource with this location index.
    Resource(usize),
    /// The directory with this index in `dirs`.
    Dir(usize),
}

/// One location of the image being laid out.
struct Location<'n> {
    /// The full name, hashed into the redirect table.
    name: &'n str,
    module: &'n str,
    parent: &'n str,
    base: &'n str,
    extension: &'n str,
    /// Offset of the contents after the index.
    offset: u64,
    size: u64,
}

/// The `/modules` tree and the packages of a set of resource names.
struct Tree<'n> {
    /// Every module and directory of a module, in the order found.
    dirs: Vec<Dir<'n>>,
    /// The modules (indices in `dirs`), in name order.
    modules: Vec<usize>,
    /// Each package (`java.lang`) with the modules that have its directory
    /// and whether theirs is empty, both in name order.
    packages: Vec<(String, Vec<(&'n str, bool)>)>,
}

impl<'n> Tree<'n> {
    /// The tree of `names` (`/module/path`, sorted). `error` makes the
    /// error for a name and a message.
    fn new(
        names: &[&'n str],
        error: impl Fn(&str, String) -> ArchiveError,
    ) -> Result<Tree<'n>, ArchiveError> {
        let mut dirs: Vec<Dir<'n>> = Vec::new();
        let mut dir_index: HashMap<&'n str, usize> = HashMap::new();
        let mut modules: Vec<usize> = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let rel = &name[1..];
            let mut parent: Option<usize> = None;
            for (slash, _) in rel.match_indices('/') {
                let path = &rel[..slash];
                let index = match dir_index.get(path) {
                    Some(&index) => index,
                    None => {
                        let index = dirs.len();
                        dirs.push(Dir {
                            path,
                            children: Vec::new(),
                            has_resources: false,
                        });
                        dir_index.insert(path, index);
                        match parent {
                            Some(p) => dirs[p].children.push(Child::Dir(index)),
                            None => modules.push(index),
                        }
                        index
                    }
                };
                parent = Some(index);
            }
            let parent = parent.expect("a resource name has a module");
            dirs[parent].children.push(Child::Resource(i));
            dirs[parent].has_resources = true;
        }
        // A name both of a resource and of a directory cannot be in a
        // tree (jlink reports and skips such resources).
        if let Some(name) = names.iter().find(|name| dir_index.contains_key(&name[1..])) {
            return Err(error(
                name,
                "the resource is also a directory of other resources of its module".to_owned(),
            ));
        }
        let last_part = |path: &'n str| path.rsplit('/').next().unwrap_or(path);
        let child_name = |dirs: &[Dir<'n>], child: &Child| match *child {
            Child::Resource(i) => last_part(names[i]),
            Child::Dir(d) => last_part(dirs[d].path),
        };
        for d in 0..dirs.len() {
            let mut children = std::mem::take(&mut dirs[d].children);
            children.sort_by(|a, b| java_order(child_name(&dirs, a), child_name(&dirs, b)));
            dirs[d].children = children;
        }
        modules.sort_by(|&a, &b| java_order(dirs[a].path, dirs[b].path));

        // Packages: every directory below a module's root but `META-INF`
        // and what is below it, with the modules holding it.
        let mut by_name: HashMap<String, Vec<(&'n str, bool)>> = HashMap::new();
        for dir in &dirs {
            let Some((module, package)) = dir.path.split_once('/') else {
                continue;
            };
            if package.starts_with("META-INF") {
                continue;
            }
            by_name
                .entry(package.replace('/', "."))
                .or_default()
                .push((module, !dir.has_resources));
        }
        let mut packages: Vec<(String, Vec<(&'n str, bool)>)> = by_name.into_iter().collect();
        packages.sort_by(|a, b| java_order(&a.0, &b.0));
        for (package, refs) in &mut packages {
            refs.sort_by(|a, b| java_order(a.0, b.0));
            let mut holders = refs.iter().filter(|(_, empty)| !empty);
            if let (Some(first), Some(second)) = (holders.next(), holders.next()) {
                return Err(error(
                    &format!("/packages/{package}"),
                    format!(
                        "package `{package}` has resources in two modules, `{}` and `{}`",
                        first.0, second.0
                    ),
                ));
            }
        }
        Ok(Tree {
            dirs,
            modules,
            packages,
        })
    }
}

/// The strings table being built: NUL-terminated modified UTF-8, each
/// string once.
struct Strings<'s> {
    blob: Vec<u8>,
    offsets: HashMap<&'s str, u32>,
}

impl<'s> Strings<'s> {
    fn new() -> Strings<'s> {
        let mut strings = Strings {
            blob: Vec::new(),
            offsets: HashMap::new(),
        };
        for s in FIRST_STRINGS {
            strings.add(s);
        }
        strings
    }

    /// The offset of `s`, added if new. Offsets past `u32::MAX` wrap:
    /// [`finish`](Self::finish) refuses a table that large.
    fn add(&mut self, s: &'s str) -> u32 {
        if let Some(&at) = self.offsets.get(s) {
            return at;
        }
        let at = self.blob.len() as u32;
        self.blob.extend_from_slice(&modified_utf8(s));
        self.blob.push(0);
        self.offsets.insert(s, at);
        at
    }

    /// The table, or `None` if it is too large for 32-bit offsets.
    fn finish(self) -> Option<Vec<u8>> {
        (self.blob.len() <= u32::MAX as usize).then_some(self.blob)
    }
}

/// Appends attribute `kind` with `value` to a location: nothing for 0,
/// else the kind and length byte and the value in as few big-endian bytes
/// as hold it.
fn push_attribute(blob: &mut Vec<u8>, kind: usize, value: u64) {
    if value == 0 {
        return;
    }
    let bytes = value.to_be_bytes();
    let skip = (value.leading_zeros() / 8) as usize;
    let len = bytes.len() - skip;
    blob.push((kind as u8) << 3 | (len as u8 - 1));
    blob.extend_from_slice(&bytes[skip..]);
}

/// Everything of an image but the resources' bytes: the index (header,
/// tables, locations, strings) and the contents of the index entries,
/// which follow the resources.
struct Layout {
    index: Vec<u8>,
    index_contents: Vec<u8>,
    /// The size of each resource, in name order.
    sizes: Vec<u64>,
}

impl Layout {
    /// Lays out the image of `writer`.
    fn new<'w>(writer: &'w ImageWriter<'_>) -> Result<Layout, ArchiveError> {
        let target = &writer.target;
        let unsupported =
            |entry: &str, what: String| ArchiveError::unsupported(target, Some(entry), what);
        let too_large = |what: &str| {
            ArchiveError::unsupported(
                target,
                None,
                format!("the image is too large for the jimage format: {what} past 4 GiB"),
            )
        };

        let names: Vec<&'w str> = writer.resources.keys().map(String::as_str).collect();
        let tree = Tree::new(&names, unsupported)?;
        let dir_names: Vec<String> = tree
            .dirs
            .iter()
            .map(|dir| format!("/modules/{}", dir.path))
            .collect();
        let package_names: Vec<String> = tree
            .packages
            .iter()
            .map(|(package, _)| format!("/packages/{package}"))
            .collect();

        // Resources first, in name order, their contents one after the
        // other; then the index entries: the `/modules` tree, `/modules`,
        // the packages, `/packages`.
        let count = names.len() + dir_names.len() + package_names.len() + 2;
        let mut locations: Vec<Location<'_>> = Vec::with_capacity(count);
        let mut sizes = Vec::with_capacity(names.len());
        let mut offset = 0u64;
        for (name, contents) in names.iter().zip(writer.resources.values()) {
            let (module, rest) = split_name(name).expect("names are checked when added");
            let (parent, base, extension) = split_rest(rest);
            let size = writer.size_of(contents);
            sizes.push(size);
            locations.push(Location {
                name,
                module,
                parent,
                base,
                extension,
                offset,
                size,
            });
            offset += size;
        }
        let first_dir = locations.len();
        for (dir, name) in tree.dirs.iter().zip(&dir_names) {
            let size = 4 * dir.children.len() as u64;
            locations.push(index_location(name, "modules", dir.path, offset, size));
            offset += size;
        }
        let size = 4 * tree.modules.len() as u64;
        locations.push(index_location("/modules", "", "/modules", offset, size));
        offset += size;
        let first_package = locations.len();
        for ((package, refs), name) in tree.packages.iter().zip(&package_names) {
            let size = 8 * refs.len() as u64;
            locations.push(index_location(name, "packages", package, offset, size));
            offset += size;
        }
        let size = 4 * tree.packages.len() as u64;
        locations.push(index_location("/packages", "", "/packages", offset, size));
        let contents_end = offset + size;

        // The locations blob and the strings. Location offset 0 is a
        // location with no attribute, as in jlink's images (0 stands for
        // "no location" in directory lists).
        let mut strings = Strings::new();
        // Modules, parents and extensions, shared by many locations, first:
        // their offsets then take fewer bytes in the locations.
        for location in &locations {
            strings.add(location.module);
            strings.add(location.parent);
            strings.add(location.extension);
        }
        let mut blob = vec![ATTR_END];
        let mut location_offsets: Vec<u32> = Vec::with_capacity(locations.len());
        for location in &locations {
            let at = u32::try_from(blob.len()).map_err(|_| too_large("the locations"))?;
            location_offsets.push(at);
            push_attribute(
                &mut blob,
                ATTR_MODULE,
                u64::from(strings.add(location.module)),
            );
            push_attribute(
                &mut blob,
                ATTR_PARENT,
                u64::from(strings.add(location.parent)),
            );
            push_attribute(&mut blob, ATTR_BASE, u64::from(strings.add(location.base)));
            push_attribute(
                &mut blob,
                ATTR_EXTENSION,
                u64::from(strings.add(location.extension)),
            );
            push_attribute(&mut blob, ATTR_OFFSET, location.offset);
            push_attribute(&mut blob, ATTR_UNCOMPRESSED, location.size);
            blob.push(ATTR_END);
        }

        // The contents of the index entries, in the order of their
        // locations.
        let resources_end = locations[first_dir].offset;
        let mut index_contents = Vec::with_capacity((contents_end - resources_end) as usize);
        let mut push_u32 = |v: u32| index_contents.extend_from_slice(&v.to_ne_bytes());
        for dir in &tree.dirs {
            for child in &dir.children {
                push_u32(match *child {
                    Child::Resource(i) => location_offsets[i],
                    Child::Dir(d) => location_offsets[first_dir + d],
                });
            }
        }
        for &m in &tree.modules {
            push_u32(location_offsets[first_dir + m]);
        }
        for (_, refs) in &tree.packages {
            for &(module, empty) in refs {
                push_u32(u32::from(empty));
                push_u32(strings.add(module));
            }
        }
        for &at in &location_offsets[first_package..first_package + tree.packages.len()] {
            push_u32(at);
        }
        debug_assert_eq!(index_contents.len() as u64, contents_end - resources_end);

        let mut strings = strings.finish().ok_or_else(|| too_large("the strings"))?;
        let blob_len = u32::try_from(blob.len()).map_err(|_| too_large("the locations"))?;
        let location_count =
            u32::try_from(locations.len()).map_err(|_| too_large("the location count"))?;
        // Padded so that the contents start 4-aligned, as in jlink's images.
        let unpadded = HEADER_SIZE + 8 * locations.len() + blob.len() + strings.len();
        strings.resize(strings.len() + (4 - unpadded % 4) % 4, 0);
        let strings_len = strings.len() as u32;

        // The perfect hash, then the index in file order.
        let hashed: Vec<Cow<'_, [u8]>> = locations.iter().map(|l| modified_utf8(l.name)).collect();
        // A table of exactly one slot a name nearly always works; when
        // some names cannot be separated (in a table of 2 slots, names whose
        // bytes' low bits agree never are), the table grows: its extra
        // slots point at the empty location.
        let mut table_length = locations.len();
        let (redirect, slots) = loop {
            match perfect_hash(&hashed, table_length) {
                Ok(table) => break table,
                Err(_) if table_length < locations.len() + 64 => table_length += 1,
                Err(i) => {
                    return Err(unsupported(
                        locations[i].name,
                        "no hash seed separates this name from the others".to_owned(),
                    ))
                }
            }
        };
        let table_length =
            u32::try_from(table_length).map_err(|_| too_large("the location count"))?;
        let mut offsets = vec![0u32; table_length as usize];
        for (i, &slot) in slots.iter().enumerate() {
            offsets[slot] = location_offsets[i];
        }
        let mut index = Vec::with_capacity(unpadded + 4);
        for field in [
            MAGIC,
            VERSION,
            0,
            location_count,
            table_length,
            blob_len,
            strings_len,
        ] {
            index.extend_from_slice(&field.to_ne_bytes());
        }
        for r in redirect {
            index.extend_from_slice(&r.to_ne_bytes());
        }
        for o in offsets {
            index.extend_from_slice(&o.to_ne_bytes());
        }
        index.extend_from_slice(&blob);
        index.extend_from_slice(&strings);
        Ok(Layout {
            index,
            index_contents,
            sizes,
        })
    }
}

/// The size of the image header: seven u32.
const HEADER_SIZE: usize = 7 * 4;

/// The location of an index entry: `module` is `modules` or `packages`
/// (`base` is then the rest of the name) or empty (for `/modules` and
/// `/packages` themselves, whose `base` is the whole name).
fn index_location<'n>(
    name: &'n str,
    module: &'n str,
    base: &'n str,
    offset: u64,
    size: u64,
) -> Location<'n> {
    Location {
        name,
        module,
        parent: "",
        base,
        extension: "",
        offset,
        size,
    }
}

/// A perfect-hash table of `count` slots (at least one a name) for `names`
/// (modified UTF-8, distinct), as the
/// JVM looks names up: slot `hash(name) % n` of the redirect table holds
/// `-slot - 1` when that name alone hashes there (its location is at
/// `slot` of the offsets table), a seed `s > 0` when several do (the
/// location of each is at `hash_s(name) % n`), 0 when none does.
///
/// Built as the JDK's builder does: the buckets of several names first,
/// largest first, each given the first seed that sends all its names to
/// distinct free slots; then the single names, each to the next free slot.
/// Answers the redirect table and the slot of each name, or the index of a
/// name no seed could place (only duplicates make that happen).
fn perfect_hash<N: AsRef<[u8]>>(
    names: &[N],
    count: usize,
) -> Result<(Vec<i32>, Vec<usize>), usize> {
    /// Seeds tried for one bucket before giving up.
    const MAX_SEED: i32 = 1 << 20;
    assert!(count >= names.len(), "fewer slots than names");
    let mut redirect = vec![0i32; count];
    let mut slots = vec![usize::MAX; names.len()];
    if count == 0 {
        return Ok((redirect, slots));
    }
    let slot = |name: &N, seed: i32| hash(name.as_ref(), seed) as usize % count;
    // Buckets as runs of a sorted list of (bucket, name index).
    let mut by_bucket: Vec<(usize, usize)> = names
        .iter()
        .enumerate()
        .map(|(i, name)| (slot(name, HASH_MULTIPLIER), i))
        .collect();
    by_bucket.sort_unstable();
    let mut buckets: Vec<&[(usize, usize)]> = by_bucket.chunk_by(|a, b| a.0 == b.0).collect();
    buckets.sort_by_key(|bucket| std::cmp::Reverse(bucket.len()));
    let mut used = vec![false; count];
    let mut taken: Vec<usize> = Vec::new();
    let mut free = 0;
    for bucket in buckets {
        let bucket_slot = bucket[0].0;
        if let [(_, single)] = bucket {
            while used[free] {
                free += 1;
            }
            used[free] = true;
            slots[*single] = free;
            redirect[bucket_slot] = -(free as i32) - 1;
            continue;
        }
        let mut seed = 1;
        loop {
            taken.clear();
            let fits = bucket.iter().all(|&(_, i)| {
                let s = slot(&names[i], seed);
                let fresh = !used[s] && !taken.contains(&s);
                taken.push(s);
                fresh
            });
            if fits {
                break;
            }
            seed += 1;
            if seed > MAX_SEED {
                return Err(bucket[0].1);
            }
        }
        for (&(_, i), &s) in bucket.iter().zip(&taken) {
            used[s] = true;
            slots[i] = s;
        }
        redirect[bucket_slot] = seed;
    }
    Ok((redirect, slots))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;

    use super::*;
    use crate::jimage::{decode_location, string_at, Attributes, ATTR_COMPRESSED};
    use crate::RuntimeImage;

    /// What an index entry of an image holds, decoded.
    #[derive(Debug, PartialEq, Eq)]
    enum IndexEntry {
        /// A directory: the full names of its children, in order.
        Dir(Vec<String>),
        /// A package: `(is_empty, module)` pairs, in order.
        Package(Vec<(u32, String)>),
    }

    /// Decodes the index entries of the (little-endian) image at `path`
    /// straight from its tables: every location by full name, the
    /// directory lists turned back into names.
    fn index_entries(path: &Path) -> BTreeMap<String, IndexEntry> {
        let data = std::fs::read(path).unwrap();
        let u32_at = |at: usize| u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
        let table_length = u32_at(16) as usize;
        let locations_start = HEADER_SIZE + 8 * table_length;
        let strings_start = locations_start + u32_at(20) as usize;
        let index_end = strings_start + u32_at(24) as usize;
        let locations = &data[locations_start..strings_start];
        let strings = &data[strings_start..index_end];
        let location = |offset: u32| -> (String, Attributes) {
            let a = decode_location(locations, offset).unwrap();
            let s = |kind: usize| string_at(strings, a[kind]).unwrap();
            let name = crate::jimage::full_name(
                &s(ATTR_MODULE),
                &s(ATTR_PARENT),
                &s(ATTR_BASE),
                &s(ATTR_EXTENSION),
            );
            (name, a)
        };
        let mut out = BTreeMap::new();
        for slot in 0..table_length {
            let (name, a) = location(u32_at(HEADER_SIZE + 4 * table_length + 4 * slot));
            assert_eq!(a[ATTR_COMPRESSED], 0, "{name}");
            let start = index_end + a[ATTR_OFFSET] as usize;
            let contents = &data[start..start + a[ATTR_UNCOMPRESSED] as usize];
            let words: Vec<u32> = contents
                .chunks_exact(4)
                .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
                .collect();
            let entry = if name.starts_with("/packages/") {
                IndexEntry::Package(
                    words
                        .chunks_exact(2)
                        .map(|p| (p[0], string_at(strings, u64::from(p[1])).unwrap()))
                        .collect(),
                )
            } else if name.starts_with("/modules/") || name == "/modules" || name == "/packages" {
                IndexEntry::Dir(words.iter().map(|&w| location(w).0).collect())
            } else {
                continue;
            };
            out.insert(name, entry);
        }
        out
    }

    fn listing(children: &[&str]) -> IndexEntry {
        IndexEntry::Dir(children.iter().map(|c| c.to_string()).collect())
    }

    fn package(modules: &[(u32, &str)]) -> IndexEntry {
        IndexEntry::Package(modules.iter().map(|&(e, m)| (e, m.to_string())).collect())
    }

    const CLASS: &[u8] = b"\xCA\xFE\xBA\xBE\0\0\0\x3D";

    /// A small image with every shape of name: module roots, `META-INF`, a
    /// one-letter package (jlink puts no parent string there), a package
    /// in two modules (one holding only a sub-package), files without or
    /// with several dots, a supplementary character.
    fn sample(target: &Path) -> ImageWriter<'static> {
        let mut w = ImageWriter::new(target);
        w.add("java.base", "java/lang/Object.class", CLASS).unwrap();
        w.add("java.base", "java/lang/String.class", vec![1, 2, 3])
            .unwrap();
        w.add("java.base", "module-info.class", &b"mi"[..]).unwrap();
        w.add("java.base", "META-INF/services/x.Y", &b"impl"[..])
            .unwrap();
        w.add("m.two", "java/lang/sub/A.class", &b"A"[..]).unwrap();
        w.add("m.two", "x/Foo.class", &b"foo"[..]).unwrap();
        w.add("m.two", "root.properties", &b"k=v"[..]).unwrap();
        w.add("m.two", "x/y/NoExtension", &b""[..]).unwrap();
        w.add("m.two", "x/y/a.b.c", &b"abc"[..]).unwrap();
        w.add("m.two", "x/y/.hidden", &b"h"[..]).unwrap();
        w.add("m.two", "u/\u{1F600}\u{e9}.txt", &b"smile"[..])
            .unwrap();
        w
    }

    #[test]
    fn small_image_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lib/modules");
        let w = sample(&path);
        assert_eq!(w.len(), 11);
        w.write().unwrap();
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("lib")).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "only the image: {leftovers:?}");

        let archive = Archive::open(&path).unwrap();
        let files: BTreeMap<&str, Vec<u8>> = archive
            .entries()
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.is_dir)
            .map(|(i, e)| (e.name.as_str(), archive.read(i).unwrap().into_owned()))
            .collect();
        let expected: BTreeMap<String, Vec<u8>> = w
            .resources
            .iter()
            .map(|(name, contents)| match contents {
                Contents::Bytes(b) => (name.clone(), b.to_vec()),
                Contents::Source(_) => unreachable!(),
            })
            .collect();
        let expected: BTreeMap<&str, Vec<u8>> = expected
            .iter()
            .map(|(n, b)| (n.as_str(), b.clone()))
            .collect();
        assert_eq!(files, expected);

        let index = index_entries(&path);
        let names: Vec<&str> = index.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "/modules",
                "/modules/java.base",
                "/modules/java.base/META-INF",
                "/modules/java.base/META-INF/services",
                "/modules/java.base/java",
                "/modules/java.base/java/lang",
                "/modules/m.two",
                "/modules/m.two/java",
                "/modules/m.two/java/lang",
                "/modules/m.two/java/lang/sub",
                "/modules/m.two/u",
                "/modules/m.two/x",
                "/modules/m.two/x/y",
                "/packages",
                "/packages/java",
                "/packages/java.lang",
                "/packages/java.lang.sub",
                "/packages/u",
                "/packages/x",
                "/packages/x.y",
            ]
        );
        assert_eq!(
            index["/modules"],
            listing(&["/modules/java.base", "/modules/m.two"])
        );
        assert_eq!(
            index["/modules/java.base"],
            listing(&[
                "/modules/java.base/META-INF",
                "/modules/java.base/java",
                "/java.base/module-info.class"
            ])
        );
        assert_eq!(
            index["/modules/java.base/java/lang"],
            listing(&[
                "/java.base/java/lang/Object.class",
                "/java.base/java/lang/String.class"
            ])
        );
        assert_eq!(
            index["/modules/m.two"],
            listing(&[
                "/modules/m.two/java",
                "/m.two/root.properties",
                "/modules/m.two/u",
                "/modules/m.two/x"
            ])
        );
        assert_eq!(
            index["/modules/m.two/x/y"],
            listing(&[
                "/m.two/x/y/.hidden",
                "/m.two/x/y/NoExtension",
                "/m.two/x/y/a.b.c"
            ])
        );
        assert_eq!(
            index["/packages/java.lang"],
            package(&[(0, "java.base"), (1, "m.two")])
        );
        assert_eq!(
            index["/packages/java"],
            package(&[(1, "java.base"), (1, "m.two")])
        );
        assert_eq!(index["/packages/java.lang.sub"], package(&[(0, "m.two")]));
        assert_eq!(
            index["/packages"],
            listing(&[
                "/packages/java",
                "/packages/java.lang",
                "/packages/java.lang.sub",
                "/packages/u",
                "/packages/x",
                "/packages/x.y"
            ])
        );

        // The JVM's way in: packages to modules, classes by name.
        let image = RuntimeImage::open(&path).unwrap();
        assert_eq!(
            image.read_class("java/lang/Object").unwrap().as_deref(),
            Some(CLASS)
        );
        assert_eq!(
            image.read_class("java/lang/sub/A").unwrap().as_deref(),
            Some(&b"A"[..])
        );
        assert_eq!(
            image.read_class("x/Foo").unwrap().as_deref(),
            Some(&b"foo"[..])
        );
        assert!(image.read_class("java/lang/Nope").unwrap().is_none());
    }

    #[test]
    fn output_is_deterministic_and_replaces_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        sample(&a).write().unwrap();
        std::fs::write(&b, b"old").unwrap();
        sample(&b).write().unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        // Index starts 4-aligned, header fields as jlink writes them.
        let data = std::fs::read(&a).unwrap();
        let field = |i: usize| u32::from_ne_bytes(data[i * 4..i * 4 + 4].try_into().unwrap());
        assert_eq!(field(0), MAGIC);
        assert_eq!(field(1), 1 << 16);
        assert_eq!(field(3), field(4));
        assert_eq!(field(3) as usize, 11 + 12 + 1 + 6 + 1);
        let index = HEADER_SIZE + 8 * field(4) as usize + (field(5) + field(6)) as usize;
        assert_eq!(index % 4, 0);
        let strings = &data[index - field(6) as usize..];
        assert!(strings.starts_with(b"\0class\0"));
    }

    #[test]
    fn copy_with_replaced_and_added_resources() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("first");
        sample(&first).write().unwrap();
        let source = Archive::open(&first).unwrap();
        let second = dir.path().join("second");
        let mut w = ImageWriter::from_image(&source, &second).unwrap();
        assert_eq!(w.len(), 11);
        assert!(w.contains("java.base", "java/lang/Object.class"));
        w.replace("java.base", "java/lang/Object.class", &b"woven"[..])
            .unwrap();
        w.add("java.base", "p/added/Hello.class", &b"hello"[..])
            .unwrap();
        w.write().unwrap();
        let image = RuntimeImage::open(&second).unwrap();
        assert_eq!(
            image.read_class("java/lang/Object").unwrap().as_deref(),
            Some(&b"woven"[..])
        );
        assert_eq!(
            image.read_class("p/added/Hello").unwrap().as_deref(),
            Some(&b"hello"[..])
        );
        assert_eq!(
            image.read_class("java/lang/String").unwrap().as_deref(),
            Some(&[1, 2, 3][..])
        );
        let index = index_entries(&second);
        assert_eq!(index["/packages/p.added"], package(&[(0, "java.base")]));
        assert_eq!(index["/packages/p"], package(&[(1, "java.base")]));

        // Rewriting the source in place: the mapping keeps the old file.
        let w = ImageWriter::from_image(&source, &first).unwrap();
        w.write().unwrap();
        drop(source);
        let again = Archive::open(&first).unwrap();
        assert_eq!(again.entries().len(), 11 + 20);
    }

    #[test]
    fn bad_additions_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("modules");
        let mut w = sample(&target);
        let invalid = |r: Result<(), ArchiveError>| match r {
            Err(ArchiveError::InvalidName { path, entry, .. }) => {
                assert_eq!(path, target);
                entry
            }
            other => panic!("expected InvalidName, got {other:?}"),
        };
        for (module, path) in [
            ("", "a/B.class"),
            ("a/b", "C.class"),
            ("modules", "a/B.class"),
            ("packages", "a/B.class"),
            ("m", ""),
            ("m", "/a"),
            ("m", "a/"),
            ("m", "a//b"),
            ("m", "a/./b"),
            ("m", "../b"),
            ("m", "a/b."),
            ("m", "a\0b"),
            ("m\0", "a"),
        ] {
            invalid(w.add(module, path, &b""[..]));
        }
        let entry = invalid(w.replace("java.base", "java/lang/Nope.class", &b""[..]));
        assert_eq!(entry, "/java.base/java/lang/Nope.class");
        match w.add("java.base", "java/lang/Object.class", &b""[..]) {
            Err(ArchiveError::Duplicate { entry, .. }) => {
                assert_eq!(entry, "/java.base/java/lang/Object.class")
            }
            other => panic!("expected Duplicate, got {other:?}"),
        }
        assert_eq!(w.len(), 11);

        // A package with resources in two modules.
        w.add("m.two", "java/lang/Clash.class", &b""[..]).unwrap();
        match w.write() {
            Err(ArchiveError::Unsupported { entry, what, .. }) => {
                assert_eq!(entry.as_deref(), Some("/packages/java.lang"));
                assert!(what.contains("`java.base` and `m.two`"), "{what}");
            }
            other => panic!("expected Unsupported, got {other:?}"),
        }
        // A resource that is also a directory.
        let mut w = sample(&target);
        w.add("m.two", "x/y", &b""[..]).unwrap();
        match w.write() {
            Err(ArchiveError::Unsupported { entry, .. }) => {
                assert_eq!(entry.as_deref(), Some("/m.two/x/y"))
            }
            other => panic!("expected Unsupported, got {other:?}"),
        }
        assert!(!target.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);

        // Only images are copied.
        let jar_dir = dir.path().join("classes");
        std::fs::create_dir(&jar_dir).unwrap();
        std::fs::write(jar_dir.join("A.class"), CLASS).unwrap();
        let classes = Archive::open(&jar_dir).unwrap();
        let err = ImageWriter::from_image(&classes, &target).unwrap_err();
        assert!(matches!(err, ArchiveError::Unsupported { .. }), "{err}");
    }

    #[test]
    fn empty_image() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("modules");
        let w = ImageWriter::new(&path);
        assert!(w.is_empty());
        w.write().unwrap();
        let archive = Archive::open(&path).unwrap();
        let names: Vec<&str> = archive.entries().iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["/modules", "/packages"]);
        // Their names cannot be told apart in a table of 2 slots.
        let data = std::fs::read(&path).unwrap();
        let field = |i: usize| u32::from_ne_bytes(data[i * 4..i * 4 + 4].try_into().unwrap());
        assert_eq!((field(3), field(4)), (2, 3));
        let index = index_entries(&path);
        assert_eq!(index["/modules"], listing(&[]));
        assert_eq!(index["/packages"], listing(&[]));
    }

    /// Many names: buckets of several names (seeded) and single ones; every
    /// name found through the reader, in a table of exactly their count.
    #[test]
    fn perfect_hash_places_every_name() {
        let names: Vec<String> = (0..20_000)
            .map(|i| format!("/m{}/p/C{i}.class", i % 7))
            .collect();
        let (redirect, slots) = perfect_hash(&names, names.len()).unwrap();
        assert!(redirect.iter().any(|&r| r > 0));
        assert!(redirect.iter().any(|&r| r < 0));
        let mut seen = vec![false; names.len()];
        for (i, name) in names.iter().enumerate() {
            let n = names.len();
            let found = match redirect[hash(name.as_bytes(), HASH_MULTIPLIER) as usize % n] {
                r if r < 0 => (-r - 1) as usize,
                seed => {
                    assert!(seed > 0);
                    hash(name.as_bytes(), seed) as usize % n
                }
            };
            assert_eq!(found, slots[i]);
            assert!(!seen[found]);
            seen[found] = true;
        }
        assert!(perfect_hash(&Vec::<String>::new(), 0).unwrap().0.is_empty());
        assert_eq!(perfect_hash(&["a", "a"], 2), Err(0));
        // Same low-bit parity: no seed separates them in 2 slots, 3 do.
        assert_eq!(perfect_hash(&["/modules", "/packages"], 2), Err(0));
        assert!(perfect_hash(&["/modules", "/packages"], 3).is_ok());
    }

    #[test]
    fn names_split_as_jlink_splits_them() {
        assert_eq!(
            split_rest("java/lang/Object.class"),
            ("java/lang", "Object", "class")
        );
        assert_eq!(
            split_rest("module-info.class"),
            ("", "module-info", "class")
        );
        assert_eq!(split_rest("x/Foo.class"), ("", "x/Foo", "class"));
        assert_eq!(split_rest("ab/Foo"), ("ab", "Foo", ""));
        assert_eq!(split_rest("a.b/c.d.e"), ("a.b", "c.d", "e"));
        assert_eq!(split_rest("p/.x"), ("", "p/", "x"));
        assert_eq!(java_order("\u{FF61}", "\u{1F600}"), Ordering::Greater);
        assert_eq!("\u{FF61}".cmp("\u{1F600}"), Ordering::Less);
    }

    /// Rewrites a JDK's image and compares the index entries derived with
    /// the ones jlink wrote: the same names, the same directory lists and
    /// package lists.
    fn check_jdk_index(path: &str) {
        let path = Path::new(path);
        if !path.exists() {
            eprintln!("SKIP: {} does not exist", path.display());
            return;
        }
        let source = Archive::open(path).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("modules");
        ImageWriter::from_image(&source, &copy)
            .unwrap()
            .write()
            .unwrap();
        let original = index_entries(path);
        let written = index_entries(&copy);
        assert!(original.len() > 2000, "{}", original.len());
        let names = |m: &BTreeMap<String, IndexEntry>| m.keys().cloned().collect::<Vec<_>>();
        assert_eq!(names(&written), names(&original));
        for (name, entry) in &original {
            assert_eq!(&written[name], entry, "{name}");
        }
        eprintln!(
            "{}: {} index entries as jlink wrote them",
            path.display(),
            original.len()
        );
    }

    #[test]
    fn jdk17_index_entries_as_jlink_writes_them() {
        check_jdk_index("/usr/lib/jvm/java-17-openjdk-amd64/lib/modules");
    }

    #[test]
    fn jdk25_index_entries_as_jlink_writes_them() {
        check_jdk_index("/usr/lib/jvm/temurin-25-jdk-amd64/lib/modules");
    }
}
