//! Type annotations on code (`RuntimeVisibleTypeAnnotations` and
//! `RuntimeInvisibleTypeAnnotations` attributes of `Code`): their targets name
//! bytecode offsets, so they are decoded to labels and written back remapped. The
//! type path and the annotation itself are kept as raw bytes.

use super::Label;
use crate::bytes::Cursor;
use crate::error::{Error, Result};

/// Where a type annotation in code points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeAnnotationTarget {
    /// `localvar_target` (0x40, 0x41): live ranges and slots.
    LocalVar(Vec<(Label, Label, u16)>),
    /// `catch_target` (0x42): an exception-table index.
    Catch(u16),
    /// `offset_target` (0x43..=0x46): one instruction.
    Offset(Label),
    /// `type_argument_target` (0x47..=0x4B): one instruction and an argument index.
    TypeArgument(Label, u8),
}

/// One type annotation of a `Code` attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeAnnotation {
    /// The `target_type` byte.
    pub target_type: u8,
    /// The target, with labels for offsets.
    pub target: TypeAnnotationTarget,
    /// `type_path` and the annotation, raw.
    pub rest: Vec<u8>,
}

/// A type annotation as read, offsets not yet turned into labels.
pub(super) struct RawTypeAnnotation {
    target_type: u8,
    target: RawTarget,
    rest: Vec<u8>,
}

enum RawTarget {
    LocalVar(Vec<(usize, usize, u16)>),
    Catch(u16),
    Offset(usize),
    TypeArgument(usize, u8),
}

impl RawTypeAnnotation {
    /// Every bytecode offset the target names.
    pub(super) fn offsets(&self) -> Vec<usize> {
        match &self.target {
            RawTarget::LocalVar(v) => v.iter().flat_map(|&(s, e, _)| [s, e]).collect(),
            RawTarget::Catch(_) => Vec::new(),
            RawTarget::Offset(o) | RawTarget::TypeArgument(o, _) => vec![*o],
        }
    }

    /// Turns offsets into labels; `None` when an offset has no label (the
    /// annotation is then dropped, like other debug information that names an
    /// offset inside an instruction).
    pub(super) fn into_labelled(
        self,
        lab: &dyn Fn(usize) -> Option<Label>,
    ) -> Option<TypeAnnotation> {
        let target = match self.target {
            RawTarget::LocalVar(v) => {
                let mut out = Vec::with_capacity(v.len());
                for (s, e, i) in v {
                    out.push((lab(s)?, lab(e)?, i));
                }
                TypeAnnotationTarget::LocalVar(out)
            }
            RawTarget::Catch(i) => TypeAnnotationTarget::Catch(i),
            RawTarget::Offset(o) => TypeAnnotationTarget::Offset(lab(o)?),
            RawTarget::TypeArgument(o, a) => TypeAnnotationTarget::TypeArgument(lab(o)?, a),
        };
        Some(TypeAnnotation {
            target_type: self.target_type,
            target,
            rest: self.rest,
        })
    }
}

/// Parses the contents of a type-annotations attribute of `Code`.
pub(super) fn parse_raw(data: &[u8], base: usize) -> Result<Vec<RawTypeAnnotation>> {
    let mut c = Cursor::new(data, base);
    let n = c.u16("num_annotations")?;
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let at = c.abs();
        let target_type = c.u8("target_type")?;
        let target = match target_type {
            0x40 | 0x41 => {
                let k = c.u16("table_length")?;
                let mut v = Vec::with_capacity(k as usize);
                for _ in 0..k {
                    let s = c.u16("start_pc")? as usize;
                    let l = c.u16("length")? as usize;
                    v.push((s, s + l, c.u16("index")?));
                }
                RawTarget::LocalVar(v)
            }
            0x42 => RawTarget::Catch(c.u16("exception_table_index")?),
            0x43..=0x46 => RawTarget::Offset(c.u16("offset")? as usize),
            0x47..=0x4B => {
                RawTarget::TypeArgument(c.u16("offset")? as usize, c.u8("type_argument_index")?)
            }
            t => {
                return Err(Error::malformed(
                    at,
                    format!("type annotation target {t:#04x} cannot appear in code"),
                ))
            }
        };
        let start = c.pos();
        let path_len = c.u8("type_path length")? as usize;
        c.skip(2 * path_len, "type_path")?;
        skip_annotation(&mut c, 0)?;
        let rest = data[start..c.pos()].to_vec();
        out.push(RawTypeAnnotation {
            target_type,
            target,
            rest,
        });
    }
    if c.remaining() != 0 {
        return Err(Error::malformed(
            c.abs(),
            "type annotations attribute has trailing bytes",
        ));
    }
    Ok(out)
}

/// Skips one `annotation` structure.
pub(crate) fn skip_annotation(c: &mut Cursor<'_>, depth: u32) -> Result<()> {
    if depth > 64 {
        return Err(Error::malformed(c.abs(), "annotation nested too deeply"));
    }
    c.u16("annotation type_index")?;
    let pairs = c.u16("num_element_value_pairs")?;
    for _ in 0..pairs {
        c.u16("element_name_index")?;
        skip_element_value(c, depth + 1)?;
    }
    Ok(())
}

fn skip_element_value(c: &mut Cursor<'_>, depth: u32) -> Result<()> {
    if depth > 64 {
        return Err(Error::malformed(c.abs(), "annotation nested too deeply"));
    }
    let at = c.abs();
    match c.u8("element_value tag")? {
        b'B' | b'C' | b'D' | b'F' | b'I' | b'J' | b'S' | b'Z' | b's' | b'c' => {
            c.skip(2, "const_value_index")
        }
        b'e' => c.skip(4, "enum_const_value"),
        b'@' => skip_annotation(c, depth + 1),
        b'[' => {
            let n = c.u16("num_values")?;
            for _ in 0..n {
                skip_element_value(c, depth + 1)?;
            }
            Ok(())
        }
        t => Err(Error::malformed(
            at,
            format!("unknown element_value tag {:?}", t as char),
        )),
    }
}

/// Writes type annotations with labels resolved through `offset`.
pub(super) fn write(anns: &[TypeAnnotation], offset: &dyn Fn(Label) -> u32, out: &mut Vec<u8>) {
    out.extend_from_slice(&(anns.len() as u16).to_be_bytes());
    for a in anns {
        out.push(a.target_type);
        match &a.target {
            TypeAnnotationTarget::LocalVar(v) => {
                out.extend_from_slice(&(v.len() as u16).to_be_bytes());
                for &(s, e, i) in v {
                    let (s, e) = (offset(s), offset(e));
                    out.extend_from_slice(&(s as u16).to_be_bytes());
                    out.extend_from_slice(&(e.saturating_sub(s) as u16).to_be_bytes());
                    out.extend_from_slice(&i.to_be_bytes());
                }
            }
            TypeAnnotationTarget::Catch(i) => out.extend_from_slice(&i.to_be_bytes()),
            TypeAnnotationTarget::Offset(l) => {
                out.extend_from_slice(&(offset(*l) as u16).to_be_bytes())
            }
            TypeAnnotationTarget::TypeArgument(l, k) => {
                out.extend_from_slice(&(offset(*l) as u16).to_be_bytes());
                out.push(*k);
            }
        }
        out.extend_from_slice(&a.rest);
    }
}
