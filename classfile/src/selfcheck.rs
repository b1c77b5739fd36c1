//! The engine's fuzz property, usable from a fuzz target and from tests.
//!
//! [`check_bytes`] feeds arbitrary bytes through every stage of the engine and
//! panics only when the engine misbehaves: a panic inside the engine, an error
//! without a message, or a round trip that changes what it must not change.
//! Rejecting malformed input with an [`Error`] is the expected outcome, never a
//! failure.
//!
//! Re-encoding a decoded method body reproduces the original `Code` attribute
//! byte for byte, except where the engine normalises by design:
//!
//! * debug-table entries (`LineNumberTable`, `LocalVariableTable`,
//!   `LocalVariableTypeTable`, code type annotations) that name an offset inside an
//!   instruction or past the code, or a type annotation naming a missing
//!   exception-table row, are dropped (HotSpot ignores them too);
//! * bytes the JVMS reserves as zero (`tableswitch`/`lookupswitch` padding, the
//!   fourth operand byte of `invokeinterface`, the last two of `invokedynamic`)
//!   are written as zero.
//!
//! Any other difference is a bug. Where entries were dropped, re-encoding must at
//! least be a fixed point: decoding and encoding the output gives the output.

use crate::class_reader::{Attribute, ClassFile, CodeAttribute};
use crate::class_writer::{write_class, ClassEdit};
use crate::code::{Code, CodeAttr, Insn, Layout};
use crate::disasm;
use crate::error::{Error, ErrorKind};
use crate::hierarchy::{ClassHierarchy, ClassInfo};
use crate::rewrite::{self, Mode};

/// A class hierarchy that knows no class: frame computation fails with
/// [`ErrorKind::UnknownClass`] as soon as it must merge two distinct classes.
#[derive(Debug, Clone, Copy, Default)]
pub struct EmptyHierarchy;

impl ClassHierarchy for EmptyHierarchy {
    fn class_info(&self, _name: &str) -> Option<ClassInfo> {
        None
    }
}

/// The fuzz property: runs `data` through the reader, the writer, the code
/// decoder and encoder, the disassembler and frame computation, and panics if the
/// engine panics, reports an error without a message, or breaks a round trip (see
/// the module documentation for what a round trip may change).
pub fn check_bytes(data: &[u8]) {
    let class = match ClassFile::parse(data) {
        Ok(c) => c,
        Err(e) => {
            check_error(&e, data.len());
            return;
        }
    };

    // Writing an unchanged class gives back the input.
    let edit = ClassEdit::new(&class);
    assert!(edit.is_unchanged(), "a fresh ClassEdit must be unchanged");
    let written = write_class(&class, &edit);
    if written != data {
        panic!(
            "unchanged class written differently: {} bytes in, {} out, first difference at {}",
            data.len(),
            written.len(),
            first_difference(&written, data)
        );
    }

    // Every method body: decode, encode, compare.
    for m in &class.methods {
        for attr in m.attributes.iter().filter(|a| a.name == b"Code") {
            check_code(&class, attr, data.len());
        }
    }

    // The disassembler reads everything the reader accepted.
    if let Err(e) = disasm::disassemble_class(&class, None) {
        check_error(&e, data.len());
    }

    // The whole-class rewrites. Identity re-encodes every body and insists on
    // identical bytes, so it may reject inputs that `check_code` accepts as
    // normalised; when it succeeds its output is the input.
    match rewrite::reencode_class(data, Mode::Identity, &EmptyHierarchy) {
        Ok((out, _)) => assert!(out == data, "Mode::Identity returned a changed class"),
        Err(e) => check_error(&e, data.len()),
    }
    // Reframe needs a real hierarchy for most classes; errors are fine, panics
    // are not, and what it writes must be readable again.
    match rewrite::reencode_class(data, Mode::Reframe, &EmptyHierarchy) {
        Ok((out, _)) => {
            if let Err(e) = ClassFile::parse(&out) {
                panic!("Mode::Reframe wrote a class the reader rejects: {e}");
            }
        }
        Err(e) => check_error(&e, data.len()),
    }
}

/// An error must say something, and an offset it names must lie in the input.
fn check_error(e: &Error, input_len: usize) {
    let text = e.to_string();
    assert!(
        !text.is_empty(),
        "error of kind {:?} has no message",
        e.kind()
    );
    assert!(
        !e.message().is_empty(),
        "error of kind {:?} has an empty message",
        e.kind()
    );
    if let Some(o) = e.offset() {
        assert!(
            o <= input_len,
            "error offset {o} lies past the {input_len}-byte input: {text}"
        );
    }
}

fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// Size of a `Code` attribute's fixed header before `code[0]`: name index,
/// length, `max_stack`, `max_locals`, `code_length`.
const CODE_HEADER: usize = 2 + 4 + 2 + 2 + 4;

/// Decodes and re-encodes one `Code` attribute and checks the round trip.
fn check_code(class: &ClassFile<'_>, attr: &Attribute<'_>, input_len: usize) {
    let parsed = match CodeAttribute::parse(attr, &class.pool) {
        Ok(p) => p,
        Err(e) => return check_error(&e, input_len),
    };
    let code = match Code::decode(&parsed, &class.pool) {
        Ok(c) => c,
        Err(e) => return check_error(&e, input_len),
    };
    let layout = code.layout();
    assert_eq!(
        layout.code_len,
        parsed.code.len(),
        "decoded code lays out to a different length"
    );
    let mut out = Vec::with_capacity(attr.total_len());
    if let Err(e) = code.write_attribute(attr.name_index, &layout, &mut out) {
        // Decoded code always fits its forms; only an oversized original can fail.
        check_error(&e, input_len);
        assert!(
            e.kind() == ErrorKind::CodeTooLarge && parsed.code.len() > 0xFFFF,
            "re-encoding unchanged code failed: {e}"
        );
        return;
    }
    let original = &class.bytes[attr.offset..attr.offset + attr.total_len()];
    if out == original {
        return;
    }
    let dropped = dropped_debug_entries(&parsed, &code);
    if !dropped {
        // Only reserved bytes may differ.
        let mut expected = original.to_vec();
        for pos in reserved_bytes(&code, &layout) {
            expected[CODE_HEADER + pos] = 0;
        }
        if out != expected {
            panic!(
                "re-encoded Code attribute differs from the original at byte {} of {} \
                 (no debug entries were dropped)",
                first_difference(&out, &expected),
                expected.len()
            );
        }
        return;
    }
    // Entries were dropped: the output must at least be a fixed point.
    let again = Attribute {
        name_index: attr.name_index,
        name: attr.name,
        offset: 0,
        data: &out[6..],
    };
    let parsed2 = CodeAttribute::parse(&again, &class.pool)
        .unwrap_or_else(|e| panic!("re-encoded Code attribute does not parse: {e}"));
    let code2 = Code::decode(&parsed2, &class.pool)
        .unwrap_or_else(|e| panic!("re-encoded Code attribute does not decode: {e}"));
    assert_eq!(parsed2.code.len(), parsed.code.len());
    assert_eq!(parsed2.exception_table.len(), parsed.exception_table.len());
    let layout2 = code2.layout();
    let mut out2 = Vec::with_capacity(out.len());
    code2
        .write_attribute(attr.name_index, &layout2, &mut out2)
        .unwrap_or_else(|e| panic!("second re-encoding failed: {e}"));
    assert!(
        out2 == out,
        "re-encoding is not a fixed point: differs at byte {}",
        first_difference(&out2, &out)
    );
}

/// True when decoding dropped an entry of a debug table or type annotation.
fn dropped_debug_entries(parsed: &CodeAttribute<'_>, code: &Code) -> bool {
    // `Code::decode` keeps one `CodeAttr` per attribute, in order.
    parsed
        .attributes
        .iter()
        .zip(&code.attributes)
        .any(|(raw, decoded)| {
            let declared = match raw.data {
                [a, b, ..] => u16::from_be_bytes([*a, *b]) as usize,
                _ => return false,
            };
            let kept = match decoded {
                CodeAttr::LineNumbers { entries, .. } => entries.len(),
                CodeAttr::LocalVariables { entries, .. } => entries.len(),
                CodeAttr::TypeAnnotations { entries, .. } => entries.len(),
                CodeAttr::StackMapTable { .. } | CodeAttr::Other { .. } => return false,
            };
            kept < declared
        })
}

/// Offsets (in the bytecode) of the bytes the JVMS reserves as zero.
fn reserved_bytes(code: &Code, layout: &Layout) -> Vec<usize> {
    let mut out = Vec::new();
    for (insn, &at) in code.insns.iter().zip(&layout.insn_offsets) {
        let at = at as usize;
        match insn {
            Insn::InvokeInterface { .. } => out.push(at + 4),
            Insn::InvokeDynamic { .. } => out.extend([at + 3, at + 4]),
            Insn::TableSwitch { .. } | Insn::LookupSwitch { .. } => {
                out.extend(at + 1..at + 1 + (3 - at % 4))
            }
            _ => {}
        }
    }
    out
}
