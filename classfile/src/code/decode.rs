//! Bytes → label list. Two passes over the bytecode: the first finds instruction
//! boundaries and every offset something refers to, the second builds the list.

use super::type_annotations;
use super::{Code, CodeAttr, Handler, Insn, Label, LocalVariable};
use crate::bytes::{be_u16, be_u32, Cursor};
use crate::class_reader::CodeAttribute;
use crate::constant_pool::ConstantPool;
use crate::error::{Error, ErrorKind, Result};
use crate::opcodes::{op, Shape, OPCODES};

const NO_LABEL: u32 = u32::MAX;

/// Whether the bytecode `code` holds an instruction whose opcode `wanted`
/// selects, found by walking instruction boundaries without decoding (operand
/// bytes are never mistaken for opcodes). Malformed code is an error, as
/// [`Code::decode`] would report it.
pub fn any_opcode(code: &[u8], wanted: impl Fn(u8) -> bool) -> Result<bool> {
    let mut pc = 0;
    let mut targets = Vec::new();
    while pc < code.len() {
        if wanted(code[pc]) {
            return Ok(true);
        }
        targets.clear();
        pc += scan_insn(code, pc, &mut targets)?;
    }
    Ok(false)
}

/// The length of each opcode's instructions where it is fixed and they name
/// no branch target; 0 for branches, `wide`, the switches and invalid
/// opcodes, which [`scan_insn`] measures from their operands.
static FIXED_LEN: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut o = 0;
    while o < 256 {
        t[o] = match OPCODES[o].shape {
            Shape::None => 1,
            Shape::Local | Shape::Byte | Shape::CpU8 | Shape::NewArray => 2,
            Shape::Short | Shape::CpU16 | Shape::Iinc => 3,
            Shape::MultiANewArray => 4,
            Shape::InvokeInterface | Shape::InvokeDynamic => 5,
            _ => 0,
        };
        o += 1;
    }
    t
};

/// Length of the instruction at `pc` and the branch targets it names.
#[inline]
fn scan_insn(code: &[u8], pc: usize, targets: &mut Vec<i64>) -> Result<usize> {
    let fixed = FIXED_LEN[code[pc] as usize] as usize;
    if fixed != 0 && pc + fixed <= code.len() {
        return Ok(fixed);
    }
    scan_insn_operands(code, pc, targets)
}

/// [`scan_insn`] from the opcode's operands (and its errors).
#[inline(never)]
fn scan_insn_operands(code: &[u8], pc: usize, targets: &mut Vec<i64>) -> Result<usize> {
    let opcode = code[pc];
    let info = &OPCODES[opcode as usize];
    let need = |n: usize| -> Result<()> {
        if pc + n > code.len() {
            Err(Error::new(
                ErrorKind::Truncated,
                pc,
                format!("{} at offset {pc} runs past the end of the code", info.name),
            ))
        } else {
            Ok(())
        }
    };
    let len = match info.shape {
        Shape::Invalid => {
            return Err(Error::malformed(
                pc,
                format!("invalid opcode {opcode:#04x} at offset {pc}"),
            ))
        }
        Shape::None => 1,
        Shape::Local | Shape::Byte | Shape::CpU8 | Shape::NewArray => 2,
        Shape::Short | Shape::CpU16 | Shape::Iinc => 3,
        Shape::MultiANewArray => 4,
        Shape::InvokeInterface | Shape::InvokeDynamic => 5,
        Shape::Branch16 => {
            need(3)?;
            targets.push(pc as i64 + be_u16(code, pc + 1) as i16 as i64);
            3
        }
        Shape::Branch32 => {
            need(5)?;
            targets.push(pc as i64 + be_u32(code, pc + 1) as i32 as i64);
            5
        }
        Shape::Wide => {
            need(2)?;
            match code[pc + 1] {
                op::IINC => 6,
                21..=25 | 54..=58 | op::RET => 4,
                o => {
                    return Err(Error::malformed(
                        pc,
                        format!(
                            "wide applied to {} at offset {pc}",
                            OPCODES[o as usize].name
                        ),
                    ))
                }
            }
        }
        Shape::TableSwitch | Shape::LookupSwitch => {
            let base = pc + 1 + (3 - pc % 4);
            need(base - pc + 8)?;
            targets.push(pc as i64 + be_u32(code, base) as i32 as i64);
            let a = be_u32(code, base + 4) as i32 as i64;
            if info.shape == Shape::TableSwitch {
                need(base - pc + 12)?;
                let b = be_u32(code, base + 8) as i32 as i64;
                if b < a {
                    return Err(Error::malformed(
                        pc,
                        format!("tableswitch at offset {pc} has high {b} < low {a}"),
                    ));
                }
                let n = (b - a + 1) as usize;
                if n > code.len() {
                    return Err(Error::new(
                        ErrorKind::Truncated,
                        pc,
                        format!("tableswitch at offset {pc} runs past the end of the code"),
                    ));
                }
                need(base - pc + 12 + 4 * n)?;
                for k in 0..n {
                    targets.push(pc as i64 + be_u32(code, base + 12 + 4 * k) as i32 as i64);
                }
                base - pc + 12 + 4 * n
            } else {
                if a < 0 || a as usize > code.len() {
                    return Err(Error::malformed(
                        pc,
                        format!("lookupswitch at offset {pc} has bad npairs {a}"),
                    ));
                }
                let n = a as usize;
                need(base - pc + 8 + 8 * n)?;
                for k in 0..n {
                    targets.push(pc as i64 + be_u32(code, base + 12 + 8 * k) as i32 as i64);
                }
                base - pc + 8 + 8 * n
            }
        }
    };
    need(len)?;
    Ok(len)
}

impl Code {
    /// Decodes a parsed `Code` attribute. Branch targets and exception ranges must
    /// fall on instruction boundaries (an error otherwise); debug-table entries that
    /// do not are dropped, as HotSpot ignores them too.
    pub fn decode(attr: &CodeAttribute<'_>, pool: &ConstantPool<'_>) -> Result<Code> {
        let code = attr.code;
        let len = code.len();
        if len == 0 {
            return Err(Error::malformed(attr.code_offset, "empty Code attribute"));
        }
        // Pass 1: boundaries and branch targets.
        let mut boundary = vec![false; len + 1];
        let mut targets = Vec::new();
        let mut pc = 0;
        let mut count = 0;
        while pc < len {
            boundary[pc] = true;
            pc += scan_insn(code, pc, &mut targets)?;
            count += 1;
        }
        boundary[len] = true;
        let mut wanted = vec![false; len + 1];
        for t in targets {
            if t < 0 || t as usize >= len || !boundary[t as usize] {
                return Err(Error::malformed(
                    None,
                    format!("branch target {t} is not the start of an instruction"),
                ));
            }
            wanted[t as usize] = true;
        }
        for (i, e) in attr.exception_table.iter().enumerate() {
            let (s, en, h) = (
                e.start_pc as usize,
                e.end_pc as usize,
                e.handler_pc as usize,
            );
            if s >= en || en > len || h >= len || !boundary[s] || !boundary[en] || !boundary[h] {
                return Err(Error::malformed(
                    None,
                    format!("exception-table entry {i} ({s}..{en} -> {h}) does not fit the code's instructions"),
                ));
            }
            wanted[s] = true;
            wanted[en] = true;
            wanted[h] = true;
        }
        // Debug tables and type annotations name offsets too.
        let mut raw_attrs = Vec::new();
        for a in &attr.attributes {
            let parsed = match a.name {
                b"LineNumberTable" => {
                    let mut c = Cursor::new(a.data, a.data_offset());
                    let n = c.u16("line_number_table_length")?;
                    let mut v = Vec::with_capacity(n as usize);
                    for _ in 0..n {
                        v.push((c.u16("start_pc")? as usize, c.u16("line_number")?));
                    }
                    end_of(&c, "LineNumberTable")?;
                    for (pc, _) in &v {
                        if *pc < len && boundary[*pc] {
                            wanted[*pc] = true;
                        }
                    }
                    Raw::Lines(a.name_index, v)
                }
                b"LocalVariableTable" | b"LocalVariableTypeTable" => {
                    let mut c = Cursor::new(a.data, a.data_offset());
                    let n = c.u16("local_variable_table_length")?;
                    let mut v = Vec::with_capacity(n as usize);
                    for _ in 0..n {
                        let s = c.u16("start_pc")? as usize;
                        let l = c.u16("length")? as usize;
                        let name = c.u16("name_index")?;
                        let d = c.u16("descriptor_index")?;
                        let index = c.u16("index")?;
                        v.push((s, s + l, name, d, index));
                    }
                    end_of(&c, "LocalVariableTable")?;
                    for &(s, e, ..) in &v {
                        if e <= len && boundary[s] && boundary[e] {
                            wanted[s] = true;
                            wanted[e] = true;
                        }
                    }
                    Raw::Locals(a.name_index, a.name == b"LocalVariableTypeTable", v)
                }
                b"RuntimeVisibleTypeAnnotations" | b"RuntimeInvisibleTypeAnnotations" => {
                    let anns = type_annotations::parse_raw(a.data, a.data_offset())?;
                    for ann in &anns {
                        for pc in ann.offsets() {
                            if pc <= len && boundary[pc] {
                                wanted[pc] = true;
                            }
                        }
                    }
                    Raw::TypeAnns(
                        a.name_index,
                        a.name == b"RuntimeVisibleTypeAnnotations",
                        anns,
                    )
                }
                b"StackMapTable" => Raw::Other(a.name_index, a.data, true),
                _ => Raw::Other(a.name_index, a.data, false),
            };
            raw_attrs.push(parsed);
        }
        // Labels in offset order.
        let mut label_at = vec![NO_LABEL; len + 1];
        let mut origins = Vec::new();
        for (pc, w) in wanted.iter().enumerate() {
            if *w {
                label_at[pc] = origins.len() as u32;
                origins.push(Some(pc as u32));
            }
        }
        let lab = |pc: usize| Label(label_at[pc]);
        // Pass 2: the instruction list.
        // Room for a few more (a woven body's entry code goes in front:
        // without it, that insertion reallocates the whole body).
        let mut insns = Vec::with_capacity(count + origins.len() + 16);
        let mut pc = 0;
        while pc < len {
            if label_at[pc] != NO_LABEL {
                insns.push(Insn::Label(lab(pc)));
            }
            let (insn, n) = decode_insn(code, pc, &lab);
            check_operand(&insn, pool).map_err(|e| {
                Error::new(
                    e.kind(),
                    attr.code_offset + pc,
                    format!("at bytecode offset {pc}: {}", e.message()),
                )
            })?;
            insns.push(insn);
            pc += n;
        }
        if label_at[len] != NO_LABEL {
            insns.push(Insn::Label(lab(len)));
        }
        let handlers = attr
            .exception_table
            .iter()
            .map(|e| Handler {
                start: lab(e.start_pc as usize),
                end: lab(e.end_pc as usize),
                handler: lab(e.handler_pc as usize),
                catch_type: e.catch_type,
            })
            .collect();
        let on = |pc: usize| pc <= len && label_at[pc] != NO_LABEL;
        let attributes = raw_attrs
            .into_iter()
            .map(|r| match r {
                Raw::Lines(name_index, v) => CodeAttr::LineNumbers {
                    name_index,
                    entries: v
                        .into_iter()
                        .filter(|(pc, _)| *pc < len && on(*pc))
                        .map(|(pc, line)| (lab(pc), line))
                        .collect(),
                },
                Raw::Locals(name_index, types, v) => CodeAttr::LocalVariables {
                    name_index,
                    types,
                    entries: v
                        .into_iter()
                        .filter(|&(s, e, ..)| on(s) && on(e))
                        .map(|(s, e, name, descriptor, index)| LocalVariable {
                            start: lab(s),
                            end: lab(e),
                            name,
                            descriptor,
                            index,
                        })
                        .collect(),
                },
                Raw::TypeAnns(name_index, visible, anns) => CodeAttr::TypeAnnotations {
                    name_index,
                    visible,
                    entries: anns
                        .into_iter()
                        .filter_map(|a| a.into_labelled(&|pc| on(pc).then(|| lab(pc))))
                        .collect(),
                },
                Raw::Other(name_index, data, true) => CodeAttr::StackMapTable {
                    name_index,
                    data: data.to_vec(),
                },
                Raw::Other(name_index, data, false) => CodeAttr::Other {
                    name_index,
                    data: data.to_vec(),
                },
            })
            .collect();
        Ok(Code {
            max_stack: attr.max_stack,
            max_locals: attr.max_locals,
            insns,
            handlers,
            attributes,
            origins,
        })
    }
}

enum Raw<'a> {
    Lines(u16, Vec<(usize, u16)>),
    Locals(u16, bool, Vec<(usize, usize, u16, u16, u16)>),
    TypeAnns(u16, bool, Vec<type_annotations::RawTypeAnnotation>),
    Other(u16, &'a [u8], bool),
}

fn end_of(c: &Cursor<'_>, what: &str) -> Result<()> {
    if c.remaining() != 0 {
        Err(Error::new(
            ErrorKind::AttributeOverrun,
            c.abs(),
            format!("{what} attribute has trailing bytes"),
        ))
    } else {
        Ok(())
    }
}

/// Checks that a constant-pool operand names an entry of a kind the opcode accepts.
fn check_operand(insn: &Insn, pool: &ConstantPool<'_>) -> Result<()> {
    use crate::constant_pool::tag::*;
    let (index, tags): (u16, &[u8]) = match insn {
        Insn::Ldc { index, .. } => (
            *index,
            &[
                INTEGER,
                FLOAT,
                STRING,
                CLASS,
                METHOD_TYPE,
                METHOD_HANDLE,
                DYNAMIC,
            ],
        ),
        Insn::Cp {
            op: op::LDC2_W,
            index,
        } => (*index, &[LONG, DOUBLE, DYNAMIC]),
        Insn::Cp {
            op: op::GETSTATIC..=op::PUTFIELD,
            index,
        } => (*index, &[FIELDREF]),
        Insn::Cp {
            op: op::INVOKEVIRTUAL,
            index,
        } => (*index, &[METHODREF]),
        Insn::Cp {
            op: op::INVOKESPECIAL | op::INVOKESTATIC,
            index,
        } => (*index, &[METHODREF, INTERFACE_METHODREF]),
        Insn::Cp { index, .. } | Insn::MultiANewArray { index, .. } => (*index, &[CLASS]),
        Insn::InvokeInterface { index, .. } => (*index, &[INTERFACE_METHODREF]),
        Insn::InvokeDynamic { index } => (*index, &[INVOKE_DYNAMIC]),
        _ => return Ok(()),
    };
    pool.expect(index, tags).map(|_| ())
}

/// Decodes the (already length-checked) instruction at `pc` (inlined into
/// `Code::decode`'s loop, with `lab` known there: a call through `&dyn Fn`
/// per instruction and per branch target cost more than the decoding).
#[inline]
fn decode_insn(code: &[u8], pc: usize, lab: &impl Fn(usize) -> Label) -> (Insn, usize) {
    let opcode = code[pc];
    let u16_at = |at: usize| be_u16(code, at);
    let rel16 = |at: usize| lab((pc as i64 + be_u16(code, at) as i16 as i64) as usize);
    let rel32 = |at: usize| lab((pc as i64 + be_u32(code, at) as i32 as i64) as usize);
    match OPCODES[opcode as usize].shape {
        Shape::None => (Insn::Simple(opcode), 1),
        Shape::Local => (
            Insn::Local {
                op: opcode,
                index: code[pc + 1] as u16,
                wide: false,
            },
            2,
        ),
        Shape::Byte => (
            Insn::Push {
                op: opcode,
                value: code[pc + 1] as i8 as i16,
            },
            2,
        ),
        Shape::Short => (
            Insn::Push {
                op: opcode,
                value: u16_at(pc + 1) as i16,
            },
            3,
        ),
        Shape::CpU8 => (
            Insn::Ldc {
                index: code[pc + 1] as u16,
                wide: false,
            },
            2,
        ),
        Shape::CpU16 if opcode == op::LDC_W => (
            Insn::Ldc {
                index: u16_at(pc + 1),
                wide: true,
            },
            3,
        ),
        Shape::CpU16 => (
            Insn::Cp {
                op: opcode,
                index: u16_at(pc + 1),
            },
            3,
        ),
        Shape::Iinc => (
            Insn::Iinc {
                index: code[pc + 1] as u16,
                delta: code[pc + 2] as i8 as i16,
                wide: false,
            },
            3,
        ),
        Shape::Branch16 => (
            Insn::Jump {
                op: opcode,
                target: rel16(pc + 1),
            },
            3,
        ),
        Shape::Branch32 => (
            Insn::Jump {
                op: opcode,
                target: rel32(pc + 1),
            },
            5,
        ),
        Shape::InvokeInterface => (
            Insn::InvokeInterface {
                index: u16_at(pc + 1),
                count: code[pc + 3],
            },
            5,
        ),
        Shape::InvokeDynamic => (
            Insn::InvokeDynamic {
                index: u16_at(pc + 1),
            },
            5,
        ),
        Shape::NewArray => (
            Insn::NewArray {
                atype: code[pc + 1],
            },
            2,
        ),
        Shape::MultiANewArray => (
            Insn::MultiANewArray {
                index: u16_at(pc + 1),
                dims: code[pc + 3],
            },
            4,
        ),
        Shape::Wide => {
            let inner = code[pc + 1];
            if inner == op::IINC {
                (
                    Insn::Iinc {
                        index: u16_at(pc + 2),
                        delta: u16_at(pc + 4) as i16,
                        wide: true,
                    },
                    6,
                )
            } else {
                (
                    Insn::Local {
                        op: inner,
                        index: u16_at(pc + 2),
                        wide: true,
                    },
                    4,
                )
            }
        }
        Shape::TableSwitch => {
            let base = pc + 1 + (3 - pc % 4);
            let low = be_u32(code, base + 4) as i32;
            let high = be_u32(code, base + 8) as i32;
            let n = (high as i64 - low as i64 + 1) as usize;
            let targets = (0..n).map(|k| rel32(base + 12 + 4 * k)).collect();
            (
                Insn::TableSwitch {
                    default: rel32(base),
                    low,
                    targets,
                },
                base - pc + 12 + 4 * n,
            )
        }
        Shape::LookupSwitch => {
            let base = pc + 1 + (3 - pc % 4);
            let n = be_u32(code, base + 4) as usize;
            let pairs = (0..n)
                .map(|k| {
                    (
                        be_u32(code, base + 8 + 8 * k) as i32,
                        rel32(base + 12 + 8 * k),
                    )
                })
                .collect();
            (
                Insn::LookupSwitch {
                    default: rel32(base),
                    pairs,
                },
                base - pc + 8 + 8 * n,
            )
        }
        Shape::Invalid => unreachable!("rejected by scan_insn"),
    }
}

#[cfg(test)]
mod any_opcode_tests {
    use super::*;

    #[test]
    fn operand_bytes_are_not_opcodes() {
        // sipush 0xBBBB; pop; return: 0xBB (new) only as operand bytes.
        let code = [0x11 /* sipush */, 0xBB, 0xBB, 0x57, op::RETURN];
        assert!(!any_opcode(&code, |o| o == op::NEW).unwrap());
        assert!(any_opcode(&code, |o| o == op::RETURN).unwrap());
        // new #1; dup; return
        let code = [op::NEW, 0, 1, 0x59, op::RETURN];
        assert!(any_opcode(&code, |o| o == op::NEW).unwrap());
        // Truncated and invalid code are errors, as for decoding.
        assert!(any_opcode(&[0x11 /* sipush */, 0], |o| o == op::NEW).is_err());
        assert!(any_opcode(&[0xCB], |o| o == op::NEW).is_err());
    }
}
