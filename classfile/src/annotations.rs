//! Annotation attributes (`RuntimeVisibleAnnotations`, `RuntimeInvisibleAnnotations`)
//! read just far enough to list the annotation types, which is what pointcut
//! matching asks about.

use std::borrow::Cow;

use crate::bytes::Cursor;
use crate::class_reader::Attribute;
use crate::code::skip_annotation;
use crate::constant_pool::ConstantPool;
use crate::error::Result;

/// The annotation types (internal names, `p/Ann`) in the annotation attributes
/// among `attributes`, visible and invisible alike.
pub fn annotation_types<'a>(
    attributes: &[Attribute<'a>],
    pool: &ConstantPool<'a>,
) -> Result<Vec<Cow<'a, str>>> {
    let mut out = Vec::new();
    for a in attributes {
        if a.name != b"RuntimeVisibleAnnotations" && a.name != b"RuntimeInvisibleAnnotations" {
            continue;
        }
        let mut c = Cursor::new(a.data, a.data_offset());
        let n = c.u16("num_annotations")?;
        for _ in 0..n {
            let mut peek = c;
            let type_index = peek.u16("type_index")?;
            skip_annotation(&mut c, 0)?;
            let d = pool.utf8(type_index)?;
            out.push(match d {
                Cow::Borrowed(s) => Cow::Borrowed(
                    s.strip_prefix('L')
                        .and_then(|s| s.strip_suffix(';'))
                        .unwrap_or(s),
                ),
                Cow::Owned(s) => Cow::Owned(
                    s.strip_prefix('L')
                        .and_then(|s| s.strip_suffix(';'))
                        .unwrap_or(&s)
                        .to_string(),
                ),
            });
        }
    }
    Ok(out)
}

/// The exception types (internal names) of a method's `Exceptions` attribute.
pub fn exception_types<'a>(
    attributes: &[Attribute<'a>],
    pool: &ConstantPool<'a>,
) -> Result<Vec<Cow<'a, str>>> {
    let mut out = Vec::new();
    for a in attributes.iter().filter(|a| a.name == b"Exceptions") {
        let mut c = Cursor::new(a.data, a.data_offset());
        let n = c.u16("number_of_exceptions")?;
        for _ in 0..n {
            out.push(pool.class_name(c.u16("exception_index")?)?);
        }
    }
    Ok(out)
}
