//! Keeping a body's original `StackMapTable` when the body only gained
//! straight-line, stack-neutral code.
//!
//! Most woven methods change in the simplest way: a few instructions that call
//! advice go in between original instructions (`aspectOf(); advice()` at the
//! start of a method). Such an insertion changes no verification type at any
//! original instruction, so the original frames still hold at every original
//! branch target; only their offsets move. [`compute_keeping`] checks that a
//! body is of that kind and then re-encodes the original frames at the new
//! offsets, which is much cheaper than the data-flow analysis of
//! [`frames::compute`]. Any other change falls back to that analysis.
//!
//! A body qualifies when, against its [`Snapshot`] taken before the change:
//! * every original instruction and label is still there, in the same order, and
//!   the exception table is the same;
//! * every inserted instruction is part of a run that neither branches nor
//!   leaves the method, pops nothing it did not push itself (but may `dup`
//!   the value on top of the stack where it starts: a copy that leaves the
//!   value in place; whoever inserts it makes sure that value is of one
//!   slot, as the verifier requires), ends at the stack
//!   height it started with, stores only into new locals (at or above the
//!   original `max_locals`) and reads new locals only after storing them in the
//!   same run, and creates no object (`new`);
//! * no branch was widened, and every branch target still has a frame.

use crate::code::{Code, CodeAttr, Handler, Insn, Label, Layout};
use crate::constant_pool::Constant;
use crate::descriptor;
use crate::error::Result;
use crate::frames::{self, MethodContext};
use crate::hierarchy::ClassHierarchy;
use crate::opcodes::{flow, op, short_form, Flow};
use crate::pool_builder::PoolBuilder;

/// What [`compute_keeping`] needs of a body before it changes.
#[derive(Debug, Clone)]
pub struct Snapshot {
    insns: Vec<Insn>,
    handlers: Vec<Handler>,
    label_count: usize,
    max_stack: u16,
    max_locals: u16,
    stack_map: Option<Vec<u8>>,
    min_skipped_percent: usize,
}

impl Snapshot {
    /// Records `code` as it is now (freshly decoded, with its original frames).
    pub fn of(code: &Code) -> Snapshot {
        let stack_map = code.attributes.iter().find_map(|a| match a {
            CodeAttr::StackMapTable { data, .. } => Some(data.clone()),
            _ => None,
        });
        Snapshot {
            insns: code.insns.clone(),
            handlers: code.handlers.clone(),
            label_count: code.label_count(),
            max_stack: code.max_stack,
            max_locals: code.max_locals,
            stack_map,
            min_skipped_percent: frames::MIN_SKIPPED_PERCENT,
        }
    }

    /// The same snapshot, for frames pinned wherever possible, even where
    /// the full analysis would cost less (tests of the pinned frames).
    pub fn pinning_always(self) -> Snapshot {
        Snapshot {
            min_skipped_percent: 0,
            ..self
        }
    }
}

/// How [`compute_keeping`] framed a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// The original frames, moved to their new offsets.
    Moved,
    /// The original frames kept, frames computed only where code changed
    /// ([`frames::compute_pinned`]).
    Pinned,
    /// Every frame recomputed ([`frames::compute`]).
    Recomputed,
}

/// Like [`frames::compute`], but keeps the original frames (moved to their new
/// offsets) when `code` differs from `before` only by inserted straight-line,
/// stack-neutral code (see the module documentation); else keeps them where
/// the code did not change and computes the rest ([`compute_pinned`]); else
/// recomputes them all.
pub fn compute_keeping(
    code: &mut Code,
    before: &Snapshot,
    ctx: &MethodContext<'_>,
    pool: &mut PoolBuilder<'_>,
    hierarchy: &dyn ClassHierarchy,
) -> Result<Framing> {
    Ok(compute_keeping_with_layout(code, before, ctx, pool, hierarchy)?.0)
}

/// [`compute_keeping`], also giving the layout the StackMapTable was
/// encoded with: the body's final layout, for writing it
/// ([`Code::write_attribute`]) while it stays unchanged, without laying it
/// out once more.
pub fn compute_keeping_with_layout(
    code: &mut Code,
    before: &Snapshot,
    ctx: &MethodContext<'_>,
    pool: &mut PoolBuilder<'_>,
    hierarchy: &dyn ClassHierarchy,
) -> Result<(Framing, Layout)> {
    if let Some(layout) = try_keep(code, before, ctx, pool)? {
        return Ok((Framing::Moved, layout));
    }
    compute_pinned_with_layout(code, before, ctx, pool, hierarchy)
}

/// [`frames::compute_pinned`] with the original body `before`, else
/// [`frames::compute`]: for bodies that gained branches of their own (the
/// guards of full coverage), which [`compute_keeping`]'s first step never
/// keeps.
pub fn compute_pinned(
    code: &mut Code,
    before: &Snapshot,
    ctx: &MethodContext<'_>,
    pool: &mut PoolBuilder<'_>,
    hierarchy: &dyn ClassHierarchy,
) -> Result<Framing> {
    Ok(compute_pinned_with_layout(code, before, ctx, pool, hierarchy)?.0)
}

/// [`compute_pinned`], also giving the layout the StackMapTable was encoded
/// with (see [`compute_keeping_with_layout`]).
pub fn compute_pinned_with_layout(
    code: &mut Code,
    before: &Snapshot,
    ctx: &MethodContext<'_>,
    pool: &mut PoolBuilder<'_>,
    hierarchy: &dyn ClassHierarchy,
) -> Result<(Framing, Layout)> {
    let original = frames::Original {
        insns: &before.insns,
        handlers: &before.handlers,
        stack_map: before.stack_map.as_deref(),
        max_stack: before.max_stack,
        max_locals: before.max_locals,
        min_skipped_percent: before.min_skipped_percent,
    };
    match frames::compute_pinned_with_layout(code, ctx, pool, hierarchy, &original)? {
        Some((true, layout)) => return Ok((Framing::Pinned, layout)),
        Some((false, layout)) => return Ok((Framing::Recomputed, layout)),
        None => {}
    }
    code.set_stack_map(0, None);
    let layout = frames::compute_with_layout(code, ctx, pool, hierarchy)?;
    Ok((Framing::Recomputed, layout))
}

/// An inserted run of instructions being checked.
#[derive(Default)]
struct Run {
    /// Stack height (in slots) above the run's start.
    height: usize,
    /// Highest `height` reached.
    peak: usize,
    /// New locals stored in this run.
    stored: Vec<u16>,
    /// Whether the run comes before the first original instruction.
    at_entry: bool,
}

fn try_keep(
    code: &mut Code,
    before: &Snapshot,
    ctx: &MethodContext<'_>,
    pool: &mut PoolBuilder<'_>,
) -> Result<Option<Layout>> {
    if code.handlers != before.handlers {
        return Ok(None);
    }
    if ctx.major_version >= 50 && before.stack_map.is_none() && has_targets(&before.insns) {
        return Ok(None);
    }
    let old_locals = before.max_locals;
    // Align: `image[j]` is where original item `j` is now.
    let mut image = Vec::with_capacity(before.insns.len());
    let mut j = 0;
    let mut run: Option<Run> = None;
    let mut max_stack = usize::from(before.max_stack);
    let mut max_locals = usize::from(before.max_locals);
    let mut seen_original_insn = false;
    // Whether the last instruction falls through to what follows.
    let mut falls = true;
    // Runs that start after an instruction that does not fall through (dead
    // code unless a frame is there).
    let mut needs_frame = Vec::new();
    for (i, insn) in code.insns.iter().enumerate() {
        let was_falling = falls;
        if let Some(o) = insn.opcode() {
            falls = matches!(flow(o), Flow::Next | Flow::Conditional);
        }
        if before.insns.get(j) == Some(insn) {
            if let Some(r) = run.take() {
                if r.height != 0 {
                    return Ok(None);
                }
                let base = if r.at_entry { 0 } else { before.max_stack };
                max_stack = max_stack.max(usize::from(base) + r.peak);
            }
            seen_original_insn |= !matches!(insn, Insn::Label(_));
            image.push(i);
            j += 1;
            continue;
        }
        if matches!(insn, Insn::Label(_)) {
            continue; // a label of the weaver's (checked below not to be a target)
        }
        let r = run.get_or_insert_with(|| {
            if !was_falling {
                needs_frame.push(i);
            }
            Run {
                at_entry: !seen_original_insn,
                ..Run::default()
            }
        });
        match check_inserted(insn, r, old_locals, pool)? {
            Some(top) => max_locals = max_locals.max(top),
            None => return Ok(None),
        }
    }
    if j != before.insns.len() {
        return Ok(None);
    }
    if run.is_some() {
        // Code after the last original instruction is never reached by
        // falling through; a run there would have to end the method, which
        // runs do not.
        return Ok(None);
    }
    // Inserted labels must not be branch targets.
    for t in targets(&code.insns, &code.handlers) {
        if code.origin(t).is_none() {
            return Ok(None);
        }
    }
    let (widened, layout) = code.widen_jumps_with_layout()?;
    if widened {
        return Ok(None);
    }
    if layout.code_len > crate::code::MAX_CODE_LEN {
        return Ok(None); // frames::compute reports it
    }
    if ctx.major_version >= 50 {
        if let Some(old) = &before.stack_map {
            let new_offset = |j: usize| layout.insn_offsets[image[j]];
            let Some((data, frame_offsets)) = moved_frames(old, before, &new_offset)? else {
                return Ok(None);
            };
            let all_framed = targets(&code.insns, &code.handlers)
                .map(|t| layout.offset(t))
                .chain(needs_frame.iter().map(|&i| layout.insn_offsets[i]))
                .all(|o| frame_offsets.binary_search(&o).is_ok());
            if !all_framed {
                return Ok(None);
            }
            let name = pool.utf8("StackMapTable")?;
            code.set_stack_map(name, Some(data));
        } else if !needs_frame.is_empty() {
            return Ok(None);
        } else {
            code.set_stack_map(0, None);
        }
    } else {
        code.set_stack_map(0, None);
    }
    if max_stack > 0xFFFF || max_locals > 0xFFFF {
        return Ok(None);
    }
    code.max_stack = max_stack as u16;
    code.max_locals = max_locals as u16;
    Ok(Some(layout))
}

/// Checks one inserted instruction against the rules of its run. Returns the
/// number of locals it needs (0 if none), or `None` if it breaks a rule.
fn check_inserted(
    insn: &Insn,
    r: &mut Run,
    old_locals: u16,
    pool: &PoolBuilder<'_>,
) -> Result<Option<usize>> {
    let Some(opc) = insn.opcode() else {
        return Ok(Some(0)); // a label of the weaver's (checked not to be a target)
    };
    if !matches!(flow(opc), Flow::Next) || opc == op::NEW || opc == op::RET {
        return Ok(None);
    }
    // Locals: stores only into new locals; new locals read only once stored here.
    let local = match insn {
        Insn::Local { op, index, .. } => Some((*op, *index)),
        Insn::Simple(o) => short_form(*o),
        Insn::Iinc { index, .. } => Some((op::ISTORE, *index)), // reads and writes
        _ => None,
    };
    let mut needs = 0;
    if let Some((base, index)) = local {
        let wide = matches!(base, 22 | 24 | 55 | 57); // lload dload lstore dstore
        let size = if wide { 2 } else { 1 };
        let is_store = (op::ISTORE..=op::ASTORE).contains(&base);
        if matches!(insn, Insn::Iinc { .. }) {
            if index < old_locals || !r.stored.contains(&index) {
                return Ok(None);
            }
        } else if is_store {
            if index < old_locals {
                return Ok(None);
            }
            r.stored.push(index);
            if wide {
                r.stored.push(index + 1);
            }
        } else if index >= old_locals && !r.stored.contains(&index) {
            return Ok(None);
        }
        needs = usize::from(index) + size;
    }
    let Some((pops, pushes)) = stack_effect(insn, pool)? else {
        return Ok(None);
    };
    if opc == op::DUP && r.height == 0 {
        // A copy of the original value on top, which stays in place.
        r.height = 1;
        r.peak = r.peak.max(1);
        return Ok(Some(needs));
    }
    if pops > r.height {
        return Ok(None);
    }
    r.height = r.height - pops + pushes;
    r.peak = r.peak.max(r.height);
    Ok(Some(needs))
}

/// Slots an instruction pops and pushes; `None` for what runs may not hold
/// (branches, switches, `new` and the like are not looked at).
pub(crate) fn stack_effect(insn: &Insn, pool: &PoolBuilder<'_>) -> Result<Option<(usize, usize)>> {
    let opc = insn.opcode().expect("not a label");
    if let Some((pops, pushes)) = crate::opcodes::slot_effect(opc) {
        return Ok(Some((usize::from(pops), usize::from(pushes))));
    }
    let field = |d: &str| descriptor::slots(d);
    Ok(Some(match insn {
        Insn::Ldc { index, .. } => match pool.constant(*index)? {
            Constant::Dynamic(..) => (0, field(&pool.dynamic(*index)?.1)),
            _ => (0, 1),
        },
        Insn::Cp {
            op: op::LDC2_W,
            index,
        } => match pool.constant(*index)? {
            Constant::Dynamic(..) => (0, field(&pool.dynamic(*index)?.1)),
            _ => (0, 2),
        },
        Insn::Local { op, .. } => match op {
            22 | 24 => (0, 2),      // lload dload
            21 | 23 | 25 => (0, 1), // iload fload aload
            55 | 57 => (2, 0),      // lstore dstore
            54 | 56 | 58 => (1, 0), // istore fstore astore
            _ => return Ok(None),
        },
        Insn::Simple(o) => match (short_form(*o), *o) {
            (Some((base, _)), _) => match base {
                22 | 24 => (0, 2),
                21 | 23 | 25 => (0, 1),
                55 | 57 => (2, 0),
                _ => (1, 0),
            },
            (None, op::AALOAD) => (2, 1),
            (None, op::DUP) => (1, 2),
            (None, op::DUP_X1) => (2, 3),
            (None, op::DUP_X2) => (3, 4),
            (None, op::DUP2) => (2, 4),
            (None, op::DUP2_X1) => (3, 5),
            (None, op::DUP2_X2) => (4, 6),
            (None, op::SWAP) => (2, 2),
            _ => return Ok(None),
        },
        Insn::Cp { op: o, index } => match *o {
            op::GETSTATIC => (0, pool.member_slots(*index)?.1),
            op::PUTSTATIC => (pool.member_slots(*index)?.1, 0),
            op::GETFIELD => (1, pool.member_slots(*index)?.1),
            op::PUTFIELD => (1 + pool.member_slots(*index)?.1, 0),
            op::INVOKEVIRTUAL | op::INVOKESPECIAL | op::INVOKESTATIC => {
                let (args, ret) = pool.member_slots(*index)?;
                (args + usize::from(*o != op::INVOKESTATIC), ret)
            }
            op::ANEWARRAY | op::CHECKCAST => (1, 1),
            _ => return Ok(None),
        },
        Insn::InvokeInterface { index, .. } => {
            let (args, ret) = pool.member_slots(*index)?;
            (args + 1, ret)
        }
        Insn::InvokeDynamic { index } => {
            let (_, d) = pool.dynamic(*index)?;
            let (args, ret) = descriptor::method_slots(&d)?;
            (args, descriptor::slots(ret))
        }
        Insn::NewArray { .. } => (1, 1),
        Insn::MultiANewArray { dims, .. } => (usize::from(*dims), 1),
        _ => return Ok(None),
    }))
}

/// Whether any instruction branches or switches.
fn has_targets(insns: &[Insn]) -> bool {
    insns.iter().any(Insn::is_branch)
}

/// Every label branched to, and every handler entry.
fn targets<'a>(insns: &'a [Insn], handlers: &'a [Handler]) -> impl Iterator<Item = Label> + 'a {
    insns
        .iter()
        .flat_map(|i| i.targets())
        .chain(handlers.iter().map(|h| h.handler))
}

/// Re-encodes the original `StackMapTable` `old` with every offset moved:
/// `new_offset(j)` is the new offset of original item `j`. Returns the table
/// and the new frame offsets (ascending), or `None` if the table cannot be
/// moved (malformed, or two frames would meet).
fn moved_frames(
    old: &[u8],
    before: &Snapshot,
    new_offset: &dyn Fn(usize) -> u32,
) -> Result<Option<(Vec<u8>, Vec<u32>)>> {
    let offsets = crate::code::layout_of(&before.insns, before.label_count).insn_offsets;
    // The original item at an offset: the first one there, labels first.
    let item_at = |offset: u32| -> Option<usize> {
        let j = offsets.partition_point(|&o| o < offset);
        (offsets.get(j) == Some(&offset)).then_some(j)
    };
    // The `new` instruction at an offset, for `Uninitialized(offset)`.
    let new_at = |offset: u32| -> Option<usize> {
        let mut j = item_at(offset)?;
        while let Some(Insn::Label(_)) = before.insns.get(j) {
            j += 1;
        }
        matches!(before.insns.get(j), Some(Insn::Cp { op: op::NEW, .. })).then_some(j)
    };
    let mut r = Reader { data: old, at: 0 };
    let mut out = Vec::with_capacity(old.len() + 8);
    let mut offsets = Vec::new();
    let Some(count) = r.u16() else {
        return Ok(None);
    };
    out.extend_from_slice(&count.to_be_bytes());
    let mut old_offset: Option<u32> = None;
    let mut last_new: Option<u32> = None;
    for _ in 0..count {
        let Some(kind) = r.u8() else { return Ok(None) };
        let delta = match kind {
            0..=63 => u16::from(kind),
            64..=127 => u16::from(kind - 64),
            247..=255 => match r.u16() {
                Some(d) => d,
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        let offset = match old_offset {
            None => u32::from(delta),
            Some(p) => p + u32::from(delta) + 1,
        };
        old_offset = Some(offset);
        let Some(j) = item_at(offset) else {
            return Ok(None);
        };
        let moved = new_offset(j);
        let new_delta = match last_new {
            None => moved,
            Some(p) if moved > p => moved - p - 1,
            Some(_) => return Ok(None),
        };
        last_new = Some(moved);
        offsets.push(moved);
        let Ok(d) = u16::try_from(new_delta) else {
            return Ok(None);
        };
        // Locals and stack entries that follow, by frame kind.
        let (mut locals, mut stack) = (0usize, 0usize);
        match kind {
            0..=63 | 251 => {
                if d <= 63 {
                    out.push(d as u8);
                } else {
                    out.push(251);
                    out.extend_from_slice(&d.to_be_bytes());
                }
            }
            64..=127 | 247 => {
                if d <= 63 {
                    out.push(64 + d as u8);
                } else {
                    out.push(247);
                    out.extend_from_slice(&d.to_be_bytes());
                }
                stack = 1;
            }
            248..=250 => {
                out.push(kind);
                out.extend_from_slice(&d.to_be_bytes());
            }
            252..=254 => {
                out.push(kind);
                out.extend_from_slice(&d.to_be_bytes());
                locals = usize::from(kind - 251);
            }
            _ => {
                out.push(kind);
                out.extend_from_slice(&d.to_be_bytes());
                let Some(n) = r.u16() else { return Ok(None) };
                out.extend_from_slice(&n.to_be_bytes());
                if !copy_types(&mut r, usize::from(n), &mut out, &new_at, new_offset) {
                    return Ok(None);
                }
                let Some(n) = r.u16() else { return Ok(None) };
                out.extend_from_slice(&n.to_be_bytes());
                stack = usize::from(n);
            }
        }
        if !copy_types(&mut r, locals + stack, &mut out, &new_at, new_offset) {
            return Ok(None);
        }
    }
    if r.at != old.len() {
        return Ok(None);
    }
    Ok(Some((out, offsets)))
}

/// Copies `n` verification types, moving the offsets of `Uninitialized` ones.
fn copy_types(
    r: &mut Reader<'_>,
    n: usize,
    out: &mut Vec<u8>,
    new_at: &dyn Fn(u32) -> Option<usize>,
    new_offset: &dyn Fn(usize) -> u32,
) -> bool {
    for _ in 0..n {
        let Some(tag) = r.u8() else { return false };
        out.push(tag);
        match tag {
            0..=6 => {}
            7 => match r.u16() {
                Some(c) => out.extend_from_slice(&c.to_be_bytes()),
                None => return false,
            },
            8 => {
                let Some(j) = r.u16().and_then(|o| new_at(u32::from(o))) else {
                    return false;
                };
                let Ok(o) = u16::try_from(new_offset(j)) else {
                    return false;
                };
                out.extend_from_slice(&o.to_be_bytes());
            }
            _ => return false,
        }
    }
    true
}

/// A cursor over the original table.
struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn u8(&mut self) -> Option<u8> {
        let b = *self.data.get(self.at)?;
        self.at += 1;
        Some(b)
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from(self.u8()?) << 8 | u16::from(self.u8()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `static int f(int)` as `iload_0; ireturn` (version 55, no branches).
    fn body() -> Code {
        let mut c = Code::empty();
        c.max_stack = 1;
        c.max_locals = 1;
        c.insns = vec![Insn::Simple(26), Insn::Simple(172)]; // iload_0 ireturn
        c
    }

    const CTX: MethodContext<'static> = MethodContext {
        class_name: "T",
        name: "f",
        descriptor: "(I)I",
        is_static: true,
        major_version: 55,
    };

    /// Inserts `run` before original instruction `at` and tries to keep frames.
    fn keep(at: usize, run: &[Insn]) -> Option<Code> {
        let mut code = body();
        let before = Snapshot::of(&code);
        code.insns.splice(at..at, run.iter().cloned());
        let mut pool = PoolBuilder::empty();
        try_keep(&mut code, &before, &CTX, &mut pool)
            .map(|l| l.is_some())
            .unwrap()
            .then_some(code)
    }

    const ACONST_NULL: Insn = Insn::Simple(1);
    const ICONST_0: Insn = Insn::Simple(3);
    const LCONST_0: Insn = Insn::Simple(9);
    const POP: Insn = Insn::Simple(87);
    const POP2: Insn = Insn::Simple(88);

    #[test]
    fn neutral_runs_keep_frames_and_raise_limits() {
        let c = keep(0, &[ACONST_NULL, POP]).expect("kept");
        assert_eq!((c.max_stack, c.max_locals), (1, 1));
        // A long in a new local, before the return (stack height 1 there).
        let run = [
            LCONST_0,
            Insn::Local {
                op: 55,
                index: 1,
                wide: false,
            },
            Insn::Local {
                op: 22,
                index: 1,
                wide: false,
            },
            POP2,
        ];
        let c = keep(1, &run).expect("kept");
        assert_eq!(c.max_locals, 3);
        assert_eq!(c.max_stack, 1 + 2, "the original height is not known there");
        // At the entry the height is 0.
        let c = keep(0, &run).expect("kept");
        assert_eq!(c.max_stack, 2);
    }

    #[test]
    fn a_copy_of_the_value_on_top_is_kept() {
        // Before `ireturn` the int loaded stays; its copy is popped again.
        const DUP: Insn = Insn::Simple(89);
        let c = keep(1, &[DUP, POP]).expect("kept");
        assert_eq!(c.max_stack, 2, "the original height and the copy");
        // A copy that is not consumed, or a second one, is not neutral.
        assert!(keep(1, &[DUP]).is_none());
        assert!(keep(1, &[DUP, DUP, POP]).is_none());
        // Below the run's start: refused as any pop is.
        assert!(keep(1, &[DUP, POP, POP, Insn::Simple(26)]).is_none());
    }

    #[test]
    fn other_changes_are_refused() {
        // Not stack-neutral.
        assert!(keep(0, &[ICONST_0]).is_none());
        // Pops what was there before the run.
        assert!(keep(1, &[POP, Insn::Simple(26)]).is_none());
        // Stores into an original local.
        assert!(keep(0, &[ICONST_0, Insn::Simple(59)]).is_none()); // istore_0
                                                                   // Reads a new local it did not store.
        assert!(keep(0, &[Insn::Simple(27), POP]).is_none()); // iload_1
                                                              // Branches, leaves, or creates an object.
        assert!(keep(
            0,
            &[Insn::Jump {
                op: op::GOTO,
                target: Label(0)
            }]
        )
        .is_none());
        assert!(keep(0, &[ICONST_0, Insn::Simple(172)]).is_none());
        assert!(keep(
            0,
            &[
                Insn::Cp {
                    op: op::NEW,
                    index: 1
                },
                POP
            ]
        )
        .is_none());
        // Code after the last instruction (dead, without a frame).
        assert!(keep(2, &[ACONST_NULL, POP]).is_none());
    }

    #[test]
    fn removed_or_reordered_originals_are_refused() {
        let mut code = body();
        let before = Snapshot::of(&code);
        code.insns.remove(0);
        code.insns.insert(0, Insn::Simple(27)); // iload_1 instead of iload_0
        let mut pool = PoolBuilder::empty();
        assert!(try_keep(&mut code, &before, &CTX, &mut pool)
            .unwrap()
            .is_none());
    }

    /// Frames move with their labels, and `Uninitialized` offsets follow their
    /// `new`; short frame forms become extended ones when the delta grows.
    #[test]
    fn frames_move_to_new_offsets() {
        // sipush (3 bytes), bipush (2), new (3), nop: offsets 0, 3, 5, 8.
        let before = Snapshot {
            insns: vec![
                Insn::Push { op: 17, value: 1 },
                Insn::Push { op: 16, value: 1 },
                Insn::Cp {
                    op: op::NEW,
                    index: 1,
                },
                Insn::Simple(0),
            ],
            handlers: Vec::new(),
            label_count: 0,
            max_stack: 0,
            max_locals: 0,
            stack_map: None,
            min_skipped_percent: 0,
        };
        let offsets = crate::code::layout_of(&before.insns, 0).insn_offsets;
        assert_eq!(offsets, vec![0, 3, 5, 8]);
        // Two frames: same_frame at 3, and same_locals_1_stack_item at 8 holding
        // Uninitialized(5).
        let old = [0u8, 2, 3, 64 + 4, 8, 0, 5];
        // Everything from item 1 on moves by 100 bytes.
        let moved = |j: usize| offsets[j] + if j >= 1 { 100 } else { 0 };
        let (data, frames) = moved_frames(&old, &before, &moved).unwrap().unwrap();
        assert_eq!(frames, vec![103, 108]);
        assert_eq!(data, vec![0, 2, 251, 0, 103, 64 + 4, 8, 0, 105]);
        // A malformed table is not moved.
        assert!(moved_frames(&old[..5], &before, &moved).unwrap().is_none());
    }
}
