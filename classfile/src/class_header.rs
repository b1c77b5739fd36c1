//! A class file's header — its name, super class and access flags — read
//! without parsing the rest. An index of many classes needs only this: the
//! constant pool is walked to find where its entries start (nothing decoded
//! but the two names asked for), and members and attributes are not read.
//!
//! [`ClassHeader::read`] accepts what [`ClassFile::parse`](crate::ClassFile::parse)
//! accepts and gives the same answers; it checks less (the pool's references,
//! the members and attributes), so a caller that must reject a malformed
//! class still parses it in full (the weaver does, for every class it weaves).

use std::borrow::Cow;

use crate::bytes::{be_u16, Cursor};
use crate::constant_pool::{decode_modified_utf8, tag};
use crate::error::{Error, ErrorKind, Result};

/// What [`ClassHeader::read`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassHeader<'a> {
    /// `major_version`.
    pub major_version: u16,
    /// Access flags.
    pub access: u16,
    /// Internal name of the class.
    pub name: Cow<'a, str>,
    /// Internal name of the super class (`None` for `java/lang/Object` and `module-info`).
    pub super_name: Option<Cow<'a, str>>,
}

/// No entry starts at this pool index (index 0, or the second slot of a
/// Long or Double).
const UNUSABLE: u32 = u32::MAX;

/// The constant pool of a class file walked for where its entries start, and
/// the cursor just past it (at `access_flags`).
struct PoolStarts<'a> {
    bytes: &'a [u8],
    /// Where each entry starts (its tag byte), by pool index.
    starts: Vec<u32>,
}

impl<'a> PoolStarts<'a> {
    /// Reads the magic, the versions and walks the pool; returns the major
    /// version, the pool and the cursor after it.
    fn read(bytes: &'a [u8]) -> Result<(u16, PoolStarts<'a>, Cursor<'a>)> {
        let mut cur = Cursor::new(bytes, 0);
        let magic = cur.u32("magic")?;
        if magic != 0xCAFE_BABE {
            return Err(Error::new(
                ErrorKind::BadMagic,
                0,
                format!("bad magic {magic:#010x}, expected 0xcafebabe"),
            ));
        }
        cur.u16("minor_version")?;
        let major_version = cur.u16("major_version")?;
        let count = cur.u16("constant_pool_count")? as usize;
        let mut starts: Vec<u32> = Vec::with_capacity(count.max(1));
        starts.push(UNUSABLE);
        while starts.len() < count {
            let at = cur.abs();
            let t = cur.u8("constant tag")?;
            let (len, wide) = match t {
                tag::UTF8 => (cur.u16("Utf8 length")? as usize, false),
                tag::INTEGER | tag::FLOAT => (4, false),
                tag::LONG | tag::DOUBLE => (8, true),
                tag::CLASS | tag::STRING | tag::METHOD_TYPE | tag::MODULE | tag::PACKAGE => {
                    (2, false)
                }
                tag::METHOD_HANDLE => (3, false),
                tag::FIELDREF
                | tag::METHODREF
                | tag::INTERFACE_METHODREF
                | tag::NAME_AND_TYPE
                | tag::DYNAMIC
                | tag::INVOKE_DYNAMIC => (4, false),
                other => {
                    return Err(Error::new(
                        ErrorKind::WrongTag,
                        at,
                        format!("constant #{} has unknown tag {other}", starts.len()),
                    ))
                }
            };
            cur.skip(len, "constant")?;
            starts.push(at as u32);
            if wide {
                if starts.len() >= count {
                    return Err(Error::new(
                        ErrorKind::BadCpIndex,
                        at,
                        format!(
                            "Long/Double constant #{} takes the pool's last slot",
                            starts.len() - 1
                        ),
                    ));
                }
                starts.push(UNUSABLE);
            }
        }
        Ok((major_version, PoolStarts { bytes, starts }, cur))
    }

    /// Where entry `idx` starts, if it is a `want` entry.
    fn entry(&self, idx: u16, want: u8) -> Result<usize> {
        match self.starts.get(idx as usize) {
            Some(&s) if s != UNUSABLE && self.bytes[s as usize] == want => Ok(s as usize),
            _ => Err(Error::new(
                ErrorKind::BadCpIndex,
                None,
                format!("constant #{idx} is not a {} entry", tag_name(want)),
            )),
        }
    }

    /// The bytes of the Utf8 entry `idx`.
    fn utf8_bytes(&self, idx: u16) -> Result<&'a [u8]> {
        let u = self.entry(idx, tag::UTF8)?;
        let n = be_u16(self.bytes, u + 1) as usize;
        Ok(&self.bytes[u + 3..u + 3 + n])
    }

    /// The bytes of the name of the Class entry `idx`.
    fn class_name_bytes(&self, idx: u16) -> Result<&'a [u8]> {
        let c = self.entry(idx, tag::CLASS)?;
        self.utf8_bytes(be_u16(self.bytes, c + 1))
    }
}

impl<'a> ClassHeader<'a> {
    /// Reads the header of the class file `bytes`.
    pub fn read(bytes: &'a [u8]) -> Result<Self> {
        let (major_version, pool, mut cur) = PoolStarts::read(bytes)?;
        let access = cur.u16("access_flags")?;
        let this_class = cur.u16("this_class")?;
        let super_class = cur.u16("super_class")?;
        let name = decode_modified_utf8(pool.class_name_bytes(this_class)?)?;
        let super_name = match super_class {
            0 => None,
            s => Some(decode_modified_utf8(pool.class_name_bytes(s)?)?),
        };
        Ok(ClassHeader {
            major_version,
            access,
            name,
            super_name,
        })
    }
}

/// Whether the class file `bytes` lists itself in its `InnerClasses`
/// attribute (JVMS 4.7.6: every member, local and anonymous class does),
/// found without parsing the members: the pool is walked for its entries'
/// offsets, fields and methods are skipped by their attributes' lengths, and
/// only the class's own name and the `InnerClasses` entries' names are
/// compared (as bytes: equal names have equal encodings).
pub fn lists_itself_as_inner(bytes: &[u8]) -> Result<bool> {
    let (_, pool, mut cur) = PoolStarts::read(bytes)?;
    cur.u16("access_flags")?;
    let this_class = cur.u16("this_class")?;
    cur.u16("super_class")?;
    let interfaces = cur.u16("interfaces_count")? as usize;
    cur.skip(2 * interfaces, "interfaces")?;
    for what in ["fields_count", "methods_count"] {
        let members = cur.u16(what)?;
        for _ in 0..members {
            cur.skip(6, "member header")?;
            skip_attributes(&mut cur)?;
        }
    }
    let this = pool.class_name_bytes(this_class)?;
    let attributes = cur.u16("attributes_count")?;
    for _ in 0..attributes {
        let name = cur.u16("attribute_name_index")?;
        let len = cur.u32("attribute_length")? as usize;
        if pool.utf8_bytes(name)? != b"InnerClasses" {
            cur.skip(len, "attribute")?;
            continue;
        }
        let n = cur.u16("number_of_classes")?;
        for _ in 0..n {
            let inner = cur.u16("inner_class_info_index")?;
            cur.skip(6, "inner class entry")?;
            if pool.class_name_bytes(inner)? == this {
                return Ok(true);
            }
        }
        return Ok(false);
    }
    Ok(false)
}

/// Skips an `attributes_count` and the attributes after it.
fn skip_attributes(cur: &mut Cursor<'_>) -> Result<()> {
    let n = cur.u16("attributes_count")?;
    for _ in 0..n {
        cur.skip(2, "attribute_name_index")?;
        let len = cur.u32("attribute_length")? as usize;
        cur.skip(len, "attribute")?;
    }
    Ok(())
}

fn tag_name(t: u8) -> &'static str {
    match t {
        tag::CLASS => "Class",
        _ => "Utf8",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClassFile;

    /// The fixtures' headers, read alone, equal what a full parse gives.
    #[test]
    fn headers_equal_full_parses() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        let mut n = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_none_or(|x| x != "class") {
                continue;
            }
            let b = std::fs::read(&p).unwrap();
            let full = ClassFile::parse(&b).unwrap();
            let h = ClassHeader::read(&b).unwrap();
            assert_eq!(h.name, full.name().unwrap(), "{}", p.display());
            assert_eq!(h.super_name, full.super_name().unwrap(), "{}", p.display());
            assert_eq!(h.access, full.access);
            assert_eq!(h.major_version, full.major_version);
            n += 1;
        }
        assert!(n >= 4, "only {n} fixtures in {}", dir.display());
    }

    /// Whether `c` lists itself in its `InnerClasses`, read from the full parse.
    fn listed_in_full_parse(c: &ClassFile<'_>) -> bool {
        let Some(a) = c.attribute("InnerClasses") else {
            return false;
        };
        let this = c.name().unwrap();
        (0..be_u16(a.data, 0) as usize)
            .any(|k| c.pool.class_name(be_u16(a.data, 2 + 8 * k)).unwrap() == this)
    }

    /// The fixtures' nesting, read from the pool and attributes alone,
    /// equals what the full parse says; a truncated class is an error.
    #[test]
    fn nesting_equals_full_parses() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        let mut n = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_none_or(|x| x != "class") {
                continue;
            }
            let b = std::fs::read(&p).unwrap();
            let full = ClassFile::parse(&b).unwrap();
            let nested = lists_itself_as_inner(&b).unwrap();
            assert_eq!(nested, listed_in_full_parse(&full), "{}", p.display());
            assert!(
                lists_itself_as_inner(&b[..b.len() - 1]).is_err(),
                "{}",
                p.display()
            );
            n += 1;
        }
        assert!(n >= 4, "only {n} fixtures in {}", dir.display());
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        // magic, versions, a pool of 3: Class #2, Utf8 "A"; then this=1, super=2 (wrong tag).
        let mut b = vec![0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 61, 0, 3];
        b.extend_from_slice(&[tag::CLASS, 0, 2, tag::UTF8, 0, 1, b'A']);
        b.extend_from_slice(&[0, 0x21, 0, 1, 0, 2]);
        let h = ClassHeader::read(&b[..b.len() - 2]);
        assert!(h.is_err(), "truncated before super_class: {h:?}");
        let e = ClassHeader::read(&b).unwrap_err();
        assert!(e.message().contains("#2 is not a Class"), "{e}");
        b.truncate(b.len() - 2);
        b.extend_from_slice(&[0, 0]);
        let h = ClassHeader::read(&b).unwrap();
        assert_eq!((h.name.as_ref(), h.super_name), ("A", None));
        // Every prefix fails cleanly.
        for k in 0..b.len() - 6 {
            assert!(ClassHeader::read(&b[..k]).is_err(), "prefix of {k} bytes");
        }
        // An index past the pool.
        let mut c = b.clone();
        let at = c.len() - 4;
        c[at..at + 2].copy_from_slice(&[0, 9]);
        assert!(ClassHeader::read(&c).is_err());
    }
}
