//! The constant pool as read: every entry parsed once into a borrowed
//! [`Constant`], with all cross-references checked (index in range, right tag), so
//! later lookups can only fail on the index the caller passes in.

use std::borrow::Cow;

use crate::bytes::Cursor;
use crate::error::{Error, ErrorKind, Result};

/// Constant-pool tags (JVMS §4.4).
#[allow(missing_docs)]
pub mod tag {
    pub const UTF8: u8 = 1;
    pub const INTEGER: u8 = 3;
    pub const FLOAT: u8 = 4;
    pub const LONG: u8 = 5;
    pub const DOUBLE: u8 = 6;
    pub const CLASS: u8 = 7;
    pub const STRING: u8 = 8;
    pub const FIELDREF: u8 = 9;
    pub const METHODREF: u8 = 10;
    pub const INTERFACE_METHODREF: u8 = 11;
    pub const NAME_AND_TYPE: u8 = 12;
    pub const METHOD_HANDLE: u8 = 15;
    pub const METHOD_TYPE: u8 = 16;
    pub const DYNAMIC: u8 = 17;
    pub const INVOKE_DYNAMIC: u8 = 18;
    pub const MODULE: u8 = 19;
    pub const PACKAGE: u8 = 20;
}

/// One constant-pool entry, borrowing its bytes from the class file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Constant<'a> {
    /// Index 0, and the slot after a `Long` or `Double`.
    Unusable,
    /// Modified UTF-8 bytes.
    Utf8(&'a [u8]),
    /// `CONSTANT_Integer`.
    Integer(i32),
    /// `CONSTANT_Float`, as raw bits.
    Float(u32),
    /// `CONSTANT_Long`.
    Long(i64),
    /// `CONSTANT_Double`, as raw bits.
    Double(u64),
    /// `CONSTANT_Class`: name index.
    Class(u16),
    /// `CONSTANT_String`: Utf8 index.
    String(u16),
    /// `CONSTANT_Fieldref`: class index, name-and-type index.
    Fieldref(u16, u16),
    /// `CONSTANT_Methodref`: class index, name-and-type index.
    Methodref(u16, u16),
    /// `CONSTANT_InterfaceMethodref`: class index, name-and-type index.
    InterfaceMethodref(u16, u16),
    /// `CONSTANT_NameAndType`: name index, descriptor index.
    NameAndType(u16, u16),
    /// `CONSTANT_MethodHandle`: reference kind, reference index.
    MethodHandle(u8, u16),
    /// `CONSTANT_MethodType`: descriptor index.
    MethodType(u16),
    /// `CONSTANT_Dynamic`: bootstrap method attr index, name-and-type index.
    Dynamic(u16, u16),
    /// `CONSTANT_InvokeDynamic`: bootstrap method attr index, name-and-type index.
    InvokeDynamic(u16, u16),
    /// `CONSTANT_Module`: name index.
    Module(u16),
    /// `CONSTANT_Package`: name index.
    Package(u16),
}

impl Constant<'_> {
    /// The tag byte of this entry (0 for `Unusable`).
    pub fn tag(&self) -> u8 {
        use tag::*;
        match self {
            Constant::Unusable => 0,
            Constant::Utf8(_) => UTF8,
            Constant::Integer(_) => INTEGER,
            Constant::Float(_) => FLOAT,
            Constant::Long(_) => LONG,
            Constant::Double(_) => DOUBLE,
            Constant::Class(_) => CLASS,
            Constant::String(_) => STRING,
            Constant::Fieldref(..) => FIELDREF,
            Constant::Methodref(..) => METHODREF,
            Constant::InterfaceMethodref(..) => INTERFACE_METHODREF,
            Constant::NameAndType(..) => NAME_AND_TYPE,
            Constant::MethodHandle(..) => METHOD_HANDLE,
            Constant::MethodType(_) => METHOD_TYPE,
            Constant::Dynamic(..) => DYNAMIC,
            Constant::InvokeDynamic(..) => INVOKE_DYNAMIC,
            Constant::Module(_) => MODULE,
            Constant::Package(_) => PACKAGE,
        }
    }
}

/// A field or method reference resolved to its strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberRef<'a> {
    /// Internal name of the owner class (or array descriptor).
    pub owner: Cow<'a, str>,
    /// Member name.
    pub name: Cow<'a, str>,
    /// Member descriptor.
    pub descriptor: Cow<'a, str>,
}

/// The parsed constant pool.
#[derive(Debug, Clone)]
pub struct ConstantPool<'a> {
    entries: Vec<Constant<'a>>,
    /// Byte range of the entries (after the count) in the class file.
    range: (usize, usize),
}

impl<'a> ConstantPool<'a> {
    /// Parses the pool starting at the `constant_pool_count` field.
    pub(crate) fn parse(cur: &mut Cursor<'a>) -> Result<Self> {
        let count = cur.u16("constant_pool_count")? as usize;
        let start = cur.abs();
        let mut entries = Vec::with_capacity(count.max(1));
        entries.push(Constant::Unusable);
        while entries.len() < count {
            let at = cur.abs();
            let t = cur.u8("constant tag")?;
            let c = match t {
                tag::UTF8 => {
                    let n = cur.u16("Utf8 length")? as usize;
                    Constant::Utf8(cur.bytes(n, "Utf8 bytes")?)
                }
                tag::INTEGER => Constant::Integer(cur.i32("Integer")?),
                tag::FLOAT => Constant::Float(cur.u32("Float")?),
                tag::LONG | tag::DOUBLE => {
                    let hi = cur.u32("Long/Double")? as u64;
                    let lo = cur.u32("Long/Double")? as u64;
                    let v = (hi << 32) | lo;
                    if t == tag::LONG {
                        Constant::Long(v as i64)
                    } else {
                        Constant::Double(v)
                    }
                }
                tag::CLASS => Constant::Class(cur.u16("Class")?),
                tag::STRING => Constant::String(cur.u16("String")?),
                tag::FIELDREF => Constant::Fieldref(cur.u16("Fieldref")?, cur.u16("Fieldref")?),
                tag::METHODREF => Constant::Methodref(cur.u16("Methodref")?, cur.u16("Methodref")?),
                tag::INTERFACE_METHODREF => Constant::InterfaceMethodref(
                    cur.u16("InterfaceMethodref")?,
                    cur.u16("InterfaceMethodref")?,
                ),
                tag::NAME_AND_TYPE => {
                    Constant::NameAndType(cur.u16("NameAndType")?, cur.u16("NameAndType")?)
                }
                tag::METHOD_HANDLE => {
                    Constant::MethodHandle(cur.u8("MethodHandle")?, cur.u16("MethodHandle")?)
                }
                tag::METHOD_TYPE => Constant::MethodType(cur.u16("MethodType")?),
                tag::DYNAMIC => Constant::Dynamic(cur.u16("Dynamic")?, cur.u16("Dynamic")?),
                tag::INVOKE_DYNAMIC => {
                    Constant::InvokeDynamic(cur.u16("InvokeDynamic")?, cur.u16("InvokeDynamic")?)
                }
                tag::MODULE => Constant::Module(cur.u16("Module")?),
                tag::PACKAGE => Constant::Package(cur.u16("Package")?),
                other => {
                    return Err(Error::new(
                        ErrorKind::WrongTag,
                        at,
                        format!("constant #{} has unknown tag {other}", entries.len()),
                    ))
                }
            };
            let wide = matches!(c, Constant::Long(_) | Constant::Double(_));
            entries.push(c);
            if wide {
                if entries.len() >= count {
                    return Err(Error::new(
                        ErrorKind::BadCpIndex,
                        at,
                        format!(
                            "Long/Double constant #{} takes the pool's last slot",
                            entries.len() - 1
                        ),
                    ));
                }
                entries.push(Constant::Unusable);
            }
        }
        let pool = ConstantPool {
            entries,
            range: (start, cur.abs()),
        };
        pool.check_references()?;
        Ok(pool)
    }

    /// Checks that every entry's references point at entries of the right tag.
    fn check_references(&self) -> Result<()> {
        use tag::*;
        for (i, c) in self.entries.iter().enumerate() {
            let want = |idx: u16, t: &[u8]| {
                // The common case without building a result; `expect` says why not.
                if let Some(c) = self.entries.get(idx as usize) {
                    if !matches!(c, Constant::Unusable) && t.contains(&c.tag()) {
                        return Ok(());
                    }
                }
                self.expect(idx, t).map(|_| ()).map_err(|e| {
                    Error::new(
                        e.kind(),
                        self.range.0,
                        format!("constant #{i}: {}", e.message()),
                    )
                })
            };
            match *c {
                Constant::Class(n)
                | Constant::String(n)
                | Constant::MethodType(n)
                | Constant::Module(n)
                | Constant::Package(n) => {
                    want(n, &[UTF8])?;
                }
                Constant::Fieldref(c, nt)
                | Constant::Methodref(c, nt)
                | Constant::InterfaceMethodref(c, nt) => {
                    want(c, &[CLASS])?;
                    want(nt, &[NAME_AND_TYPE])?;
                }
                Constant::NameAndType(n, d) => {
                    want(n, &[UTF8])?;
                    want(d, &[UTF8])?;
                }
                Constant::MethodHandle(kind, r) => {
                    let allowed: &[u8] = match kind {
                        1..=4 => &[FIELDREF],
                        5 | 8 => &[METHODREF],
                        6 | 7 => &[METHODREF, INTERFACE_METHODREF],
                        9 => &[INTERFACE_METHODREF],
                        _ => {
                            return Err(Error::malformed(
                                self.range.0,
                                format!(
                                    "constant #{i}: MethodHandle reference kind {kind} is not 1..9"
                                ),
                            ))
                        }
                    };
                    want(r, allowed)?;
                }
                Constant::Dynamic(_, nt) | Constant::InvokeDynamic(_, nt) => {
                    want(nt, &[NAME_AND_TYPE])?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// A pool with no entries (slot 0 only).
    pub fn empty() -> ConstantPool<'static> {
        ConstantPool {
            entries: vec![Constant::Unusable],
            range: (0, 0),
        }
    }

    /// Number of slots, i.e. the `constant_pool_count` field.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    /// True for a pool with no entries besides slot 0.
    pub fn is_empty(&self) -> bool {
        self.entries.len() <= 1
    }
    /// Byte range of the entries in the class file (after the count).
    pub fn byte_range(&self) -> (usize, usize) {
        self.range
    }
    /// All slots, index 0 included.
    pub fn entries(&self) -> &[Constant<'a>] {
        &self.entries
    }

    /// The entry at `idx`, which must be usable.
    #[inline]
    pub fn get(&self, idx: u16) -> Result<Constant<'a>> {
        match self.entries.get(idx as usize) {
            Some(Constant::Unusable) | None => Err(self.unusable(idx)),
            Some(c) => Ok(*c),
        }
    }

    /// The error of [`get`](Self::get) (out of line: the common case is
    /// small enough to inline).
    #[cold]
    fn unusable(&self, idx: u16) -> Error {
        Error::new(
            ErrorKind::BadCpIndex,
            None,
            format!(
                "constant-pool index {idx} is out of range or unusable (pool has {} slots)",
                self.entries.len()
            ),
        )
    }

    /// The entry at `idx`, checking that its tag is one of `tags`.
    #[inline]
    pub fn expect(&self, idx: u16, tags: &[u8]) -> Result<Constant<'a>> {
        let c = self.get(idx)?;
        if tags.contains(&c.tag()) {
            Ok(c)
        } else {
            Err(wrong_tag(idx, c.tag(), tags))
        }
    }

    /// The raw modified-UTF-8 bytes of the Utf8 entry at `idx`.
    pub fn utf8_bytes(&self, idx: u16) -> Result<&'a [u8]> {
        match self.expect(idx, &[tag::UTF8])? {
            Constant::Utf8(b) => Ok(b),
            _ => unreachable!("tag checked"),
        }
    }

    /// The Utf8 entry at `idx` as a string (borrowed unless it needs decoding).
    pub fn utf8(&self, idx: u16) -> Result<Cow<'a, str>> {
        decode_modified_utf8(self.utf8_bytes(idx)?)
    }

    /// The internal name of the Class entry at `idx`.
    pub fn class_name(&self, idx: u16) -> Result<Cow<'a, str>> {
        match self.expect(idx, &[tag::CLASS])? {
            Constant::Class(n) => self.utf8(n),
            _ => unreachable!("tag checked"),
        }
    }

    /// Name and descriptor of the NameAndType entry at `idx`.
    pub fn name_and_type(&self, idx: u16) -> Result<(Cow<'a, str>, Cow<'a, str>)> {
        match self.expect(idx, &[tag::NAME_AND_TYPE])? {
            Constant::NameAndType(n, d) => Ok((self.utf8(n)?, self.utf8(d)?)),
            _ => unreachable!("tag checked"),
        }
    }

    /// Owner, name and descriptor of a Fieldref/Methodref/InterfaceMethodref.
    pub fn member_ref(&self, idx: u16) -> Result<MemberRef<'a>> {
        match self.expect(
            idx,
            &[tag::FIELDREF, tag::METHODREF, tag::INTERFACE_METHODREF],
        )? {
            Constant::Fieldref(c, nt)
            | Constant::Methodref(c, nt)
            | Constant::InterfaceMethodref(c, nt) => {
                let (name, descriptor) = self.name_and_type(nt)?;
                Ok(MemberRef {
                    owner: self.class_name(c)?,
                    name,
                    descriptor,
                })
            }
            _ => unreachable!("tag checked"),
        }
    }

    /// Name and descriptor of a Dynamic/InvokeDynamic entry.
    pub fn dynamic(&self, idx: u16) -> Result<(Cow<'a, str>, Cow<'a, str>)> {
        match self.expect(idx, &[tag::DYNAMIC, tag::INVOKE_DYNAMIC])? {
            Constant::Dynamic(_, nt) | Constant::InvokeDynamic(_, nt) => self.name_and_type(nt),
            _ => unreachable!("tag checked"),
        }
    }
}

/// The error of [`ConstantPool::expect`] for an entry of tag `found`.
#[cold]
fn wrong_tag(idx: u16, found: u8, tags: &[u8]) -> Error {
    Error::new(
        ErrorKind::WrongTag,
        None,
        format!(
            "constant #{idx} has tag {found} where tag {} was expected",
            tags.iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(" or ")
        ),
    )
}

/// Decodes modified UTF-8 (JVMS §4.4.7). Plain UTF-8 input is borrowed: where
/// standard UTF-8 validation succeeds, both encodings mean the same string.
pub fn decode_modified_utf8(b: &[u8]) -> Result<Cow<'_, str>> {
    // Nearly every name and descriptor is ASCII, which is its own UTF-8 as
    // `from_utf8` below would find: `is_ascii` checks a word at a time and
    // costs much less than validating UTF-8.
    if b.is_ascii() {
        // SAFETY: ASCII is valid UTF-8.
        return Ok(Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(b) }));
    }
    if let Ok(s) = std::str::from_utf8(b) {
        return Ok(Cow::Borrowed(s));
    }
    let mut units: Vec<u16> = Vec::with_capacity(b.len());
    let mut i = 0;
    let bad = || Error::malformed(None, "invalid modified UTF-8 in a Utf8 constant");
    while i < b.len() {
        let x = b[i] as u32;
        if x & 0x80 == 0 {
            units.push(x as u16);
            i += 1;
        } else if x & 0xE0 == 0xC0 {
            let y = *b.get(i + 1).ok_or_else(bad)? as u32;
            units.push((((x & 0x1F) << 6) | (y & 0x3F)) as u16);
            i += 2;
        } else if x & 0xF0 == 0xE0 {
            let y = *b.get(i + 1).ok_or_else(bad)? as u32;
            let z = *b.get(i + 2).ok_or_else(bad)? as u32;
            units.push((((x & 0x0F) << 12) | ((y & 0x3F) << 6) | (z & 0x3F)) as u16);
            i += 3;
        } else {
            return Err(bad());
        }
    }
    Ok(Cow::Owned(String::from_utf16_lossy(&units)))
}

/// Encodes a string as modified UTF-8 (borrowed when `s` is plain ASCII
/// without NUL, whose encodings agree).
pub fn encode_modified_utf8(s: &str) -> Cow<'_, [u8]> {
    if s.bytes().all(|b| (1..0x80).contains(&b)) {
        return Cow::Borrowed(s.as_bytes());
    }
    let mut out = Vec::with_capacity(s.len());
    for u in s.encode_utf16() {
        match u {
            0x0001..=0x007F => out.push(u as u8),
            0x0000 | 0x0080..=0x07FF => {
                out.push(0xC0 | (u >> 6) as u8);
                out.push(0x80 | (u & 0x3F) as u8);
            }
            _ => {
                out.push(0xE0 | (u >> 12) as u8);
                out.push(0x80 | ((u >> 6) & 0x3F) as u8);
                out.push(0x80 | (u & 0x3F) as u8);
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modified_utf8_round_trip() {
        for s in ["plain", "nul\0inside", "é ü", "𝄞 clef", ""] {
            let enc = encode_modified_utf8(s);
            assert_eq!(decode_modified_utf8(&enc).unwrap(), s);
        }
        assert!(!encode_modified_utf8("\0").contains(&0));
    }
}
