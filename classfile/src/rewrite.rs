//! Whole-class rewrites built from the pieces of this crate: re-encoding every
//! method body through the label list, with or without recomputing its frames.
//! They exercise the engine on real classes (the `major check` command and the
//! corpus tests use them) and are the template for transformations.

use crate::class_reader::{ClassFile, CodeAttribute, ACC_STATIC};
use crate::class_writer::{method_with_code, write_class, ClassEdit};
use crate::code::Code;
use crate::code::Insn;
use crate::error::{Error, Result};
use crate::frames::{self, MethodContext};
use crate::hierarchy::ClassHierarchy;
use crate::kept_frames::{self, Snapshot};
use crate::pool_builder::PoolBuilder;

/// What [`reencode_class`] does to each method body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Decode and encode only; the result must equal the input (checked).
    Identity,
    /// Decode, drop the StackMapTable, recompute frames, max_stack and
    /// max_locals, encode.
    Reframe,
    /// Decode, insert code, keep the original frames where
    /// [`kept_frames::compute_keeping`] can (else recompute them), encode.
    /// Exercises frame keeping on real code: every other method with frames
    /// gets guards as full coverage weaves them (a decision in a new local on
    /// entry, then `iload; ifne skip; aconst_null; pop; skip:` before the first
    /// and the last instruction), whose frames are pinned; the others a
    /// stack-neutral run (a `long` through a new local, then `aconst_null;
    /// pop`) before every third instruction, whose frames are moved.
    KeepFrames,
}

/// Statistics of one rewritten class.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stats {
    /// Method bodies processed.
    pub methods: usize,
    /// Bytes of bytecode processed.
    pub code_bytes: usize,
    /// Methods whose original frames were kept ([`Mode::KeepFrames`]), moved
    /// or pinned.
    pub kept: usize,
    /// Of those, the methods whose frames were pinned (computed only after the
    /// inserted guards).
    pub pinned: usize,
}

/// Decodes and re-encodes every method body of `bytes` in `mode`; returns the new
/// class file. In [`Mode::Identity`], a method whose `Code` attribute does not come
/// back byte-identical is an error naming it.
pub fn reencode_class(
    bytes: &[u8],
    mode: Mode,
    hierarchy: &dyn ClassHierarchy,
) -> Result<(Vec<u8>, Stats)> {
    let class = ClassFile::parse(bytes)?;
    let class_name = class.name()?.into_owned();
    let mut edit = ClassEdit::new(&class);
    let mut stats = Stats::default();
    for (mi, m) in class.methods.iter().enumerate() {
        let Some(attr) = m.attribute("Code") else {
            continue;
        };
        let name = class.member_name(m)?;
        let desc = class.member_descriptor(m)?;
        let ctx_err = |e: Error| e.in_method(&name, &desc).in_class(class_name.as_str());
        let parsed = CodeAttribute::parse(attr, &class.pool).map_err(ctx_err)?;
        stats.methods += 1;
        stats.code_bytes += parsed.code.len();
        let mut code = Code::decode(&parsed, &class.pool).map_err(ctx_err)?;
        let code_name = attr.name_index;
        match mode {
            Mode::Identity => {
                let layout = code.layout();
                let mut out = Vec::with_capacity(attr.total_len());
                code.write_attribute(code_name, &layout, &mut out)
                    .map_err(ctx_err)?;
                let original = &class.bytes[attr.offset..attr.offset + attr.total_len()];
                if out != original {
                    let at = out
                        .iter()
                        .zip(original)
                        .position(|(a, b)| a != b)
                        .unwrap_or(out.len().min(original.len()));
                    return Err(ctx_err(Error::malformed(
                        attr.offset + at,
                        format!("re-encoded Code attribute differs from the original at byte {at} of {}", original.len()),
                    )));
                }
            }
            Mode::Reframe | Mode::KeepFrames => {
                let ctx = MethodContext {
                    class_name: &class_name,
                    name: &name,
                    descriptor: &desc,
                    is_static: m.access & ACC_STATIC != 0,
                    major_version: class.major_version,
                };
                // HotSpot takes `Object.<init>` to be a bare `return` (and crashes
                // at start-up otherwise), so it gets no inserted code.
                if mode == Mode::KeepFrames && class_name != "java/lang/Object" {
                    let before = Snapshot::of(&code).pinning_always();
                    // Guards where the original has frames to pin, every
                    // other such method.
                    let has_frames = code
                        .attributes
                        .iter()
                        .any(|a| matches!(a, crate::code::CodeAttr::StackMapTable { .. }));
                    if has_frames && mi % 2 == 1 {
                        insert_guards(&mut code);
                    } else {
                        insert_neutral_runs(&mut code);
                    }
                    match kept_frames::compute_keeping(
                        &mut code,
                        &before,
                        &ctx,
                        &mut edit.pool,
                        hierarchy,
                    )? {
                        kept_frames::Framing::Moved => stats.kept += 1,
                        kept_frames::Framing::Pinned => {
                            stats.kept += 1;
                            stats.pinned += 1;
                        }
                        kept_frames::Framing::Recomputed => {}
                    }
                } else {
                    code.set_stack_map(0, None);
                    frames::compute(&mut code, &ctx, &mut edit.pool, hierarchy)?;
                }
                let layout = code.layout();
                let mut out = Vec::with_capacity(attr.total_len() + 64);
                code.write_attribute(code_name, &layout, &mut out)
                    .map_err(ctx_err)?;
                edit.methods.insert(mi, method_with_code(m, &out));
            }
        }
    }
    Ok((write_class(&class, &edit), stats))
}

/// Rewrites some method bodies of a class: for every method with code that
/// `select(name, descriptor)` picks, `transform(name, code, pool)` edits the
/// decoded body; its frames are then recomputed and it is encoded again.
/// Returns the new class file and how many methods were rewritten. The
/// template of the weaver's small whole-class rewrites (the JDK hooks of
/// full coverage, running a class with its bypass set).
pub fn transform_methods(
    bytes: &[u8],
    hierarchy: &dyn ClassHierarchy,
    select: impl Fn(&str, &str) -> bool,
    mut transform: impl FnMut(&str, &mut Code, &mut PoolBuilder<'_>) -> Result<()>,
) -> Result<(Vec<u8>, usize)> {
    let class = ClassFile::parse(bytes)?;
    let class_name = class.name()?.into_owned();
    let mut edit = ClassEdit::new(&class);
    let mut rewritten = 0;
    for (mi, m) in class.methods.iter().enumerate() {
        let Some(attr) = m.attribute("Code") else {
            continue;
        };
        let name = class.member_name(m)?;
        let desc = class.member_descriptor(m)?;
        if !select(&name, &desc) {
            continue;
        }
        let ctx_err = |e: Error| e.in_method(&name, &desc).in_class(class_name.as_str());
        let parsed = CodeAttribute::parse(attr, &class.pool).map_err(ctx_err)?;
        let mut code = Code::decode(&parsed, &class.pool).map_err(ctx_err)?;
        transform(&name, &mut code, &mut edit.pool).map_err(ctx_err)?;
        code.set_stack_map(0, None);
        let ctx = MethodContext {
            class_name: &class_name,
            name: &name,
            descriptor: &desc,
            is_static: m.access & ACC_STATIC != 0,
            major_version: class.major_version,
        };
        frames::compute(&mut code, &ctx, &mut edit.pool, hierarchy).map_err(ctx_err)?;
        let mut out = Vec::new();
        code.write_attribute(attr.name_index, &code.layout(), &mut out)
            .map_err(ctx_err)?;
        edit.methods.insert(mi, method_with_code(m, &out));
        rewritten += 1;
    }
    Ok((write_class(&class, &edit), rewritten))
}

/// Gives every method `select(name, descriptor)` picks the annotation
/// `annotation` (a type descriptor, `Lp/A;`, without elements) in its
/// `RuntimeVisibleAnnotations`, added to those it has. Returns the class
/// and the number of methods annotated.
pub fn annotate_methods(
    bytes: &[u8],
    select: impl Fn(&str, &str) -> bool,
    annotation: &str,
) -> Result<(Vec<u8>, usize)> {
    const RVA: &str = "RuntimeVisibleAnnotations";
    let class = ClassFile::parse(bytes)?;
    let mut edit = ClassEdit::new(&class);
    let type_index = edit.pool.utf8(annotation)?;
    let mut annotated = 0;
    for (mi, m) in class.methods.iter().enumerate() {
        if !select(&class.member_name(m)?, &class.member_descriptor(m)?) {
            continue;
        }
        // annotation: type_index, no element-value pairs.
        let mut one = Vec::with_capacity(4);
        one.extend_from_slice(&type_index.to_be_bytes());
        one.extend_from_slice(&0u16.to_be_bytes());
        let existing = m.attributes.iter().position(|a| a.name == RVA.as_bytes());
        let mut out = Vec::with_capacity(m.raw.len() + 16);
        out.extend_from_slice(&m.raw[..6]);
        let count = m.attributes.len() + usize::from(existing.is_none());
        out.extend_from_slice(&(count as u16).to_be_bytes());
        for (ai, a) in m.attributes.iter().enumerate() {
            if Some(ai) == existing {
                // num_annotations + 1, then the old ones and the new one.
                let n = a
                    .data
                    .get(..2)
                    .map(|b| u16::from_be_bytes([b[0], b[1]]))
                    .ok_or_else(|| {
                        Error::malformed(a.offset, "an empty RuntimeVisibleAnnotations")
                    })?;
                out.extend_from_slice(&a.name_index.to_be_bytes());
                out.extend_from_slice(&((a.data.len() + one.len()) as u32).to_be_bytes());
                out.extend_from_slice(&(n + 1).to_be_bytes());
                out.extend_from_slice(&a.data[2..]);
                out.extend_from_slice(&one);
            } else {
                let s = a.offset - m.offset;
                out.extend_from_slice(&m.raw[s..s + a.total_len()]);
            }
        }
        if existing.is_none() {
            out.extend_from_slice(&edit.pool.utf8(RVA)?.to_be_bytes());
            out.extend_from_slice(&(2 + one.len() as u32).to_be_bytes());
            out.extend_from_slice(&1u16.to_be_bytes());
            out.extend_from_slice(&one);
        }
        edit.methods.insert(mi, out);
        annotated += 1;
    }
    Ok((write_class(&class, &edit), annotated))
}

/// Puts `lconst_0; lstore n; lload n; pop2; aconst_null; pop` (with `n` a new
/// local) right before every third instruction, after its labels.
fn insert_neutral_runs(code: &mut Code) {
    let n = code.max_locals;
    let run = [
        Insn::Simple(9), // lconst_0
        Insn::Local {
            op: 55, // lstore
            index: n,
            wide: n > 255,
        },
        Insn::Local {
            op: 22, // lload
            index: n,
            wide: n > 255,
        },
        Insn::Simple(88), // pop2
        Insn::Simple(1),  // aconst_null
        Insn::Simple(87), // pop
    ];
    let mut out = Vec::with_capacity(code.insns.len() * 3);
    let mut seen = 0;
    for insn in code.insns.drain(..) {
        if !matches!(insn, Insn::Label(_)) {
            if seen % 3 == 0 {
                out.extend(run.iter().cloned());
            }
            seen += 1;
        }
        out.push(insn);
    }
    code.insns = out;
}

/// Puts a bypass decision into a new local `d` on entry (`iconst_0; istore
/// d`), and `iload d; ifne skip; aconst_null; pop; skip:` right before the
/// first instruction and before the last one, after their labels: the shape of
/// full coverage's guards at an execution's before and after advice. Used by
/// [`Mode::KeepFrames`] and by tests of the pinned frames.
pub fn insert_guards(code: &mut Code) {
    let d = code.max_locals;
    let real: Vec<usize> = (0..code.insns.len())
        .filter(|&i| !matches!(code.insns[i], Insn::Label(_)))
        .collect();
    let (Some(&first), Some(&last)) = (real.first(), real.last()) else {
        return;
    };
    let mut out = Vec::with_capacity(code.insns.len() + 12);
    out.push(Insn::Simple(3)); // iconst_0
    out.push(Insn::Local {
        op: 54, // istore
        index: d,
        wide: d > 255,
    });
    let old = std::mem::take(&mut code.insns);
    for (i, insn) in old.into_iter().enumerate() {
        if i == first || i == last {
            let skip = code.new_label();
            out.extend([
                Insn::Local {
                    op: 21, // iload
                    index: d,
                    wide: d > 255,
                },
                Insn::Jump {
                    op: 154, // ifne
                    target: skip,
                },
                Insn::Simple(1),  // aconst_null
                Insn::Simple(87), // pop
                Insn::Label(skip),
            ]);
        }
        out.push(insn);
    }
    code.insns = out;
}
