//! Label list → bytes: offsets are assigned by a layout pass, branches that outgrow
//! 16 bits are rewritten (`goto` → `goto_w`, `if<c> L` → `if<!c> skip; goto_w L;
//! skip:`), and the `Code` attribute is written with every table remapped.

use super::{type_annotations, Code, CodeAttr, Insn, Label};
use crate::error::{Error, ErrorKind, Result};
use crate::opcodes::{invert_condition, op, Shape, OPCODES};

/// The JVM's limit on `code_length`.
pub const MAX_CODE_LEN: usize = 65535;

/// Offsets assigned to a [`Code`]'s instructions and labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Offset of each entry of `insns` (a label gets the offset of what follows it).
    pub insn_offsets: Vec<u32>,
    /// Offset of each label, by label number (`u32::MAX` for labels not placed).
    pub label_offsets: Vec<u32>,
    /// Total code length.
    pub code_len: usize,
}

impl Layout {
    /// Offset of `label`.
    pub fn offset(&self, label: Label) -> u32 {
        self.label_offsets[label.0 as usize]
    }
}

fn insn_size(insn: &Insn, at: usize) -> usize {
    match insn {
        Insn::Label(_) => 0,
        Insn::Simple(_) => 1,
        Insn::Local { index, wide, .. } => {
            if *wide || *index > 255 {
                4
            } else {
                2
            }
        }
        Insn::Iinc { index, delta, wide } => {
            if *wide || *index > 255 || *delta < -128 || *delta > 127 {
                6
            } else {
                3
            }
        }
        Insn::Push { op, .. } => {
            if *op == 16 {
                2
            } else {
                3
            }
        }
        Insn::Ldc { index, wide } => {
            if *wide || *index > 255 {
                3
            } else {
                2
            }
        }
        Insn::Cp { .. } => 3,
        Insn::InvokeInterface { .. } | Insn::InvokeDynamic { .. } => 5,
        Insn::NewArray { .. } => 2,
        Insn::MultiANewArray { .. } => 4,
        Insn::Jump { op, .. } => {
            if OPCODES[*op as usize].shape == Shape::Branch32 {
                5
            } else {
                3
            }
        }
        Insn::TableSwitch { targets, .. } => 1 + (3 - at % 4) + 12 + 4 * targets.len(),
        Insn::LookupSwitch { pairs, .. } => 1 + (3 - at % 4) + 8 + 8 * pairs.len(),
    }
}

/// Offsets of `insns` (with labels numbered below `label_count`) in their
/// current forms.
pub(crate) fn layout_of(insns: &[Insn], label_count: usize) -> Layout {
    let mut insn_offsets = Vec::with_capacity(insns.len());
    let mut label_offsets = vec![u32::MAX; label_count];
    let mut at = 0usize;
    for insn in insns {
        insn_offsets.push(at as u32);
        if let Insn::Label(l) = insn {
            label_offsets[l.0 as usize] = at as u32;
        }
        at += insn_size(insn, at);
    }
    Layout {
        insn_offsets,
        label_offsets,
        code_len: at,
    }
}

impl Code {
    /// Assigns offsets with the current instruction forms.
    pub fn layout(&self) -> Layout {
        layout_of(&self.insns, self.label_count())
    }

    /// Rewrites every 16-bit branch whose offset no longer fits, until the layout
    /// is stable. Returns whether anything changed.
    pub fn widen_jumps(&mut self) -> Result<bool> {
        Ok(self.widen_jumps_with_layout()?.0)
    }

    /// [`widen_jumps`](Self::widen_jumps), also returning the final layout.
    pub fn widen_jumps_with_layout(&mut self) -> Result<(bool, Layout)> {
        let mut changed = false;
        loop {
            let layout = self.layout();
            check_labels(self, &layout)?;
            let mut far = Vec::new();
            for (i, insn) in self.insns.iter().enumerate() {
                if let Insn::Jump { op, target } = insn {
                    if OPCODES[*op as usize].shape == Shape::Branch16 {
                        let d = layout.offset(*target) as i64 - layout.insn_offsets[i] as i64;
                        if d < i16::MIN as i64 || d > i16::MAX as i64 {
                            far.push(i);
                        }
                    }
                }
            }
            if far.is_empty() {
                return Ok((changed, layout));
            }
            changed = true;
            // Rewrite from the back so indices stay valid.
            for &i in far.iter().rev() {
                let Insn::Jump { op: o, target } = self.insns[i].clone() else {
                    unreachable!()
                };
                match o {
                    op::GOTO => {
                        self.insns[i] = Insn::Jump {
                            op: op::GOTO_W,
                            target,
                        }
                    }
                    op::JSR => {
                        self.insns[i] = Insn::Jump {
                            op: op::JSR_W,
                            target,
                        }
                    }
                    _ => {
                        let inv = invert_condition(o)
                            .expect("16-bit branches are goto, jsr or conditional");
                        let skip = self.new_label();
                        self.insns.splice(
                            i..=i,
                            [
                                Insn::Jump {
                                    op: inv,
                                    target: skip,
                                },
                                Insn::Jump {
                                    op: op::GOTO_W,
                                    target,
                                },
                                Insn::Label(skip),
                            ],
                        );
                    }
                }
            }
        }
    }

    /// Encodes the bytecode array. Branches must fit their forms (call
    /// [`Code::widen_jumps`] first after inserting code).
    pub fn encode_bytecode(&self, layout: &Layout) -> Result<Vec<u8>> {
        if layout.code_len > MAX_CODE_LEN {
            return Err(Error::new(
                ErrorKind::CodeTooLarge,
                None,
                format!(
                    "code would be {} bytes, over the JVM's limit of {MAX_CODE_LEN}",
                    layout.code_len
                ),
            ));
        }
        check_labels(self, layout)?;
        let mut out = Vec::with_capacity(layout.code_len);
        for (i, insn) in self.insns.iter().enumerate() {
            let at = layout.insn_offsets[i] as i64;
            let rel = |l: Label| layout.offset(l) as i64 - at;
            match insn {
                Insn::Label(_) => {}
                Insn::Simple(o) => out.push(*o),
                Insn::Local { op, index, wide } => {
                    if *wide || *index > 255 {
                        out.extend_from_slice(&[op::WIDE, *op]);
                        out.extend_from_slice(&index.to_be_bytes());
                    } else {
                        out.extend_from_slice(&[*op, *index as u8]);
                    }
                }
                Insn::Iinc { index, delta, wide } => {
                    if *wide || *index > 255 || *delta < -128 || *delta > 127 {
                        out.extend_from_slice(&[op::WIDE, op::IINC]);
                        out.extend_from_slice(&index.to_be_bytes());
                        out.extend_from_slice(&delta.to_be_bytes());
                    } else {
                        out.extend_from_slice(&[op::IINC, *index as u8, *delta as i8 as u8]);
                    }
                }
                Insn::Push { op, value } => {
                    out.push(*op);
                    if *op == 16 {
                        out.push(*value as i8 as u8);
                    } else {
                        out.extend_from_slice(&value.to_be_bytes());
                    }
                }
                Insn::Ldc { index, wide } => {
                    if *wide || *index > 255 {
                        out.push(op::LDC_W);
                        out.extend_from_slice(&index.to_be_bytes());
                    } else {
                        out.extend_from_slice(&[op::LDC, *index as u8]);
                    }
                }
                Insn::Cp { op, index } => {
                    out.push(*op);
                    out.extend_from_slice(&index.to_be_bytes());
                }
                Insn::InvokeInterface { index, count } => {
                    out.push(op::INVOKEINTERFACE);
                    out.extend_from_slice(&index.to_be_bytes());
                    out.extend_from_slice(&[*count, 0]);
                }
                Insn::InvokeDynamic { index } => {
                    out.push(op::INVOKEDYNAMIC);
                    out.extend_from_slice(&index.to_be_bytes());
                    out.extend_from_slice(&[0, 0]);
                }
                Insn::NewArray { atype } => out.extend_from_slice(&[op::NEWARRAY, *atype]),
                Insn::MultiANewArray { index, dims } => {
                    out.push(op::MULTIANEWARRAY);
                    out.extend_from_slice(&index.to_be_bytes());
                    out.push(*dims);
                }
                Insn::Jump { op, target } => {
                    let d = rel(*target);
                    out.push(*op);
                    if OPCODES[*op as usize].shape == Shape::Branch32 {
                        out.extend_from_slice(&(d as i32).to_be_bytes());
                    } else {
                        if d < i16::MIN as i64 || d > i16::MAX as i64 {
                            return Err(Error::malformed(
                                at as usize,
                                format!(
                                    "branch offset {d} does not fit 16 bits (widen_jumps not run)"
                                ),
                            ));
                        }
                        out.extend_from_slice(&(d as i16).to_be_bytes());
                    }
                }
                Insn::TableSwitch {
                    default,
                    low,
                    targets,
                } => {
                    out.push(op::TABLESWITCH);
                    pad(&mut out);
                    out.extend_from_slice(&(rel(*default) as i32).to_be_bytes());
                    out.extend_from_slice(&low.to_be_bytes());
                    let high = *low as i64 + targets.len() as i64 - 1;
                    out.extend_from_slice(&(high as i32).to_be_bytes());
                    for t in targets {
                        out.extend_from_slice(&(rel(*t) as i32).to_be_bytes());
                    }
                }
                Insn::LookupSwitch { default, pairs } => {
                    out.push(op::LOOKUPSWITCH);
                    pad(&mut out);
                    out.extend_from_slice(&(rel(*default) as i32).to_be_bytes());
                    out.extend_from_slice(&(pairs.len() as i32).to_be_bytes());
                    for (k, t) in pairs {
                        out.extend_from_slice(&k.to_be_bytes());
                        out.extend_from_slice(&(rel(*t) as i32).to_be_bytes());
                    }
                }
            }
        }
        debug_assert_eq!(out.len(), layout.code_len);
        Ok(out)
    }

    /// Writes the whole `Code` attribute (header included; `code_name_index` is the
    /// pool index of the string "Code"): bytecode, exception table and every
    /// attribute with offsets remapped. Exception ranges that became empty are
    /// dropped (and type annotations on them with them).
    pub fn write_attribute(
        &self,
        code_name_index: u16,
        layout: &Layout,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let code = self.encode_bytecode(layout)?;
        let off = |l: Label| layout.offset(l);
        // Sized once (else `out` grows by doubling, copying the code again).
        let attributes: usize = self
            .attributes
            .iter()
            .map(|a| {
                6 + match a {
                    CodeAttr::LineNumbers { entries, .. } => 2 + 4 * entries.len(),
                    CodeAttr::LocalVariables { entries, .. } => 2 + 10 * entries.len(),
                    CodeAttr::StackMapTable { data, .. } | CodeAttr::Other { data, .. } => {
                        data.len()
                    }
                    CodeAttr::TypeAnnotations { .. } => 0,
                }
            })
            .sum();
        out.reserve(18 + code.len() + 8 * self.handlers.len() + attributes);
        let start = out.len();
        out.extend_from_slice(&code_name_index.to_be_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&self.max_stack.to_be_bytes());
        out.extend_from_slice(&self.max_locals.to_be_bytes());
        out.extend_from_slice(&(code.len() as u32).to_be_bytes());
        out.extend_from_slice(&code);
        let mut new_index = Vec::with_capacity(self.handlers.len());
        let mut kept = 0u16;
        let rows: Vec<_> = self
            .handlers
            .iter()
            .filter_map(|h| {
                let (s, e) = (off(h.start), off(h.end));
                if s < e {
                    new_index.push(Some(kept));
                    kept += 1;
                    Some([s as u16, e as u16, off(h.handler) as u16, h.catch_type])
                } else {
                    new_index.push(None);
                    None
                }
            })
            .collect();
        out.extend_from_slice(&kept.to_be_bytes());
        for r in rows {
            for v in r {
                out.extend_from_slice(&v.to_be_bytes());
            }
        }
        out.extend_from_slice(&(self.attributes.len() as u16).to_be_bytes());
        for a in &self.attributes {
            let (name_index, body) = match a {
                CodeAttr::LineNumbers {
                    name_index,
                    entries,
                } => {
                    let mut b = Vec::with_capacity(2 + 4 * entries.len());
                    b.extend_from_slice(&(entries.len() as u16).to_be_bytes());
                    for (l, line) in entries {
                        b.extend_from_slice(&(off(*l) as u16).to_be_bytes());
                        b.extend_from_slice(&line.to_be_bytes());
                    }
                    (*name_index, b)
                }
                CodeAttr::LocalVariables {
                    name_index,
                    entries,
                    ..
                } => {
                    let mut b = Vec::with_capacity(2 + 10 * entries.len());
                    b.extend_from_slice(&(entries.len() as u16).to_be_bytes());
                    for v in entries {
                        let (s, e) = (off(v.start), off(v.end));
                        for x in [
                            s as u16,
                            e.saturating_sub(s) as u16,
                            v.name,
                            v.descriptor,
                            v.index,
                        ] {
                            b.extend_from_slice(&x.to_be_bytes());
                        }
                    }
                    (*name_index, b)
                }
                CodeAttr::TypeAnnotations {
                    name_index,
                    entries,
                    ..
                } => {
                    let kept: Vec<_> = entries
                        .iter()
                        .filter_map(|t| match t.target {
                            type_annotations::TypeAnnotationTarget::Catch(i) => {
                                new_index.get(i as usize).copied().flatten().map(|n| {
                                    let mut t = t.clone();
                                    t.target = type_annotations::TypeAnnotationTarget::Catch(n);
                                    t
                                })
                            }
                            _ => Some(t.clone()),
                        })
                        .collect();
                    let mut b = Vec::new();
                    type_annotations::write(&kept, &off, &mut b);
                    (*name_index, b)
                }
                CodeAttr::StackMapTable { name_index, data }
                | CodeAttr::Other { name_index, data } => (*name_index, data.clone()),
            };
            out.extend_from_slice(&name_index.to_be_bytes());
            out.extend_from_slice(&(body.len() as u32).to_be_bytes());
            out.extend_from_slice(&body);
        }
        let len = (out.len() - start - 6) as u32;
        out[start + 2..start + 6].copy_from_slice(&len.to_be_bytes());
        Ok(())
    }

    /// Replaces the `StackMapTable` attribute's contents (adding the attribute if
    /// there is none), or removes it when `data` is `None`.
    pub fn set_stack_map(&mut self, name_index: u16, data: Option<Vec<u8>>) {
        let pos = self
            .attributes
            .iter()
            .position(|a| matches!(a, CodeAttr::StackMapTable { .. }));
        match (pos, data) {
            (Some(p), Some(data)) => {
                self.attributes[p] = CodeAttr::StackMapTable { name_index, data }
            }
            (None, Some(data)) => self
                .attributes
                .push(CodeAttr::StackMapTable { name_index, data }),
            (Some(p), None) => {
                self.attributes.remove(p);
            }
            (None, None) => {}
        }
    }
}

fn pad(out: &mut Vec<u8>) {
    while !out.len().is_multiple_of(4) {
        out.push(0);
    }
}

/// Every label used by an instruction or table must be placed in the list.
fn check_labels(code: &Code, layout: &Layout) -> Result<()> {
    let placed = |l: Label| {
        layout
            .label_offsets
            .get(l.0 as usize)
            .is_some_and(|o| *o != u32::MAX)
    };
    for insn in code.insns.iter().filter(|i| i.is_branch()) {
        for t in insn.targets() {
            if !placed(t) {
                return Err(Error::malformed(
                    None,
                    format!("branch to label {} that is not placed in the code", t.0),
                ));
            }
        }
    }
    for h in &code.handlers {
        for l in [h.start, h.end, h.handler] {
            if !placed(l) {
                return Err(Error::malformed(
                    None,
                    format!("exception handler uses label {} that is not placed", l.0),
                ));
            }
        }
    }
    Ok(())
}
