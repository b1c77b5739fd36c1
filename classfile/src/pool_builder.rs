//! An append-only constant pool: starts as the class's original pool (copied as one
//! byte range when written) and adds entries only when no equal entry exists.

use rustc_hash::FxHashMap as HashMap;
use std::borrow::Cow;
use std::cell::RefCell;

use crate::constant_pool::{
    decode_modified_utf8, encode_modified_utf8, tag, Constant, ConstantPool, MemberRef,
};
use crate::error::{Error, ErrorKind, Result};

/// An appended entry, kept to answer [`PoolBuilder::constant`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Appended {
    Utf8(Box<[u8]>),
    /// Tag and packed value: the bits of a number, or `a << 16 | b` for a reference.
    Other(u8, u64),
}

/// The dedup key of a non-Utf8 entry: its tag and packed value.
fn other_key(c: &Constant<'_>) -> Option<(u8, u64)> {
    let r = |a: u16, b: u16| (a as u64) << 16 | b as u64;
    Some(match *c {
        Constant::Unusable | Constant::Utf8(_) => return None,
        Constant::Integer(v) => (tag::INTEGER, v as u32 as u64),
        Constant::Float(v) => (tag::FLOAT, v as u64),
        Constant::Long(v) => (tag::LONG, v as u64),
        Constant::Double(v) => (tag::DOUBLE, v),
        Constant::Class(a)
        | Constant::String(a)
        | Constant::MethodType(a)
        | Constant::Module(a)
        | Constant::Package(a) => (c.tag(), r(a, 0)),
        Constant::Fieldref(a, b)
        | Constant::Methodref(a, b)
        | Constant::InterfaceMethodref(a, b)
        | Constant::NameAndType(a, b)
        | Constant::Dynamic(a, b)
        | Constant::InvokeDynamic(a, b) => (c.tag(), r(a, b)),
        Constant::MethodHandle(k, b) => (c.tag(), r(k as u16, b)),
    })
}

/// Lookup tables over the original and appended entries, built on first use.
///
/// The original entries are found through one open-addressing table of their
/// indices (linear probing, at most half full), hashed by a few words of
/// their content and compared in place: built in one pass over the pool, with
/// no keys copied or hashed in full (a woven class looks up some 50 entries,
/// while its pool holds hundreds). Entries go in by increasing index, and an
/// entry equal to an earlier one has the same home slot, so the first equal
/// entry along a probe sequence is the one with the smallest index: lookups
/// answer the first of duplicate entries, as a map filled with `or_insert`
/// would.
#[derive(Debug, Default)]
struct Index {
    /// Original entry indices by hash slot; 0 (never a usable entry) is empty.
    slots: Vec<u16>,
    /// `64 - log2(slots.len())`: a hash's slot is its top bits.
    shift: u32,
    appended_utf8: HashMap<Box<[u8]>, u16>,
    appended_other: HashMap<(u8, u64), u16>,
}

/// Spreads a word's bits over the top ones (which pick the slot).
#[inline]
fn spread(x: u64) -> u64 {
    (x ^ (x >> 31)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The lookup hash of Utf8 bytes: their length and first and last eight
/// bytes (all of them when shorter), in constant time.
#[inline]
fn utf8_hash(b: &[u8]) -> u64 {
    let n = b.len();
    let w = if n >= 8 {
        let head = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
        let tail = u64::from_le_bytes(b[n - 8..].try_into().expect("8 bytes"));
        head.wrapping_mul(0xFF51_AFD7_ED55_8CCD) ^ tail
    } else {
        b.iter().fold(0u64, |v, &c| v << 8 | u64::from(c))
    };
    spread(w ^ (n as u64).wrapping_mul(0xC4CE_B9FE_1A85_EC53))
}

/// The lookup hash of a non-Utf8 entry's [`other_key`].
#[inline]
fn other_hash((t, packed): (u8, u64)) -> u64 {
    spread(packed ^ u64::from(t) << 56 ^ 0x5555)
}

impl Index {
    /// The table over `original`'s entries.
    fn of(original: &ConstantPool<'_>) -> Self {
        let entries = original.entries();
        let bits = (entries.len() * 2)
            .next_power_of_two()
            .trailing_zeros()
            .max(4);
        let mask = (1usize << bits) - 1;
        let shift = 64 - bits;
        let mut slots = vec![0u16; 1 << bits];
        for (i, c) in entries.iter().enumerate() {
            let h = match c {
                Constant::Unusable => continue,
                Constant::Utf8(b) => utf8_hash(b),
                other => match other_key(other) {
                    Some(k) => other_hash(k),
                    None => continue,
                },
            };
            let mut p = (h >> shift) as usize;
            while slots[p] != 0 {
                p = (p + 1) & mask;
            }
            slots[p] = i as u16;
        }
        Index {
            slots,
            shift,
            ..Index::default()
        }
    }

    /// The first original entry of hash `h` that `is` accepts.
    #[inline]
    fn find(&self, h: u64, is: impl Fn(usize) -> bool) -> Option<u16> {
        let mask = self.slots.len() - 1;
        let mut p = (h >> self.shift) as usize;
        loop {
            let i = self.slots[p];
            if i == 0 {
                return None;
            }
            if is(usize::from(i)) {
                return Some(i);
            }
            p = (p + 1) & mask;
        }
    }
}

/// Stores `v` at `i` of a per-index cache of a pool of `len` entries.
fn remember<T: Clone>(cache: &RefCell<Vec<Option<T>>>, len: usize, i: usize, v: T) {
    let mut cache = cache.borrow_mut();
    if cache.is_empty() {
        cache.resize(len, None);
    }
    cache[i] = Some(v);
}

/// The constant pool of a class being written.
#[derive(Debug)]
pub struct PoolBuilder<'a> {
    original: &'a ConstantPool<'a>,
    original_bytes: &'a [u8],
    appended: Vec<u8>,
    count: usize,
    index: Option<Index>,
    /// Appended entries by slot (`None` for the second slot of a long/double).
    appended_entries: Vec<Option<Appended>>,
    /// Field and method references asked for before, by `owner NUL name NUL
    /// descriptor NUL tag`: weaving asks for the same few again and again.
    method_refs: HashMap<Box<[u8]>, u16>,
    /// A buffer for `method_refs` keys.
    key: Vec<u8>,
    /// Decoded member references of the original pool, by index (filled on
    /// demand: the frame computation asks for the same ones again and again).
    members: RefCell<Vec<Option<[&'a str; 3]>>>,
    /// Decoded class names of the original pool, by index.
    classes: RefCell<Vec<Option<&'a str>>>,
    /// [`member_slots`](Self::member_slots) answers, by index.
    slots: RefCell<HashMap<u16, (usize, usize)>>,
    /// What the frame analyses of the class's methods share (names and
    /// references decoded once per class), between one method and the next.
    frame_types: RefCell<crate::frames::ClassTypes>,
    /// Bootstrap methods to append to the class's `BootstrapMethods` attribute.
    bootstraps: Bootstraps,
}

/// The bootstrap methods a builder appends: `(method handle, static arguments)`
/// entries numbered after the class's own.
#[derive(Debug, Default)]
struct Bootstraps {
    /// How many entries the class's `BootstrapMethods` attribute has.
    original: usize,
    /// The appended entries.
    appended: Vec<(u16, Vec<u16>)>,
    /// Appended entries by content, for deduplication.
    index: HashMap<(u16, Vec<u16>), u16>,
    /// The pool index of the Utf8 `BootstrapMethods` (interned with the first entry).
    name: Option<u16>,
}

impl<'a> PoolBuilder<'a> {
    /// A builder holding `pool` (whose bytes are in `class_bytes`).
    pub fn new(pool: &'a ConstantPool<'a>, class_bytes: &'a [u8]) -> Self {
        let (s, e) = pool.byte_range();
        PoolBuilder {
            original: pool,
            original_bytes: &class_bytes[s..e],
            appended: Vec::new(),
            count: pool.len(),
            index: None,
            appended_entries: Vec::new(),
            method_refs: HashMap::default(),
            key: Vec::new(),
            members: RefCell::default(),
            classes: RefCell::default(),
            slots: RefCell::default(),
            frame_types: RefCell::default(),
            bootstraps: Bootstraps::default(),
        }
    }

    /// Takes what the frame analyses of this class share, for one analysis
    /// (empty while another holds it).
    pub(crate) fn take_frame_types(&self) -> crate::frames::ClassTypes {
        self.frame_types.take()
    }

    /// Hands back what [`take_frame_types`](Self::take_frame_types) gave.
    pub(crate) fn keep_frame_types(&self, types: crate::frames::ClassTypes) {
        *self.frame_types.borrow_mut() = types;
    }

    /// A builder with no original pool, for classes made from scratch.
    pub fn empty() -> PoolBuilder<'static> {
        static EMPTY: std::sync::LazyLock<ConstantPool<'static>> =
            std::sync::LazyLock::new(ConstantPool::empty);
        PoolBuilder {
            original: &EMPTY,
            original_bytes: &[],
            appended: Vec::new(),
            count: 1,
            index: None,
            appended_entries: Vec::new(),
            method_refs: HashMap::default(),
            key: Vec::new(),
            members: RefCell::default(),
            classes: RefCell::default(),
            slots: RefCell::default(),
            frame_types: RefCell::default(),
            bootstraps: Bootstraps::default(),
        }
    }

    /// The original pool.
    pub fn original(&self) -> &'a ConstantPool<'a> {
        self.original
    }
    /// True when nothing was appended.
    pub fn is_unchanged(&self) -> bool {
        self.appended.is_empty()
    }
    /// Bytes of the entries appended to the original pool.
    pub fn appended_len(&self) -> usize {
        self.appended.len()
    }
    /// The `constant_pool_count` to write.
    pub fn count(&self) -> usize {
        self.count
    }

    fn index(&mut self) -> &mut Index {
        let original = self.original;
        self.index.get_or_insert_with(|| Index::of(original))
    }

    /// Reserves the next `slots` slots, failing when the pool would overflow.
    fn next_slot(&mut self, slots: usize) -> Result<u16> {
        if self.count + slots > 0xFFFF {
            return Err(Error::new(
                ErrorKind::Unsupported,
                None,
                "constant pool would exceed 65535 entries",
            ));
        }
        let idx = self.count as u16;
        self.count += slots;
        Ok(idx)
    }

    fn intern_utf8(&mut self, b: &[u8]) -> Result<u16> {
        let entries = self.original.entries();
        let ix = self.index();
        let found = ix.find(
            utf8_hash(b),
            |i| matches!(entries[i], Constant::Utf8(e) if e == b),
        );
        if let Some(i) = found.or_else(|| ix.appended_utf8.get(b).copied()) {
            return Ok(i);
        }
        let idx = self.next_slot(1)?;
        self.appended.push(tag::UTF8);
        self.appended
            .extend_from_slice(&(b.len() as u16).to_be_bytes());
        self.appended.extend_from_slice(b);
        self.appended_entries.push(Some(Appended::Utf8(b.into())));
        self.index().appended_utf8.insert(b.into(), idx);
        Ok(idx)
    }

    fn intern(&mut self, t: u8, packed: u64, bytes: impl FnOnce(&mut Vec<u8>)) -> Result<u16> {
        let entries = self.original.entries();
        let ix = self.index();
        let key = (t, packed);
        let found = ix.find(other_hash(key), |i| other_key(&entries[i]) == Some(key));
        if let Some(i) = found.or_else(|| ix.appended_other.get(&key).copied()) {
            return Ok(i);
        }
        let wide = matches!(t, tag::LONG | tag::DOUBLE);
        let idx = self.next_slot(if wide { 2 } else { 1 })?;
        self.appended.push(t);
        bytes(&mut self.appended);
        self.appended_entries.push(Some(Appended::Other(t, packed)));
        if wide {
            self.appended_entries.push(None);
        }
        self.index().appended_other.insert((t, packed), idx);
        Ok(idx)
    }

    /// A `CONSTANT_Utf8` for `s`.
    pub fn utf8(&mut self, s: &str) -> Result<u16> {
        let b = encode_modified_utf8(s);
        if b.len() > 0xFFFF {
            return Err(Error::new(
                ErrorKind::Unsupported,
                None,
                "string constant longer than 65535 bytes",
            ));
        }
        self.intern_utf8(&b)
    }

    fn ref1(&mut self, t: u8, a: u16) -> Result<u16> {
        self.intern(t, (a as u64) << 16, |out| {
            out.extend_from_slice(&a.to_be_bytes());
        })
    }

    fn ref2(&mut self, t: u8, a: u16, b: u16) -> Result<u16> {
        self.intern(t, (a as u64) << 16 | b as u64, |out| {
            out.extend_from_slice(&a.to_be_bytes());
            out.extend_from_slice(&b.to_be_bytes());
        })
    }

    /// A `CONSTANT_Class` for an internal name or array descriptor.
    pub fn class(&mut self, name: &str) -> Result<u16> {
        let n = self.utf8(name)?;
        self.ref1(tag::CLASS, n)
    }
    /// A `CONSTANT_Package` for a package's internal name (`a/b`).
    pub fn package(&mut self, name: &str) -> Result<u16> {
        let n = self.utf8(name)?;
        self.ref1(tag::PACKAGE, n)
    }
    /// A `CONSTANT_String`.
    pub fn string(&mut self, s: &str) -> Result<u16> {
        let n = self.utf8(s)?;
        self.ref1(tag::STRING, n)
    }
    /// A `CONSTANT_Integer`.
    pub fn integer(&mut self, v: i32) -> Result<u16> {
        self.intern(tag::INTEGER, v as u32 as u64, |out| {
            out.extend_from_slice(&v.to_be_bytes());
        })
    }
    /// A `CONSTANT_Long`.
    pub fn long(&mut self, v: i64) -> Result<u16> {
        self.intern(tag::LONG, v as u64, |out| {
            out.extend_from_slice(&v.to_be_bytes());
        })
    }
    /// A `CONSTANT_NameAndType`.
    pub fn name_and_type(&mut self, name: &str, descriptor: &str) -> Result<u16> {
        let n = self.utf8(name)?;
        let d = self.utf8(descriptor)?;
        self.ref2(tag::NAME_AND_TYPE, n, d)
    }
    /// A `CONSTANT_Fieldref`.
    pub fn field_ref(&mut self, owner: &str, name: &str, descriptor: &str) -> Result<u16> {
        self.member(tag::FIELDREF, owner, name, descriptor)
    }
    /// A `CONSTANT_Methodref`, or `CONSTANT_InterfaceMethodref` when `interface`.
    pub fn method_ref(
        &mut self,
        owner: &str,
        name: &str,
        descriptor: &str,
        interface: bool,
    ) -> Result<u16> {
        let t = if interface {
            tag::INTERFACE_METHODREF
        } else {
            tag::METHODREF
        };
        self.member(t, owner, name, descriptor)
    }

    /// A field or method reference of tag `t`, remembered by its text.
    fn member(&mut self, t: u8, owner: &str, name: &str, descriptor: &str) -> Result<u16> {
        let mut key = std::mem::take(&mut self.key);
        key.clear();
        for part in [owner, name, descriptor] {
            key.extend_from_slice(part.as_bytes());
            key.push(0);
        }
        key.push(t);
        let found = self.method_refs.get(&key[..]).copied();
        let r = match found {
            Some(i) => Ok(i),
            None => {
                let c = self.class(owner)?;
                let nt = self.name_and_type(name, descriptor)?;
                let i = self.ref2(t, c, nt)?;
                self.method_refs.insert(key.as_slice().into(), i);
                Ok(i)
            }
        };
        self.key = key;
        r
    }

    /// The entry at `idx`, original or appended.
    pub fn constant(&self, idx: u16) -> Result<Constant<'_>> {
        let n = self.original.len();
        if (idx as usize) < n {
            return self.original.get(idx);
        }
        let bad = || {
            Error::new(
                ErrorKind::BadCpIndex,
                None,
                format!("constant-pool index {idx} is out of range"),
            )
        };
        let entry = self
            .appended_entries
            .get(idx as usize - n)
            .ok_or_else(bad)?
            .as_ref()
            .ok_or_else(bad)?;
        let (t, v) = match entry {
            Appended::Utf8(b) => return Ok(Constant::Utf8(b)),
            Appended::Other(t, v) => (*t, *v),
        };
        let (a, b) = ((v >> 16) as u16, v as u16);
        Ok(match t {
            tag::INTEGER => Constant::Integer(v as u32 as i32),
            tag::FLOAT => Constant::Float(v as u32),
            tag::LONG => Constant::Long(v as i64),
            tag::DOUBLE => Constant::Double(v),
            tag::CLASS => Constant::Class(a),
            tag::STRING => Constant::String(a),
            tag::METHOD_TYPE => Constant::MethodType(a),
            tag::MODULE => Constant::Module(a),
            tag::PACKAGE => Constant::Package(a),
            tag::FIELDREF => Constant::Fieldref(a, b),
            tag::METHODREF => Constant::Methodref(a, b),
            tag::INTERFACE_METHODREF => Constant::InterfaceMethodref(a, b),
            tag::NAME_AND_TYPE => Constant::NameAndType(a, b),
            tag::DYNAMIC => Constant::Dynamic(a, b),
            tag::INVOKE_DYNAMIC => Constant::InvokeDynamic(a, b),
            _ => Constant::MethodHandle(a as u8, b),
        })
    }

    fn expect(&self, idx: u16, tags: &[u8]) -> Result<Constant<'_>> {
        let c = self.constant(idx)?;
        if tags.contains(&c.tag()) {
            Ok(c)
        } else {
            Err(Error::new(
                ErrorKind::WrongTag,
                None,
                format!(
                    "constant #{idx} has tag {} where {tags:?} was expected",
                    c.tag()
                ),
            ))
        }
    }

    /// The Utf8 entry at `idx` as a string.
    pub fn utf8_at(&self, idx: u16) -> Result<Cow<'_, str>> {
        match self.expect(idx, &[tag::UTF8])? {
            Constant::Utf8(b) => decode_modified_utf8(b),
            _ => unreachable!("tag checked"),
        }
    }

    /// The name of the Class entry at `idx`.
    pub fn class_name(&self, idx: u16) -> Result<Cow<'_, str>> {
        let i = idx as usize;
        if i < self.original.len() {
            if let Some(Some(c)) = self.classes.borrow().get(i) {
                return Ok(Cow::Borrowed(c));
            }
            let c = self.original.class_name(idx)?;
            if let Cow::Borrowed(b) = c {
                remember(&self.classes, self.original.len(), i, b);
            }
            return Ok(c);
        }
        match self.expect(idx, &[tag::CLASS])? {
            Constant::Class(n) => self.utf8_at(n),
            _ => unreachable!("tag checked"),
        }
    }

    fn name_and_type_at(&self, idx: u16) -> Result<(Cow<'_, str>, Cow<'_, str>)> {
        match self.expect(idx, &[tag::NAME_AND_TYPE])? {
            Constant::NameAndType(n, d) => Ok((self.utf8_at(n)?, self.utf8_at(d)?)),
            _ => unreachable!("tag checked"),
        }
    }

    /// Owner, name and descriptor of a field or method reference.
    pub fn member_ref(&self, idx: u16) -> Result<MemberRef<'_>> {
        let i = idx as usize;
        if i < self.original.len() {
            if let Some(Some([owner, name, descriptor])) = self.members.borrow().get(i) {
                return Ok(MemberRef {
                    owner: Cow::Borrowed(owner),
                    name: Cow::Borrowed(name),
                    descriptor: Cow::Borrowed(descriptor),
                });
            }
            let r = self.original.member_ref(idx)?;
            if let (Cow::Borrowed(o), Cow::Borrowed(n), Cow::Borrowed(d)) =
                (&r.owner, &r.name, &r.descriptor)
            {
                remember(&self.members, self.original.len(), i, [*o, *n, *d]);
            }
            return Ok(r);
        }
        match self.expect(
            idx,
            &[tag::FIELDREF, tag::METHODREF, tag::INTERFACE_METHODREF],
        )? {
            Constant::Fieldref(c, nt)
            | Constant::Methodref(c, nt)
            | Constant::InterfaceMethodref(c, nt) => {
                let (name, descriptor) = self.name_and_type_at(nt)?;
                Ok(MemberRef {
                    owner: self.class_name(c)?,
                    name,
                    descriptor,
                })
            }
            _ => unreachable!("tag checked"),
        }
    }

    /// For the method reference at `idx`: the stack slots its arguments and
    /// its result take; for a field reference: 0 and the field's slots.
    /// Remembered per index.
    pub fn member_slots(&self, idx: u16) -> Result<(usize, usize)> {
        if let Some(&s) = self.slots.borrow().get(&idx) {
            return Ok(s);
        }
        let r = self.member_ref(idx)?;
        let s = if r.descriptor.starts_with('(') {
            let (args, ret) = crate::descriptor::method_slots(&r.descriptor)?;
            (args, crate::descriptor::slots(ret))
        } else {
            (0, crate::descriptor::slots(&r.descriptor))
        };
        self.slots.borrow_mut().insert(idx, s);
        Ok(s)
    }

    /// Name and descriptor of a Dynamic or InvokeDynamic entry.
    pub fn dynamic(&self, idx: u16) -> Result<(Cow<'_, str>, Cow<'_, str>)> {
        match self.expect(idx, &[tag::DYNAMIC, tag::INVOKE_DYNAMIC])? {
            Constant::Dynamic(_, nt) | Constant::InvokeDynamic(_, nt) => self.name_and_type_at(nt),
            _ => unreachable!("tag checked"),
        }
    }

    /// A `CONSTANT_MethodHandle` of reference `kind` (JVMS §5.4.3.5) to the
    /// member reference at `reference`.
    pub fn method_handle(&mut self, kind: u8, reference: u16) -> Result<u16> {
        self.intern(
            tag::METHOD_HANDLE,
            (kind as u64) << 16 | reference as u64,
            |out| {
                out.push(kind);
                out.extend_from_slice(&reference.to_be_bytes());
            },
        )
    }

    /// Tells the builder how many entries the class's own `BootstrapMethods`
    /// attribute holds, so appended ones are numbered after them.
    pub fn set_original_bootstrap_count(&mut self, n: usize) {
        self.bootstraps.original = n;
    }

    /// A bootstrap method entry (method handle `handle`, static arguments
    /// `args`, each a loadable constant's index), appended to the class's
    /// `BootstrapMethods` attribute unless an equal one was appended before.
    /// Returns its index in the attribute.
    pub fn bootstrap_method(&mut self, handle: u16, args: &[u16]) -> Result<u16> {
        let key = (handle, args.to_vec());
        if let Some(&i) = self.bootstraps.index.get(&key) {
            return Ok(i);
        }
        if self.bootstraps.name.is_none() {
            self.bootstraps.name = Some(self.utf8("BootstrapMethods")?);
        }
        let i = self.bootstraps.original + self.bootstraps.appended.len();
        if i > 0xFFFF || args.len() > 0xFFFF {
            return Err(Error::new(
                ErrorKind::Unsupported,
                None,
                "BootstrapMethods would exceed 65535 entries",
            ));
        }
        self.bootstraps.appended.push(key.clone());
        self.bootstraps.index.insert(key, i as u16);
        Ok(i as u16)
    }

    /// Replaces static argument `arg` of appended bootstrap method `bootstrap`
    /// (an index [`bootstrap_method`](Self::bootstrap_method) returned) with
    /// the constant at `value`. Later calls of `bootstrap_method` must not
    /// expect the entry's old content to be found.
    pub fn set_bootstrap_argument(&mut self, bootstrap: u16, arg: usize, value: u16) {
        let i = bootstrap as usize - self.bootstraps.original;
        self.bootstraps.appended[i].1[arg] = value;
    }

    /// The bootstrap methods appended so far, in order.
    pub fn appended_bootstraps(&self) -> &[(u16, Vec<u16>)] {
        &self.bootstraps.appended
    }

    /// The pool index of the Utf8 `BootstrapMethods`, once an entry was appended.
    pub fn bootstrap_attribute_name(&self) -> Option<u16> {
        self.bootstraps.name
    }

    /// A `CONSTANT_Dynamic` (a dynamically computed constant, class files 55+)
    /// resolved by bootstrap method `bootstrap` with name and field descriptor.
    pub fn dynamic_constant(
        &mut self,
        bootstrap: u16,
        name: &str,
        descriptor: &str,
    ) -> Result<u16> {
        let nt = self.name_and_type(name, descriptor)?;
        self.ref2(tag::DYNAMIC, bootstrap, nt)
    }

    /// A `CONSTANT_InvokeDynamic` (a call site linked by bootstrap method
    /// `bootstrap`) with name and method descriptor.
    pub fn invoke_dynamic(&mut self, bootstrap: u16, name: &str, descriptor: &str) -> Result<u16> {
        let nt = self.name_and_type(name, descriptor)?;
        self.ref2(tag::INVOKE_DYNAMIC, bootstrap, nt)
    }

    /// Writes `constant_pool_count` and every entry.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.count as u16).to_be_bytes());
        out.extend_from_slice(self.original_bytes);
        out.extend_from_slice(&self.appended);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::Cursor;

    /// A pool's bytes (`constant_pool_count` first) from raw entries.
    fn pool_bytes(entries: &[Vec<u8>], slots: usize) -> Vec<u8> {
        let mut out = ((slots + 1) as u16).to_be_bytes().to_vec();
        for e in entries {
            out.extend_from_slice(e);
        }
        out
    }

    fn utf8(s: &str) -> Vec<u8> {
        let mut e = vec![tag::UTF8];
        e.extend_from_slice(&(s.len() as u16).to_be_bytes());
        e.extend_from_slice(s.as_bytes());
        e
    }

    fn ref1(t: u8, a: u16) -> Vec<u8> {
        let mut e = vec![t];
        e.extend_from_slice(&a.to_be_bytes());
        e
    }

    /// Lookups answer the first of equal original entries, find entries
    /// whose hashes collide (same length, same first and last eight bytes)
    /// by their content, and append what the pool lacks once.
    #[test]
    fn lookups_answer_the_first_equal_entry() {
        let mut entries = vec![
            utf8("java/lang/Object"),                                // 1
            ref1(tag::CLASS, 1),                                     // 2
            utf8("java/lang/Object"),                                // 3: equal to 1
            ref1(tag::CLASS, 3),                                     // 4: another key than 2
            ref1(tag::CLASS, 1),                                     // 5: equal to 2
            [vec![tag::LONG], 7i64.to_be_bytes().to_vec()].concat(), // 6, 7
            utf8("x"),                                               // 8
            utf8(""),                                                // 9
        ];
        let mut names = Vec::new();
        for i in 0..300 {
            // Same length and ends: only the middle tells them apart.
            names.push(format!("java/lang/{i:04}/Thing;)V"));
        }
        for n in &names {
            entries.push(utf8(n));
        }
        entries.push(utf8("java/lang/0007/Thing;)V")); // equal to an earlier one
        let slots = entries.len() + 1; // the long takes two
        let bytes = pool_bytes(&entries, slots);
        let pool = ConstantPool::parse(&mut Cursor::new(&bytes, 0)).unwrap();
        let mut pb = PoolBuilder::new(&pool, &bytes);
        assert_eq!(pb.utf8("java/lang/Object").unwrap(), 1);
        assert_eq!(pb.class("java/lang/Object").unwrap(), 2);
        assert_eq!(pb.long(7).unwrap(), 6);
        assert_eq!(pb.utf8("x").unwrap(), 8);
        assert_eq!(pb.utf8("").unwrap(), 9);
        for (k, n) in names.iter().enumerate() {
            assert_eq!(pb.utf8(n).unwrap(), 10 + k as u16, "{n}");
        }
        assert!(pb.is_unchanged());
        // Every original entry's lookup answers the first equal entry.
        for (i, c) in pool.entries().iter().enumerate() {
            let first = pool.entries().iter().position(|d| d == c).unwrap() as u16;
            let found = match *c {
                Constant::Utf8(b) => pb.intern_utf8(b).unwrap(),
                Constant::Unusable => continue,
                _ => {
                    let (t, packed) = other_key(c).unwrap();
                    pb.intern(t, packed, |_| unreachable!("entry {i} is in the pool"))
                        .unwrap()
                }
            };
            assert_eq!(found, first, "entry {i}");
        }
        assert!(pb.is_unchanged());
        let count = pb.count() as u16;
        assert_eq!(pb.utf8("java/lang/0007/Thing;)W").unwrap(), count);
        assert_eq!(pb.utf8("java/lang/0007/Thing;)W").unwrap(), count);
        assert_eq!(pb.class("java/lang/0007/Thing;)W").unwrap(), count + 1);
        assert_eq!(pb.class("java/lang/0007/Thing;)W").unwrap(), count + 1);
        assert_eq!(pb.count() as u16, count + 2);
    }
}
