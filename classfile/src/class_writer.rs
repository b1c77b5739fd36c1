//! The class writer: the original file's parts are copied as byte ranges and only
//! what changed is written anew. With no change, the output equals the input.

use std::collections::BTreeMap;

use crate::class_reader::{ClassFile, Member};
use crate::pool_builder::PoolBuilder;

/// The changes to make to one class.
#[derive(Debug)]
pub struct ClassEdit<'a> {
    /// The constant pool (original plus appended entries).
    pub pool: PoolBuilder<'a>,
    /// Replacement `method_info` bytes, by method index.
    pub methods: BTreeMap<usize, Vec<u8>>,
    /// Complete `method_info` structures to append.
    pub added_methods: Vec<Vec<u8>>,
    /// Complete `field_info` structures to append.
    pub added_fields: Vec<Vec<u8>>,
}

impl<'a> ClassEdit<'a> {
    /// No changes yet.
    pub fn new(class: &'a ClassFile<'a>) -> Self {
        let mut pool = PoolBuilder::new(&class.pool, class.bytes);
        if let Some(a) = class.attribute("BootstrapMethods") {
            if a.data.len() >= 2 {
                pool.set_original_bootstrap_count(
                    u16::from_be_bytes([a.data[0], a.data[1]]) as usize
                );
            }
        }
        ClassEdit {
            pool,
            methods: BTreeMap::new(),
            added_methods: Vec::new(),
            added_fields: Vec::new(),
        }
    }
    /// True when writing would reproduce the input.
    pub fn is_unchanged(&self) -> bool {
        self.pool.is_unchanged()
            && self.methods.is_empty()
            && self.added_methods.is_empty()
            && self.added_fields.is_empty()
    }
}

/// Builds a `method_info` from `m`, with its `Code` attribute replaced by
/// `code_attribute` (a complete attribute, header included) and every other
/// attribute copied raw.
pub fn method_with_code(m: &Member<'_>, code_attribute: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(m.raw.len() + code_attribute.len());
    out.extend_from_slice(&m.raw[..6]);
    out.extend_from_slice(&(m.attributes.len() as u16).to_be_bytes());
    for a in &m.attributes {
        if a.name == b"Code" {
            out.extend_from_slice(code_attribute);
        } else {
            let s = a.offset - m.offset;
            out.extend_from_slice(&m.raw[s..s + a.total_len()]);
        }
    }
    out
}

/// Writes `class` with `edit` applied.
pub fn write_class(class: &ClassFile<'_>, edit: &ClassEdit<'_>) -> Vec<u8> {
    let b = class.bytes;
    // Sized once: the original, what the edit adds (replaced methods counted
    // whole, as if added), and room for new bootstrap methods.
    let added = edit.pool.appended_len()
        + edit.methods.values().map(Vec::len).sum::<usize>()
        + edit.added_methods.iter().map(Vec::len).sum::<usize>()
        + edit.added_fields.iter().map(Vec::len).sum::<usize>();
    let mut out = Vec::with_capacity(b.len() + added + 1024);
    out.extend_from_slice(&b[..8]);
    edit.pool.write(&mut out);
    // access_flags, this_class, super_class, interfaces.
    out.extend_from_slice(&b[class.header_end..class.fields_start]);
    write_members(
        &mut out,
        &class.fields,
        &BTreeMap::new(),
        &edit.added_fields,
    );
    write_members(&mut out, &class.methods, &edit.methods, &edit.added_methods);
    let bootstraps = edit.pool.appended_bootstraps();
    if bootstraps.is_empty() {
        out.extend_from_slice(&b[class.attributes_start..]);
    } else {
        write_attributes_with_bootstraps(&mut out, class, &edit.pool);
    }
    out
}

/// Writes the class attributes with the pool's appended bootstrap methods
/// added to `BootstrapMethods` (which is created when the class has none);
/// every other attribute is copied raw.
fn write_attributes_with_bootstraps(
    out: &mut Vec<u8>,
    class: &ClassFile<'_>,
    pool: &PoolBuilder<'_>,
) {
    let b = class.bytes;
    let appended = pool.appended_bootstraps();
    let mut entries = Vec::new();
    for (handle, args) in appended {
        entries.extend_from_slice(&handle.to_be_bytes());
        entries.extend_from_slice(&(args.len() as u16).to_be_bytes());
        for a in args {
            entries.extend_from_slice(&a.to_be_bytes());
        }
    }
    let existing = class
        .attributes
        .iter()
        .position(|a| a.name == b"BootstrapMethods" && a.data.len() >= 2);
    let count = class.attributes.len() + usize::from(existing.is_none());
    out.extend_from_slice(&(count as u16).to_be_bytes());
    let write_bootstraps = |out: &mut Vec<u8>, name_index: u16, original: &[u8]| {
        let n = original
            .get(..2)
            .map_or(0, |c| u16::from_be_bytes([c[0], c[1]]) as usize);
        let body = original.get(2..).unwrap_or(&[]);
        out.extend_from_slice(&name_index.to_be_bytes());
        out.extend_from_slice(&((2 + body.len() + entries.len()) as u32).to_be_bytes());
        out.extend_from_slice(&((n + appended.len()) as u16).to_be_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(&entries);
    };
    for (i, a) in class.attributes.iter().enumerate() {
        if Some(i) == existing {
            write_bootstraps(out, a.name_index, a.data);
        } else {
            out.extend_from_slice(&b[a.offset..a.offset + a.total_len()]);
        }
    }
    if existing.is_none() {
        let name = pool
            .bootstrap_attribute_name()
            .expect("interned with the first bootstrap method");
        write_bootstraps(out, name, &[]);
    }
}

fn write_members(
    out: &mut Vec<u8>,
    members: &[Member<'_>],
    replaced: &BTreeMap<usize, Vec<u8>>,
    added: &[Vec<u8>],
) {
    out.extend_from_slice(&((members.len() + added.len()) as u16).to_be_bytes());
    for (i, m) in members.iter().enumerate() {
        match replaced.get(&i) {
            Some(bytes) => out.extend_from_slice(bytes),
            None => out.extend_from_slice(m.raw),
        }
    }
    for a in added {
        out.extend_from_slice(a);
    }
}
