//! The zero-copy class-file reader. [`ClassFile::parse`] checks the structure
//! (every length, index and tag) and records where each part lives; member and
//! attribute contents stay borrowed byte ranges until somebody asks for them.

use std::borrow::Cow;

use crate::bytes::Cursor;
use crate::constant_pool::ConstantPool;
use crate::error::{Error, ErrorKind, Result};

/// An attribute: its name and its contents, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct Attribute<'a> {
    /// Constant-pool index of the attribute's name.
    pub name_index: u16,
    /// The attribute's name.
    pub name: &'a [u8],
    /// Absolute offset of the attribute (its `attribute_name_index`).
    pub offset: usize,
    /// The `info` bytes (after the 6-byte header).
    pub data: &'a [u8],
}

impl Attribute<'_> {
    /// Absolute offset of the first byte of `data`.
    pub fn data_offset(&self) -> usize {
        self.offset + 6
    }
    /// The full attribute as it appears in the file, header included.
    pub fn total_len(&self) -> usize {
        self.data.len() + 6
    }
}

/// A field or method.
#[derive(Debug, Clone)]
pub struct Member<'a> {
    /// Access flags.
    pub access: u16,
    /// Constant-pool index of the name.
    pub name_index: u16,
    /// Constant-pool index of the descriptor.
    pub descriptor_index: u16,
    /// The member's attributes.
    pub attributes: Vec<Attribute<'a>>,
    /// The member's bytes in the file (`access_flags` through its last attribute).
    pub raw: &'a [u8],
    /// Absolute offset of `raw`.
    pub offset: usize,
}

impl<'a> Member<'a> {
    /// The first attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<&Attribute<'a>> {
        self.attributes.iter().find(|a| a.name == name.as_bytes())
    }
}

/// A parsed class file, borrowing from its bytes.
#[derive(Debug, Clone)]
pub struct ClassFile<'a> {
    /// The whole file.
    pub bytes: &'a [u8],
    /// `minor_version`.
    pub minor_version: u16,
    /// `major_version`.
    pub major_version: u16,
    /// The constant pool.
    pub pool: ConstantPool<'a>,
    /// Access flags.
    pub access: u16,
    /// Constant-pool index of this class.
    pub this_class: u16,
    /// Constant-pool index of the super class (0 for `java/lang/Object` and `module-info`).
    pub super_class: u16,
    /// Constant-pool indices of the direct super interfaces.
    pub interfaces: Vec<u16>,
    /// Fields, in file order.
    pub fields: Vec<Member<'a>>,
    /// Methods, in file order.
    pub methods: Vec<Member<'a>>,
    /// Class attributes, in file order.
    pub attributes: Vec<Attribute<'a>>,
    /// Offset of `access_flags` (end of the constant pool).
    pub(crate) header_end: usize,
    /// Offset of `fields_count`.
    pub(crate) fields_start: usize,
    /// Offset of the class's `attributes_count`.
    pub(crate) attributes_start: usize,
}

/// `ACC_INTERFACE`.
pub const ACC_INTERFACE: u16 = 0x0200;
/// `ACC_STATIC`.
pub const ACC_STATIC: u16 = 0x0008;
/// `ACC_ABSTRACT`.
pub const ACC_ABSTRACT: u16 = 0x0400;
/// `ACC_NATIVE`.
pub const ACC_NATIVE: u16 = 0x0100;

impl<'a> ClassFile<'a> {
    /// Parses and structurally checks a class file.
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        let mut cur = Cursor::new(bytes, 0);
        let magic = cur.u32("magic")?;
        if magic != 0xCAFE_BABE {
            return Err(Error::new(
                ErrorKind::BadMagic,
                0,
                format!("bad magic {magic:#010x}, expected 0xcafebabe"),
            ));
        }
        let minor_version = cur.u16("minor_version")?;
        let major_version = cur.u16("major_version")?;
        let pool = ConstantPool::parse(&mut cur)?;
        let header_end = cur.abs();
        let access = cur.u16("access_flags")?;
        let this_class = cur.u16("this_class")?;
        let super_class = cur.u16("super_class")?;
        let here = cur.abs();
        pool.expect(this_class, &[crate::constant_pool::tag::CLASS])
            .map_err(|e| at(e, here - 4))?;
        if super_class != 0 {
            pool.expect(super_class, &[crate::constant_pool::tag::CLASS])
                .map_err(|e| at(e, here - 2))?;
        }
        let n = cur.u16("interfaces_count")? as usize;
        let mut interfaces = Vec::with_capacity(n);
        for _ in 0..n {
            let o = cur.abs();
            let i = cur.u16("interface index")?;
            pool.expect(i, &[crate::constant_pool::tag::CLASS])
                .map_err(|e| at(e, o))?;
            interfaces.push(i);
        }
        let fields_start = cur.abs();
        let fields = parse_members(&mut cur, &pool, bytes, "field")?;
        let methods = parse_members(&mut cur, &pool, bytes, "method")?;
        let attributes_start = cur.abs();
        let attributes = parse_attributes(&mut cur, &pool)?;
        if cur.remaining() != 0 {
            return Err(Error::malformed(
                cur.abs(),
                format!("{} trailing bytes after the class file", cur.remaining()),
            ));
        }
        Ok(ClassFile {
            bytes,
            minor_version,
            major_version,
            pool,
            access,
            this_class,
            super_class,
            interfaces,
            fields,
            methods,
            attributes,
            header_end,
            fields_start,
            attributes_start,
        })
    }

    /// Internal name of this class.
    pub fn name(&self) -> Result<Cow<'a, str>> {
        self.pool.class_name(self.this_class)
    }
    /// Internal name of the super class, if any.
    pub fn super_name(&self) -> Result<Option<Cow<'a, str>>> {
        if self.super_class == 0 {
            Ok(None)
        } else {
            self.pool.class_name(self.super_class).map(Some)
        }
    }
    /// Internal names of the direct super interfaces.
    pub fn interface_names(&self) -> Result<Vec<Cow<'a, str>>> {
        self.interfaces
            .iter()
            .map(|&i| self.pool.class_name(i))
            .collect()
    }
    /// Name of a member.
    pub fn member_name(&self, m: &Member<'a>) -> Result<Cow<'a, str>> {
        self.pool.utf8(m.name_index)
    }
    /// Descriptor of a member.
    pub fn member_descriptor(&self, m: &Member<'a>) -> Result<Cow<'a, str>> {
        self.pool.utf8(m.descriptor_index)
    }
    /// The first class attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<&Attribute<'a>> {
        self.attributes.iter().find(|a| a.name == name.as_bytes())
    }
    /// True when the class file version requires StackMapTable frames (≥ 50).
    pub fn needs_frames(&self) -> bool {
        self.major_version >= 50
    }
}

fn at(e: Error, offset: usize) -> Error {
    Error::new(e.kind(), offset, e.message().to_string())
}

fn parse_members<'a>(
    cur: &mut Cursor<'a>,
    pool: &ConstantPool<'a>,
    bytes: &'a [u8],
    what: &str,
) -> Result<Vec<Member<'a>>> {
    let n = cur.u16("member count")? as usize;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let offset = cur.abs();
        let access = cur.u16("member access_flags")?;
        let name_index = cur.u16("member name_index")?;
        let descriptor_index = cur.u16("member descriptor_index")?;
        pool.utf8_bytes(name_index).map_err(|e| at(e, offset + 2))?;
        pool.utf8_bytes(descriptor_index)
            .map_err(|e| at(e, offset + 4))?;
        let attributes = parse_attributes(cur, pool).map_err(|e| {
            let msg = format!("in a {what}: {}", e.message());
            Error::new(e.kind(), e.offset(), msg)
        })?;
        out.push(Member {
            access,
            name_index,
            descriptor_index,
            attributes,
            raw: &bytes[offset..cur.abs()],
            offset,
        });
    }
    Ok(out)
}

/// Parses an `attributes_count` followed by that many attributes.
pub(crate) fn parse_attributes<'a>(
    cur: &mut Cursor<'a>,
    pool: &ConstantPool<'a>,
) -> Result<Vec<Attribute<'a>>> {
    let n = cur.u16("attributes_count")? as usize;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let offset = cur.abs();
        let name_index = cur.u16("attribute_name_index")?;
        let name = pool.utf8_bytes(name_index).map_err(|e| at(e, offset))?;
        let len = cur.u32("attribute_length")? as usize;
        if cur.remaining() < len {
            return Err(Error::new(
                ErrorKind::AttributeOverrun,
                offset,
                format!(
                    "attribute {} claims {len} bytes but only {} remain",
                    String::from_utf8_lossy(name),
                    cur.remaining()
                ),
            ));
        }
        let data = cur.bytes(len, "attribute")?;
        out.push(Attribute {
            name_index,
            name,
            offset,
            data,
        });
    }
    Ok(out)
}

/// A parsed `Code` attribute.
#[derive(Debug, Clone)]
pub struct CodeAttribute<'a> {
    /// `max_stack`.
    pub max_stack: u16,
    /// `max_locals`.
    pub max_locals: u16,
    /// The bytecode.
    pub code: &'a [u8],
    /// Absolute offset of `code[0]` in the class file.
    pub code_offset: usize,
    /// The exception table.
    pub exception_table: Vec<ExceptionEntry>,
    /// The Code attribute's own attributes.
    pub attributes: Vec<Attribute<'a>>,
}

/// One exception-table row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExceptionEntry {
    /// Start of the protected range (inclusive).
    pub start_pc: u16,
    /// End of the protected range (exclusive).
    pub end_pc: u16,
    /// Handler start.
    pub handler_pc: u16,
    /// Caught class (constant-pool index), 0 for any.
    pub catch_type: u16,
}

impl<'a> CodeAttribute<'a> {
    /// Parses the `Code` attribute `attr`.
    pub fn parse(attr: &Attribute<'a>, pool: &ConstantPool<'a>) -> Result<Self> {
        let mut cur = Cursor::new(attr.data, attr.data_offset());
        let max_stack = cur.u16("max_stack")?;
        let max_locals = cur.u16("max_locals")?;
        let len = cur.u32("code_length")? as usize;
        let code_offset = cur.abs();
        if cur.remaining() < len {
            return Err(Error::new(
                ErrorKind::AttributeOverrun,
                code_offset - 4,
                format!("code_length {len} runs past the Code attribute"),
            ));
        }
        let code = cur.bytes(len, "code")?;
        let n = cur.u16("exception_table_length")? as usize;
        let mut exception_table = Vec::with_capacity(n);
        for _ in 0..n {
            let o = cur.abs();
            let e = ExceptionEntry {
                start_pc: cur.u16("start_pc")?,
                end_pc: cur.u16("end_pc")?,
                handler_pc: cur.u16("handler_pc")?,
                catch_type: cur.u16("catch_type")?,
            };
            if e.catch_type != 0 {
                pool.expect(e.catch_type, &[crate::constant_pool::tag::CLASS])
                    .map_err(|x| at(x, o + 6))?;
            }
            exception_table.push(e);
        }
        let attributes = parse_attributes(&mut cur, pool)?;
        if cur.remaining() != 0 {
            return Err(Error::new(
                ErrorKind::AttributeOverrun,
                cur.abs(),
                "Code attribute has trailing bytes",
            ));
        }
        Ok(CodeAttribute {
            max_stack,
            max_locals,
            code,
            code_offset,
            exception_table,
            attributes,
        })
    }
    /// The first attribute of the Code attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<&Attribute<'a>> {
        self.attributes.iter().find(|a| a.name == name.as_bytes())
    }
}
