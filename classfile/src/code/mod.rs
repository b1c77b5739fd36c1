//! The label-based instruction list that method bodies are rewritten in.
//!
//! [`Code::decode`] turns a `Code` attribute into a list of [`Insn`]s in which every
//! branch target, exception range, line number, local-variable range and
//! type-annotation offset is a [`Label`]; inserting or removing instructions never
//! means fixing offsets by hand. [`Code::layout`] assigns offsets again (widening
//! branches that outgrow 16 bits) and writes the `Code` attribute back. Decoding
//! and then encoding unchanged code gives back the same bytes.

mod decode;
mod encode;
mod type_annotations;

pub use decode::any_opcode;
pub(crate) use encode::layout_of;
pub use encode::{Layout, MAX_CODE_LEN};
pub(crate) use type_annotations::skip_annotation;
pub use type_annotations::{TypeAnnotation, TypeAnnotationTarget};

/// A position in the instruction list. Labels are numbered per [`Code`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label(pub u32);

/// One instruction, or a label marking a position.
///
/// Operand forms are kept as decoded (`ldc` vs `ldc_w`, `wide`, `goto_w`) so that
/// unchanged code encodes to the same bytes; the encoder upgrades a form only when
/// its operand no longer fits.
#[allow(missing_docs)] // operand fields are named after the JVMS operands
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Insn {
    /// The position of a label (not an instruction).
    Label(Label),
    /// An instruction without operands (including `iload_0` and friends).
    Simple(u8),
    /// `xload`/`xstore`/`ret` with an explicit index; `wide` if it was (or must be) `wide`.
    Local { op: u8, index: u16, wide: bool },
    /// `iinc`.
    Iinc { index: u16, delta: i16, wide: bool },
    /// `bipush` or `sipush`.
    Push { op: u8, value: i16 },
    /// `ldc` (`wide == false`) or `ldc_w`.
    Ldc { index: u16, wide: bool },
    /// An instruction with a `u2` constant-pool operand: `ldc2_w`, field access,
    /// `invokevirtual`/`special`/`static`, `new`, `anewarray`, `checkcast`, `instanceof`.
    Cp { op: u8, index: u16 },
    /// `invokeinterface` with its count byte.
    InvokeInterface { index: u16, count: u8 },
    /// `invokedynamic`.
    InvokeDynamic { index: u16 },
    /// `newarray` with its primitive type code.
    NewArray { atype: u8 },
    /// `multianewarray`.
    MultiANewArray { index: u16, dims: u8 },
    /// A branch (`if*`, `goto`, `jsr`, `goto_w`, `jsr_w`).
    Jump { op: u8, target: Label },
    /// `tableswitch`.
    TableSwitch {
        default: Label,
        low: i32,
        targets: Vec<Label>,
    },
    /// `lookupswitch`.
    LookupSwitch {
        default: Label,
        pairs: Vec<(i32, Label)>,
    },
}

impl Insn {
    /// The opcode byte (`None` for a label).
    pub fn opcode(&self) -> Option<u8> {
        use crate::opcodes::op;
        Some(match self {
            Insn::Label(_) => return None,
            Insn::Simple(o)
            | Insn::Local { op: o, .. }
            | Insn::Push { op: o, .. }
            | Insn::Cp { op: o, .. }
            | Insn::Jump { op: o, .. } => *o,
            Insn::Iinc { .. } => op::IINC,
            Insn::Ldc { wide, .. } => {
                if *wide {
                    op::LDC_W
                } else {
                    op::LDC
                }
            }
            Insn::InvokeInterface { .. } => op::INVOKEINTERFACE,
            Insn::InvokeDynamic { .. } => op::INVOKEDYNAMIC,
            Insn::NewArray { .. } => op::NEWARRAY,
            Insn::MultiANewArray { .. } => op::MULTIANEWARRAY,
            Insn::TableSwitch { .. } => op::TABLESWITCH,
            Insn::LookupSwitch { .. } => op::LOOKUPSWITCH,
        })
    }

    /// Whether this instruction branches or switches (has
    /// [`targets`](Self::targets)); cheaper to ask than the targets.
    #[inline]
    pub fn is_branch(&self) -> bool {
        matches!(
            self,
            Insn::Jump { .. } | Insn::TableSwitch { .. } | Insn::LookupSwitch { .. }
        )
    }

    /// Every label this instruction may branch to.
    pub fn targets(&self) -> Targets<'_> {
        let (first, table, pairs): (_, &[Label], &[(i32, Label)]) = match self {
            Insn::Jump { target, .. } => (Some(*target), &[], &[]),
            Insn::TableSwitch {
                default, targets, ..
            } => (Some(*default), targets, &[]),
            Insn::LookupSwitch { default, pairs } => (Some(*default), &[], pairs),
            _ => (None, &[], &[]),
        };
        Targets {
            first,
            table: table.iter(),
            pairs: pairs.iter(),
        }
    }
}

/// The labels an instruction may branch to: see [`Insn::targets`].
#[derive(Debug, Clone)]
pub struct Targets<'a> {
    first: Option<Label>,
    table: std::slice::Iter<'a, Label>,
    pairs: std::slice::Iter<'a, (i32, Label)>,
}

impl Iterator for Targets<'_> {
    type Item = Label;
    fn next(&mut self) -> Option<Label> {
        if let Some(l) = self.first.take() {
            return Some(l);
        }
        self.table
            .next()
            .copied()
            .or_else(|| self.pairs.next().map(|p| p.1))
    }
}

/// One exception-table row, with labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handler {
    /// Start of the protected range.
    pub start: Label,
    /// End of the protected range (exclusive).
    pub end: Label,
    /// The handler code.
    pub handler: Label,
    /// Caught class (constant-pool index), 0 for any.
    pub catch_type: u16,
}

/// A `LocalVariableTable` or `LocalVariableTypeTable` row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalVariable {
    /// Start of the live range.
    pub start: Label,
    /// End of the live range (exclusive).
    pub end: Label,
    /// Name (constant-pool index).
    pub name: u16,
    /// Descriptor, or signature for the type table (constant-pool index).
    pub descriptor: u16,
    /// Local slot.
    pub index: u16,
}

/// An attribute of the `Code` attribute, in file order.
#[allow(missing_docs)] // fields are named after the attribute's own fields
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodeAttr {
    /// `LineNumberTable`.
    LineNumbers {
        name_index: u16,
        entries: Vec<(Label, u16)>,
    },
    /// `LocalVariableTable` (`types == false`) or `LocalVariableTypeTable`.
    LocalVariables {
        name_index: u16,
        types: bool,
        entries: Vec<LocalVariable>,
    },
    /// The original `StackMapTable`, raw; replaced whenever frames are recomputed.
    StackMapTable { name_index: u16, data: Vec<u8> },
    /// `RuntimeVisibleTypeAnnotations` / `RuntimeInvisibleTypeAnnotations`.
    TypeAnnotations {
        name_index: u16,
        visible: bool,
        entries: Vec<TypeAnnotation>,
    },
    /// Any other attribute, raw. Kept on encode: the engine cannot know whether it
    /// holds code offsets, so callers that change code may want to drop these.
    Other { name_index: u16, data: Vec<u8> },
}

/// A decoded method body.
#[derive(Debug, Clone)]
pub struct Code {
    /// `max_stack` as read (recomputed by the frame computation).
    pub max_stack: u16,
    /// `max_locals` as read (recomputed by the frame computation).
    pub max_locals: u16,
    /// Instructions and labels.
    pub insns: Vec<Insn>,
    /// The exception table.
    pub handlers: Vec<Handler>,
    /// The Code attribute's attributes.
    pub attributes: Vec<CodeAttr>,
    /// Bytecode offset each label had when decoded (`None` for labels made later).
    origins: Vec<Option<u32>>,
}

impl Code {
    /// An empty body, to be filled with instructions (for methods made from scratch).
    pub fn empty() -> Code {
        Code {
            max_stack: 0,
            max_locals: 0,
            insns: Vec::new(),
            handlers: Vec::new(),
            attributes: Vec::new(),
            origins: Vec::new(),
        }
    }

    /// An empty body that shares this body's label numbering, so that
    /// instructions and labels can move from this body into it (extracting code
    /// into a new method).
    pub fn sibling(&self) -> Code {
        Code {
            max_stack: 0,
            max_locals: 0,
            insns: Vec::new(),
            handlers: Vec::new(),
            attributes: Vec::new(),
            origins: self.origins.clone(),
        }
    }

    /// Drops table entries (line numbers, local variables, type annotations) that
    /// name labels no longer placed in the body, e.g. after code moved out.
    pub fn prune_tables(&mut self) {
        let mut placed = vec![false; self.origins.len()];
        for i in &self.insns {
            if let Insn::Label(l) = i {
                placed[l.0 as usize] = true;
            }
        }
        let placed = |l: &Label| placed.get(l.0 as usize).copied().unwrap_or(false);
        for a in &mut self.attributes {
            match a {
                CodeAttr::LineNumbers { entries, .. } => entries.retain(|(l, _)| placed(l)),
                CodeAttr::LocalVariables { entries, .. } => {
                    entries.retain(|v| placed(&v.start) && placed(&v.end))
                }
                CodeAttr::TypeAnnotations { entries, .. } => entries.retain(|t| match &t.target {
                    TypeAnnotationTarget::LocalVar(r) => {
                        r.iter().all(|(s, e, _)| placed(s) && placed(e))
                    }
                    TypeAnnotationTarget::Offset(l) | TypeAnnotationTarget::TypeArgument(l, _) => {
                        placed(l)
                    }
                    TypeAnnotationTarget::Catch(_) => true,
                }),
                _ => {}
            }
        }
    }

    /// Gives the labels decoded offsets, as [`Code::decode`] would (tests
    /// build bodies by hand).
    #[cfg(test)]
    pub(crate) fn set_origins(&mut self, origins: Vec<Option<u32>>) {
        self.origins = origins;
    }

    /// A new, unused label.
    pub fn new_label(&mut self) -> Label {
        self.origins.push(None);
        Label(self.origins.len() as u32 - 1)
    }
    /// Number of labels allocated.
    pub fn label_count(&self) -> usize {
        self.origins.len()
    }
    /// The original bytecode offset of `label`, if it came from decoding.
    pub fn origin(&self, label: Label) -> Option<u32> {
        self.origins.get(label.0 as usize).copied().flatten()
    }
    /// The original offset of instruction `i` (from the closest preceding decoded label),
    /// for error messages.
    pub fn origin_near(&self, i: usize) -> Option<u32> {
        self.insns[..=i.min(self.insns.len().saturating_sub(1))]
            .iter()
            .rev()
            .find_map(|x| match x {
                Insn::Label(l) => self.origin(*l),
                _ => None,
            })
    }
}
