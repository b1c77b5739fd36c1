//! Frames computed only where code was inserted: the original `StackMapTable`
//! is kept ("pinned") at every original frame point, and the data-flow
//! analysis runs only through the blocks that changed.
//!
//! A woven method gains branches of its own: the bypass decision on entry,
//! the guard at every woven shadow (`iload d; ifne bypassed`), `aspectOf()`'s
//! null check. Their targets need frames, which [`super::compute`] finds by
//! analysing the whole body again. Here the analysis takes the original frames
//! as given instead:
//!
//! * **Pinned blocks.** Every block that starts at an original label with an
//!   original frame starts from that frame: the original locals and stack, plus
//!   the new locals (at or above the original `max_locals`) that the code
//!   before the first original frame (the bypass decision) stores and no later
//!   code stores again, with the type they leave it with; any other new local
//!   is `Top` there. Every edge into a pinned block is checked, not merged: the
//!   incoming state must be assignable to the pinned frame, as the verifier
//!   requires; any doubt (an unknown class, an interface the hierarchy cannot
//!   place) gives up.
//! * **Skipped blocks.** A pinned block whose instructions are exactly the
//!   original ones from its label, that only leads to pinned blocks (by the
//!   same original edges) and that only original handlers cover, is not
//!   analysed: the original verification still holds for it, and the new
//!   locals pass through untouched.
//! * **Analysed blocks.** Everything else (the inserted code, and the original
//!   code from a pinned frame to the first inserted instruction) is analysed as
//!   in [`super::compute`], with frames merged at the inserted labels. Reading
//!   a local checks its type, since a pinned frame may say `Top` where the
//!   inserted code expected a value.
//!
//! Anything this does not cover (no original table, a frame at an offset with
//! no label, an `Uninitialized` whose `new` moved, dead code, a stack height
//! that does not fit) returns `false`, and the caller recomputes the frames.

use super::*;

/// What [`compute_pinned`] needs of a body before it changed. Labels are
/// shared with the changed body (its labels are the original ones plus new
/// ones).
#[derive(Debug, Clone, Copy)]
pub struct Original<'a> {
    /// The original instructions and labels.
    pub insns: &'a [Insn],
    /// The original exception table.
    pub handlers: &'a [Handler],
    /// The original `StackMapTable` attribute's data.
    pub stack_map: Option<&'a [u8]>,
    /// The original `max_stack`.
    pub max_stack: u16,
    /// The original `max_locals`.
    pub max_locals: u16,
    /// The share of the instructions (percent) that must lie in blocks the
    /// analysis can skip for pinning to go on; below it, the frames are
    /// computed in full ([`MIN_SKIPPED_PERCENT`] by default, 0 to pin
    /// wherever possible).
    pub min_skipped_percent: usize,
}

/// Like [`super::compute`], but keeps the original frames of `code` as they
/// were in `original` and analyses only the blocks that changed (see the module
/// documentation). Returns `Some(true)` when it kept them, `Some(false)` when
/// too little could be skipped and the frames were computed in full instead
/// (in the same pass), and `None`, with `code` still valid for
/// [`super::compute`], where it does not apply.
pub fn compute_pinned(
    code: &mut Code,
    ctx: &MethodContext<'_>,
    pool: &mut PoolBuilder<'_>,
    hierarchy: &dyn ClassHierarchy,
    original: &Original<'_>,
) -> Result<Option<bool>> {
    Ok(compute_pinned_with_layout(code, ctx, pool, hierarchy, original)?.map(|(kept, _)| kept))
}

/// [`compute_pinned`], also giving, where it applies, the layout the
/// StackMapTable was encoded with (the body's final layout; see
/// [`super::compute_with_layout`]).
pub fn compute_pinned_with_layout(
    code: &mut Code,
    ctx: &MethodContext<'_>,
    pool: &mut PoolBuilder<'_>,
    hierarchy: &dyn ClassHierarchy,
    original: &Original<'_>,
) -> Result<Option<(bool, Layout)>> {
    if ctx.major_version < 50 || original.stack_map.is_none() {
        return Ok(None);
    }
    if code
        .insns
        .iter()
        .any(|x| matches!(x.opcode(), Some(op::JSR | op::JSR_W | op::RET)))
    {
        return Ok(None);
    }
    let (_, before) = code.widen_jumps_with_layout()?;
    if before.code_len > crate::code::MAX_CODE_LEN {
        return Ok(None);
    }
    let mut kept = true;
    let finished = {
        let mut a = match Analysis::new(code, ctx, pool, hierarchy) {
            Ok(a) => a,
            Err(_) => return Ok(None),
        };
        match a.run_pinned(original) {
            Ok(Pinning::Done) => {}
            Ok(Pinning::NotWorth) => {
                // The whole analysis, as `compute` runs it.
                a.max_stack = 0;
                a.entries.iter_mut().for_each(|e| *e = None);
                if a.run().is_err() {
                    return Ok(None);
                }
                kept = false;
            }
            Ok(Pinning::Failed) | Err(_) => return Ok(None),
        }
        match a.finish() {
            Ok(f) if !f.rewritten => f,
            _ => return Ok(None),
        }
    };
    let Finished {
        frames,
        initial,
        max_stack,
        max_locals,
        mut types,
        inserted,
        ..
    } = finished;
    code.max_stack = max_stack;
    code.max_locals = max_locals;
    // Nothing was rewritten: the layout before the analysis holds, with the
    // labels it inserted.
    let layout = layout_with_inserted(before, &inserted, code.label_count());
    debug_assert!(layout == code.layout(), "derived layout differs");
    let name = pool.utf8("StackMapTable")?;
    let data = encode_frames(&frames, initial, &mut types, &layout, pool)?;
    pool.keep_frame_types(types);
    code.set_stack_map(name, if frames.is_empty() { None } else { Some(data) });
    Ok(Some((kept, layout)))
}

/// One frame of a `StackMapTable`, as verification types per slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameAt {
    /// Bytecode offset.
    pub offset: u32,
    /// Locals by slot (a long or double takes two, the second `Top`); trailing
    /// `Top`s dropped.
    pub locals: Vec<Value>,
    /// Stack by slot, bottom first.
    pub stack: Vec<Value>,
}

/// Reads the `StackMapTable` of a method body (`data`, the attribute's
/// contents) into full frames; `Uninitialized` types are `Value::Uninit` of a
/// label numbered by their offset. `pool` resolves class entries.
pub fn read_stack_map(
    data: &[u8],
    ctx: &MethodContext<'_>,
    pool: &PoolBuilder<'_>,
) -> Result<Vec<FrameAt>> {
    let mut interner = Interner::default();
    let this_id = interner.id(ctx.class_name);
    let mut initial = Vec::new();
    if !ctx.is_static {
        initial.push(if ctx.name == "<init>" && ctx.class_name != OBJECT {
            VType::UninitThis
        } else {
            VType::Object(this_id)
        });
    }
    let (params, _) = descriptor::parse_method(ctx.descriptor)?;
    for p in params {
        push_type(&mut interner, &mut initial, p);
    }
    let mut out = Vec::new();
    let bad = || Error::malformed(None, "malformed StackMapTable");
    let mut class =
        |index: u16| -> Result<VType> { Ok(VType::Object(interner.id(&pool.class_name(index)?))) };
    let mut uninit = |offset: u32| Some(Label(offset));
    decode_table(
        data,
        entries(&initial, true),
        &mut class,
        &mut uninit,
        &mut |offset, locals, stack| {
            out.push((offset, locals.to_vec(), stack.to_vec()));
            Ok(())
        },
    )?
    .ok_or_else(bad)?;
    let value = |v: &VType, names: &Interner| match *v {
        VType::Top => Value::Top,
        VType::Int => Value::Int,
        VType::Float => Value::Float,
        VType::Long => Value::Long,
        VType::Double => Value::Double,
        VType::Null => Value::Null,
        VType::UninitThis => Value::UninitThis,
        VType::Uninit(l) => Value::Uninit(l),
        VType::Object(id) => Value::Object(names.name(id).to_string()),
    };
    let slots = |e: &[VType]| -> Vec<VType> {
        let mut s = Vec::with_capacity(e.len());
        for v in e {
            s.push(*v);
            if matches!(v, VType::Long | VType::Double) {
                s.push(VType::Top);
            }
        }
        s
    };
    Ok(out
        .into_iter()
        .map(|(offset, locals, stack)| {
            let mut locals = slots(&locals);
            while locals.last() == Some(&VType::Top) {
                locals.pop();
            }
            FrameAt {
                offset,
                locals: locals.iter().map(|v| value(v, &interner)).collect(),
                stack: slots(&stack).iter().map(|v| value(v, &interner)).collect(),
            }
        })
        .collect())
}

fn push_type(interner: &mut Interner, v: &mut Vec<VType>, d: &str) {
    match d.as_bytes()[0] {
        b'Z' | b'B' | b'C' | b'S' | b'I' => v.push(VType::Int),
        b'F' => v.push(VType::Float),
        b'J' => v.push(VType::Long),
        b'D' => v.push(VType::Double),
        b'L' => v.push(VType::Object(interner.id(&d[1..d.len() - 1]))),
        _ => v.push(VType::Object(interner.id(d))),
    }
}

/// What receives each decoded frame: offset, locals, stack.
type FrameSink<'a> = dyn FnMut(u32, &[VType], &[VType]) -> Result<()> + 'a;

/// Decodes a `StackMapTable` frame by frame, calling `each(offset, locals,
/// stack)` with the frame's entries (one per value, not per slot). `initial`
/// is the implicit first frame's locals. Returns `None` if the table is
/// malformed or names an `Uninitialized` offset `uninit` does not know.
fn decode_table(
    data: &[u8],
    initial: Vec<VType>,
    class: &mut dyn FnMut(u16) -> Result<VType>,
    uninit: &mut dyn FnMut(u32) -> Option<Label>,
    each: &mut FrameSink<'_>,
) -> Result<Option<()>> {
    let mut r = Reader { data, at: 0 };
    let Some(count) = r.u16() else {
        return Ok(None);
    };
    let mut locals = initial;
    let mut stack = Vec::new();
    let mut last: Option<u32> = None;
    // One verification type.
    let mut vtype = |r: &mut Reader<'_>| -> Result<Option<VType>> {
        let Some(tag) = r.u8() else { return Ok(None) };
        Ok(Some(match tag {
            0 => VType::Top,
            1 => VType::Int,
            2 => VType::Float,
            3 => VType::Double,
            4 => VType::Long,
            5 => VType::Null,
            6 => VType::UninitThis,
            7 => match r.u16() {
                Some(c) => class(c)?,
                None => return Ok(None),
            },
            8 => match r.u16().and_then(|o| uninit(u32::from(o))) {
                Some(l) => VType::Uninit(l),
                None => return Ok(None),
            },
            _ => return Ok(None),
        }))
    };
    for _ in 0..count {
        let Some(kind) = r.u8() else { return Ok(None) };
        let delta = match kind {
            0..=127 => u32::from(kind & 63),
            247..=255 => match r.u16() {
                Some(d) => u32::from(d),
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        let offset = match last {
            None => delta,
            Some(p) => p + delta + 1,
        };
        last = Some(offset);
        stack.clear();
        match kind {
            0..=63 | 251 => {}
            64..=127 | 247 => match vtype(&mut r)? {
                Some(v) => stack.push(v),
                None => return Ok(None),
            },
            248..=250 => {
                let k = usize::from(251 - kind);
                if k > locals.len() {
                    return Ok(None);
                }
                locals.truncate(locals.len() - k);
            }
            252..=254 => {
                for _ in 0..kind - 251 {
                    match vtype(&mut r)? {
                        Some(v) => locals.push(v),
                        None => return Ok(None),
                    }
                }
            }
            _ => {
                let Some(n) = r.u16() else { return Ok(None) };
                locals.clear();
                for _ in 0..n {
                    match vtype(&mut r)? {
                        Some(v) => locals.push(v),
                        None => return Ok(None),
                    }
                }
                let Some(n) = r.u16() else { return Ok(None) };
                for _ in 0..n {
                    match vtype(&mut r)? {
                        Some(v) => stack.push(v),
                        None => return Ok(None),
                    }
                }
            }
        }
        each(offset, &locals, &stack)?;
    }
    if r.at != data.len() {
        return Ok(None);
    }
    Ok(Some(()))
}

/// A cursor over a table.
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

/// Entries (one per value) to slots, padded with `Top` to `n`; `None` if
/// they take more than `n` slots.
fn to_slots(e: &[VType], n: usize) -> Option<Vec<VType>> {
    let mut s = Vec::with_capacity(n);
    for v in e {
        s.push(*v);
        if matches!(v, VType::Long | VType::Double) {
            s.push(VType::Top);
        }
    }
    if s.len() > n {
        return None;
    }
    s.resize(n, VType::Top);
    Some(s)
}

/// Whether a local of type `v` may be read by a load or `iinc` whose
/// base opcode (`iload`.. `aload`, or `iinc`) is `base`.
fn readable(base: u8, v: VType) -> bool {
    match base {
        21 | op::IINC => v == VType::Int,
        22 => v == VType::Long,
        23 => v == VType::Float,
        24 => v == VType::Double,
        _ => v.is_ref(),
    }
}

/// The share of a body's instructions (percent) that must lie in skipped
/// blocks for the pinned analysis to run; below it, the full analysis runs
/// instead, since decoding the original table and checking the edges into
/// pinned frames cost about what analysing the few skipped blocks would. On
/// java.base woven with ObjectTracker, where constructor calls are
/// everywhere, the whole weave took 5.63 G instructions with this threshold
/// and 5.64 G pinning every method (bench/README.md, session 9).
pub const MIN_SKIPPED_PERCENT: usize = 40;

/// How [`Analysis::run_pinned`] ended.
enum Pinning {
    /// The frames are complete.
    Done,
    /// Too little to skip: nothing was analysed yet, the whole analysis can
    /// run on the same [`Analysis`] (its pinned entries cleared).
    NotWorth,
    /// It does not apply: start again with [`super::compute`].
    Failed,
}

/// Phase A of the pinned analysis: the code before the first pinned block.
struct Prefix {
    /// The first pinned block: blocks from there on are not entered.
    first: usize,
    /// The new locals merged over the edges out of the prefix.
    exit: Option<Vec<VType>>,
    /// Those edges (block, locals, stack), checked once the pinned frames
    /// are complete.
    edges: Vec<(usize, Vec<VType>, Vec<VType>)>,
}

/// The pinned analysis' bookkeeping, by block.
struct Pins {
    /// The original label whose frame pins each block (`None`: not pinned).
    label: Vec<Option<Label>>,
    /// Blocks not analysed (see the module documentation).
    skip: Vec<bool>,
}

impl Analysis<'_, '_> {
    /// Runs the pinned analysis (see the module documentation).
    fn run_pinned(&mut self, original: &Original<'_>) -> Result<Pinning> {
        let orig_max = usize::from(original.max_locals);
        self.max_locals = self.max_locals.max(orig_max);
        self.max_stack = usize::from(original.max_stack);
        let n_blocks = self.blocks.len();
        if n_blocks == 0 {
            return Ok(Pinning::Failed);
        }
        // Where each label stood in the original.
        let mut orig_pos = vec![usize::MAX; self.code.label_count()];
        for (j, insn) in original.insns.iter().enumerate() {
            if let Insn::Label(l) = insn {
                if let Some(p) = orig_pos.get_mut(l.0 as usize) {
                    *p = j;
                }
            }
        }
        // An upper bound of what can be skipped, before the original table is
        // decoded: where even that is too little, the full analysis runs.
        let needed = self.code.insns.len() * original.min_skipped_percent;
        let mut bound = 0;
        for b in 0..n_blocks {
            // Stop once the bound is enough, or once even the rest of the
            // code would not make it enough.
            let rest = self.code.insns.len() - self.blocks[b].start;
            if bound * 100 >= needed || (bound + rest) * 100 < needed {
                break;
            }
            if self.may_skip(b, original, &orig_pos) {
                bound += self.blocks[b].end - self.blocks[b].start;
            }
        }
        if bound * 100 < needed {
            return Ok(Pinning::NotWorth);
        }
        // Decoded labels by original offset (decoding numbers them in offset
        // order).
        let mut by_offset: Vec<(u32, Label)> = Vec::new();
        for l in 0..self.code.label_count() {
            if let Some(o) = self.code.origin(Label(l as u32)) {
                by_offset.push((o, Label(l as u32)));
            }
        }
        let label_at = |offset: u32| -> Option<Label> {
            let k = by_offset.partition_point(|(o, _)| *o < offset);
            by_offset
                .get(k)
                .filter(|(o, _)| *o == offset)
                .map(|(_, l)| *l)
        };
        // The original frames, at the blocks their labels start.
        let initial = entries(&self.initial_frame()?.locals, true);
        let mut decoded: Vec<(Label, Vec<VType>, Vec<VType>)> = Vec::new();
        {
            let label_pos = &self.label_pos;
            let code = &*self.code;
            let pool = self.pool;
            let interner = &mut self.types.interner;
            let mut class = |index: u16| -> Result<VType> {
                Ok(VType::Object(interner.id(&pool.class_name(index)?)))
            };
            // An `Uninitialized(offset)`: the `new` still there, by the label
            // the analysis gives it (the one right before it).
            let mut uninit = |offset: u32| -> Option<Label> {
                let p = *label_pos.get(label_at(offset)?.0 as usize)?;
                if !matches!(code.insns.get(p), Some(Insn::Cp { op: op::NEW, .. })) {
                    return None;
                }
                label_before(code, p)
            };
            let mut each = |offset: u32, locals: &[VType], stack: &[VType]| -> Result<()> {
                if let Some(l) = label_at(offset) {
                    decoded.push((l, locals.to_vec(), stack.to_vec()));
                }
                Ok(())
            };
            let Some(data) = original.stack_map else {
                return Ok(Pinning::Failed);
            };
            if decode_table(data, initial, &mut class, &mut uninit, &mut each)?.is_none() {
                return Ok(Pinning::Failed);
            }
        }
        let mut pins = Pins {
            label: vec![None; n_blocks],
            skip: vec![false; n_blocks],
        };
        let max_locals = self.max_locals;
        for (l, locals, stack) in decoded {
            let Some(&p) = self.label_pos.get(l.0 as usize) else {
                continue;
            };
            let b = match self.block_at.get(p) {
                Some(&b) if b != u32::MAX => b as usize,
                _ => continue, // no longer a block start: no frame needed
            };
            let (Some(locals), Some(stack)) = (
                to_slots(&locals, orig_max.max(entries_len(&locals))),
                to_slots(&stack, entries_len(&stack)),
            ) else {
                return Ok(Pinning::Failed);
            };
            if locals.len() > max_locals {
                return Ok(Pinning::Failed);
            }
            let mut locals = locals;
            locals.resize(max_locals, VType::Top);
            let frame = Frame { locals, stack };
            match &self.entries[b] {
                Some(f) if *f != frame => return Ok(Pinning::Failed),
                Some(_) => {}
                None => {
                    self.entries[b] = Some(frame);
                    pins.label[b] = Some(l);
                }
            }
        }
        let Some(first) = (0..n_blocks).find(|&b| pins.label[b].is_some()) else {
            return Ok(Pinning::Failed);
        };
        let prefix_end = self.blocks[first].start;
        // Which pinned blocks need no analysis. Where they are too few to pay
        // for the checks of pinning, the whole analysis runs instead.
        let mut skipped = 0;
        for b in 0..n_blocks {
            pins.skip[b] = self.skippable(b, &pins, original, &orig_pos);
            if pins.skip[b] {
                skipped += self.blocks[b].end - self.blocks[b].start;
            }
        }
        if skipped * 100 < self.code.insns.len() * original.min_skipped_percent {
            return Ok(Pinning::NotWorth);
        }
        // The new locals the code before the first pinned block leaves: merged
        // over its edges into pinned blocks (phase A).
        let mut prefix = Prefix {
            first,
            exit: None,
            edges: Vec::new(),
        };
        if first > 0 {
            let init = self.initial_frame()?;
            self.entries[0] = Some(init);
            if !self.run_blocks(&[0], &mut pins, orig_max, Some(&mut prefix))? {
                return Ok(Pinning::Failed);
            }
        }
        // New locals stored after the prefix are `Top` in pinned frames.
        let mut invariant = vec![true; max_locals.saturating_sub(orig_max)];
        for insn in &self.code.insns[prefix_end..] {
            let stored = match insn {
                Insn::Local { op, index, .. } if is_store(*op) => Some((*op, *index)),
                Insn::Simple(o) if is_store(*o) => short_form(*o),
                Insn::Iinc { index, .. } => Some((op::ISTORE, *index)),
                _ => None,
            };
            if let Some((base, index)) = stored {
                let index = usize::from(index);
                let wide = matches!(base, 55 | 57);
                for k in [index, index + 1].into_iter().take(1 + usize::from(wide)) {
                    if let Some(s) = k.checked_sub(orig_max).and_then(|k| invariant.get_mut(k)) {
                        *s = false;
                    }
                }
            }
        }
        if let Some(exit) = &prefix.exit {
            for b in 0..n_blocks {
                if pins.label[b].is_none() {
                    continue;
                }
                let f = self.entries[b].as_mut().expect("pinned");
                for (k, &inv) in invariant.iter().enumerate() {
                    if inv {
                        f.locals[orig_max + k] = exit[k];
                    }
                }
            }
        }
        // A long or double cut off from its second slot is not a value.
        for b in 0..n_blocks {
            if let Some(f) = &mut self.entries[b] {
                for k in orig_max..max_locals {
                    if matches!(f.locals[k], VType::Long | VType::Double)
                        && f.locals.get(k + 1) != Some(&VType::Top)
                    {
                        f.locals[k] = VType::Top;
                    }
                }
            }
        }
        // The prefix's edges out, against the complete frames.
        for (b, locals, stack) in std::mem::take(&mut prefix.edges) {
            let target = self.entries[b].take().expect("pinned blocks have frames");
            let fits = self.fits(&locals, &stack, &target);
            self.entries[b] = Some(target);
            if !fits? {
                return Ok(Pinning::Failed);
            }
        }
        // Phase B: every pinned block not skipped.
        let start: Vec<usize> = (0..n_blocks)
            .filter(|&b| pins.label[b].is_some() && !pins.skip[b])
            .collect();
        if !self.run_blocks(&start, &mut pins, orig_max, None)? {
            return Ok(Pinning::Failed);
        }
        // Unreached code is left to the full analysis.
        Ok(if self.entries.iter().all(|e| e.is_some()) {
            Pinning::Done
        } else {
            Pinning::Failed
        })
    }

    /// Whether pinned block `b` can go without analysis: its instructions are
    /// the original ones from its pinning label on, it leads only to pinned
    /// blocks (falling through to the label that followed in the original),
    /// and only original handlers with pinned handler blocks cover it.
    fn skippable(
        &self,
        b: usize,
        pins: &Pins,
        original: &Original<'_>,
        orig_pos: &[usize],
    ) -> bool {
        let Some(l) = pins.label[b] else {
            return false;
        };
        self.skippable_from(
            b,
            l,
            &|x| pins.label[x].is_some(),
            &mut pins.label.get(b + 1).copied().flatten().into_iter(),
            original,
            orig_pos,
        )
    }

    /// [`Self::skippable`] before the original frames are known, taking every
    /// block that starts at an original label as pinned (a block is pinned
    /// by one of those, if at all): true wherever `skippable` could be.
    fn may_skip(&self, b: usize, original: &Original<'_>, orig_pos: &[usize]) -> bool {
        let pinnable = |x: usize| self.original_labels_at(x).next().is_some();
        self.original_labels_at(b).any(|l| {
            self.skippable_from(
                b,
                l,
                &pinnable,
                &mut self.original_labels_at(b + 1),
                original,
                orig_pos,
            )
        })
    }

    /// The labels with an original offset right before block `b`'s first
    /// instruction (none past the last block).
    fn original_labels_at(&self, b: usize) -> impl Iterator<Item = Label> + '_ {
        let start = self.blocks.get(b).map_or(0, |blk| blk.start);
        self.code.insns[..start]
            .iter()
            .rev()
            .map_while(|x| match x {
                Insn::Label(l) => Some(*l),
                _ => None,
            })
            .filter(|l| self.code.origin(*l).is_some())
    }

    /// [`Self::skippable`] for block `b` pinned by label `l`, with `pinned`
    /// telling which blocks are pinned and `next` the labels that may pin the
    /// block after `b`.
    fn skippable_from(
        &self,
        b: usize,
        l: Label,
        pinned: &dyn Fn(usize) -> bool,
        next: &mut dyn Iterator<Item = Label>,
        original: &Original<'_>,
        orig_pos: &[usize],
    ) -> bool {
        let blk = &self.blocks[b];
        for &h in &blk.handlers {
            let handler = &self.code.handlers[h];
            if !original.handlers.contains(handler) || !pinned(self.label_block(handler.handler)) {
                return false;
            }
        }
        let Some(mut j) = orig_pos
            .get(l.0 as usize)
            .copied()
            .filter(|&j| j != usize::MAX)
        else {
            return false;
        };
        let mut falls = true;
        for i in blk.start..blk.end {
            let insn = &self.code.insns[i];
            let Some(opc) = insn.opcode() else { continue };
            while let Some(Insn::Label(_)) = original.insns.get(j) {
                j += 1;
            }
            if original.insns.get(j) != Some(insn) {
                return false;
            }
            j += 1;
            if insn.is_branch() && insn.targets().any(|t| !pinned(self.label_block(t))) {
                return false;
            }
            falls = matches!(flow(opc), Flow::Next | Flow::Conditional);
        }
        if !falls {
            return true;
        }
        // The next block is pinned by a label of the run that followed.
        for next in next {
            if let Some(&p) = orig_pos.get(next.0 as usize) {
                if p != usize::MAX
                    && p >= j
                    && original.insns[j..p]
                        .iter()
                        .all(|x| matches!(x, Insn::Label(_)))
                {
                    return true;
                }
            }
        }
        false
    }

    /// The worklist over the blocks not skipped, from `start`. With `prefix`
    /// (phase A: the index of the first pinned block, and the accumulated
    /// exit), blocks from there on are not entered: the new locals of each
    /// edge into them merge into the exit instead. `Ok(false)` where the
    /// pinned analysis does not apply.
    fn run_blocks(
        &mut self,
        start: &[usize],
        pins: &mut Pins,
        orig_max: usize,
        mut prefix: Option<&mut Prefix>,
    ) -> Result<bool> {
        let mut work = Worklist::new(self.blocks.len());
        for &b in start {
            work.push(b);
        }
        let mut f = Frame {
            locals: Vec::new(),
            stack: Vec::new(),
        };
        while let Some(b) = work.pop() {
            f.clone_from(self.entries[b].as_ref().expect("queued blocks have frames"));
            let (start, end) = (self.blocks[b].start, self.blocks[b].end);
            let handlers = std::mem::take(&mut self.blocks[b].handlers);
            let mut falls = true;
            let mut ok = true;
            // As in `run`: the handlers see the locals again only once they
            // may have changed (a store, a constructor call).
            let mut merged = false;
            for i in start..end {
                let insn = self.code.insns[i].clone();
                let Some(opc) = insn.opcode() else { continue };
                // Reads of locals: the type must fit.
                let read = match &insn {
                    Insn::Local { op, index, .. } if (21..=25).contains(op) => Some((*op, *index)),
                    Insn::Simple(o) if (26..=45).contains(o) => short_form(*o),
                    Insn::Iinc { index, .. } => Some((op::IINC, *index)),
                    _ => None,
                };
                if let Some((base, index)) = read {
                    match f.locals.get(usize::from(index)) {
                        Some(&v) if readable(base, v) => {}
                        _ => {
                            ok = false;
                            break;
                        }
                    }
                }
                let store = is_store(opc);
                if !handlers.is_empty() && store && !merged {
                    ok &= self.edge_to_handlers(
                        &handlers,
                        &f,
                        pins,
                        orig_max,
                        &mut prefix,
                        &mut work,
                    )?;
                }
                self.execute(&insn, i, &mut f)?;
                self.max_stack = self.max_stack.max(f.stack.len());
                if store || opc == op::INVOKESPECIAL {
                    merged = false;
                }
                if !handlers.is_empty() && !store && !merged {
                    ok &= self.edge_to_handlers(
                        &handlers,
                        &f,
                        pins,
                        orig_max,
                        &mut prefix,
                        &mut work,
                    )?;
                    merged = true;
                }
                if insn.is_branch() {
                    for t in insn.targets() {
                        let tb = self.label_block(t);
                        ok &= self.edge(
                            tb,
                            &f.locals,
                            &f.stack,
                            pins,
                            orig_max,
                            &mut prefix,
                            &mut work,
                        )?;
                    }
                }
                if !ok {
                    break;
                }
                falls = matches!(flow(opc), Flow::Next | Flow::Conditional);
            }
            self.blocks[b].handlers = handlers;
            if !ok {
                return Ok(false);
            }
            if falls {
                if b + 1 >= self.blocks.len() {
                    return Ok(false);
                }
                let (locals, stack) = (f.locals.clone(), f.stack.clone());
                if !self.edge(
                    b + 1,
                    &locals,
                    &stack,
                    pins,
                    orig_max,
                    &mut prefix,
                    &mut work,
                )? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    #[allow(clippy::too_many_arguments)]
    fn edge_to_handlers(
        &mut self,
        handlers: &[usize],
        f: &Frame,
        pins: &mut Pins,
        orig_max: usize,
        prefix: &mut Option<&mut Prefix>,
        work: &mut Worklist,
    ) -> Result<bool> {
        for &h in handlers {
            let handler = self.code.handlers[h].handler;
            let t = self.catch_types[h];
            self.max_stack = self.max_stack.max(1);
            let hb = self.label_block(handler);
            if !self.edge(
                hb,
                &f.locals,
                &[VType::Object(t)],
                pins,
                orig_max,
                prefix,
                work,
            )? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// An edge into block `b` with state (`locals`, `stack`): checked against
    /// a pinned frame, merged into any other (queueing it if it changed), or
    /// in phase A past the prefix, merged into the exit.
    #[allow(clippy::too_many_arguments)]
    fn edge(
        &mut self,
        b: usize,
        locals: &[VType],
        stack: &[VType],
        pins: &mut Pins,
        orig_max: usize,
        prefix: &mut Option<&mut Prefix>,
        work: &mut Worklist,
    ) -> Result<bool> {
        if let Some(p) = prefix {
            if b >= p.first {
                if pins.label[b].is_none() {
                    return Ok(false);
                }
                let new = &locals[orig_max.min(locals.len())..];
                match &mut p.exit {
                    None => p.exit = Some(new.to_vec()),
                    Some(e) => {
                        for (o, &v) in e.iter_mut().zip(new) {
                            *o = self.merge(*o, v)?;
                        }
                    }
                }
                p.edges.push((b, locals.to_vec(), stack.to_vec()));
                return Ok(true);
            }
        }
        if pins.label[b].is_some() {
            let target = self.entries[b].take().expect("pinned blocks have frames");
            let fits = self.fits(locals, stack, &target);
            self.entries[b] = Some(target);
            return fits;
        }
        let at = self.blocks[b].start;
        self.merge_state(b, locals, stack, work, at)?;
        Ok(true)
    }

    /// Whether a state is assignable to frame `to`.
    fn fits(&mut self, locals: &[VType], stack: &[VType], to: &Frame) -> Result<bool> {
        if stack.len() != to.stack.len() || locals.len() != to.locals.len() {
            return Ok(false);
        }
        for (&a, &b) in locals
            .iter()
            .zip(&to.locals)
            .chain(stack.iter().zip(&to.stack))
        {
            if !self.assignable(a, b)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether the verifier takes a value of type `from` where `to` is
    /// expected. Where unsure, no.
    fn assignable(&mut self, from: VType, to: VType) -> Result<bool> {
        if from == to || to == VType::Top {
            return Ok(true);
        }
        Ok(match (from, to) {
            (VType::Null, VType::Object(_)) => true,
            (VType::Object(x), VType::Object(y)) => {
                let name = self.types.interner.name(y);
                // The verifier lets any reference pass as an interface.
                let anything = name == OBJECT
                    || (!name.starts_with('[')
                        && self
                            .hierarchy
                            .class_info(name)
                            .is_some_and(|c| c.is_interface));
                if anything {
                    true
                } else {
                    self.lub(x, y)? == y
                }
            }
            _ => false,
        })
    }
}

/// Slots the entries take.
fn entries_len(e: &[VType]) -> usize {
    e.iter()
        .map(|v| {
            if matches!(v, VType::Long | VType::Double) {
                2
            } else {
                1
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hierarchy::ClassInfo;

    struct Flat;
    impl ClassHierarchy for Flat {
        fn class_info(&self, name: &str) -> Option<ClassInfo> {
            (name == OBJECT || name.starts_with("T")).then(|| ClassInfo {
                super_name: (name != OBJECT).then(|| Arc::from(OBJECT)),
                is_interface: false,
            })
        }
    }

    const CTX: MethodContext<'static> = MethodContext {
        class_name: "T",
        name: "f",
        descriptor: "(I)I",
        is_static: true,
        major_version: 61,
    };

    /// `static int f(int x) { while (x > 0) x--; return x; }` with its frame,
    /// then a guard (decision on entry, `iload d; ifne skip; nop; skip:`)
    /// before the loop's test: pinned frames, the guard's target computed, the
    /// decision local in every frame.
    #[test]
    fn guard_in_a_loop_keeps_the_loop_frame() {
        let mut code = Code::empty();
        let head = code.new_label();
        let exit = code.new_label();
        // Offsets: 0 iload_0, 1 ifle 10, 4 iinc 0 -1, 7 goto 0, 10 iload_0, 11 ireturn.
        code.set_origins(vec![Some(0), Some(10)]);
        code.max_stack = 1;
        code.max_locals = 1;
        code.insns = vec![
            Insn::Label(head),
            Insn::Simple(26),
            Insn::Jump {
                op: 158, // ifle
                target: exit,
            },
            Insn::Iinc {
                index: 0,
                delta: -1,
                wide: false,
            },
            Insn::Jump {
                op: op::GOTO,
                target: head,
            },
            Insn::Label(exit),
            Insn::Simple(26),
            Insn::Simple(172),
        ];
        // Frames: at 0, same; at 10, same.
        let table = vec![0u8, 2, 0, 9];
        let before = code.clone();
        let skip = code.new_label();
        let mut woven = vec![Insn::Simple(3), Insn::Simple(60)]; // iconst_0 istore_1
        woven.extend(before.insns[..1].iter().cloned());
        woven.extend([
            Insn::Simple(27), // iload_1
            Insn::Jump {
                op: 154, // ifne
                target: skip,
            },
            Insn::Simple(0),
            Insn::Label(skip),
        ]);
        woven.extend(before.insns[1..].iter().cloned());
        code.insns = woven;
        let original = Original {
            insns: &before.insns,
            handlers: &before.handlers,
            stack_map: Some(&table),
            max_stack: 1,
            max_locals: 1,
            min_skipped_percent: 0,
        };
        let mut pool = PoolBuilder::empty();
        assert_eq!(
            compute_pinned(&mut code, &CTX, &mut pool, &Flat, &original).unwrap(),
            Some(true)
        );
        let data = code
            .attributes
            .iter()
            .find_map(|a| match a {
                crate::code::CodeAttr::StackMapTable { data, .. } => Some(data.clone()),
                _ => None,
            })
            .expect("frames");
        let frames = read_stack_map(&data, &CTX, &pool).unwrap();
        // The loop head (offset 2), the guard's target (7), the exit (17):
        // each with x and the decision.
        let offsets: Vec<u32> = frames.iter().map(|f| f.offset).collect();
        assert_eq!(offsets, vec![2, 7, 17]);
        for f in &frames {
            assert_eq!(f.locals, vec![Value::Int, Value::Int], "at {}", f.offset);
            assert!(f.stack.is_empty());
        }
        assert_eq!((code.max_stack, code.max_locals), (1, 2));

        // The same with recomputed frames gives the same table.
        let mut again = code.clone();
        again.set_stack_map(0, None);
        super::super::compute(&mut again, &CTX, &mut pool, &Flat).unwrap();
        let recomputed = again
            .attributes
            .iter()
            .find_map(|a| match a {
                crate::code::CodeAttr::StackMapTable { data, .. } => Some(data.clone()),
                _ => None,
            })
            .unwrap();
        assert_eq!(read_stack_map(&recomputed, &CTX, &pool).unwrap(), frames);
    }

    /// A guard whose skipped code reads a new local the decision did not
    /// store: the pinned frame says `Top` there, so the analysis gives up.
    #[test]
    fn reading_a_local_a_pinned_frame_lacks_gives_up() {
        let mut code = Code::empty();
        let head = code.new_label();
        code.set_origins(vec![Some(0)]);
        code.max_stack = 1;
        code.max_locals = 1;
        code.insns = vec![
            Insn::Label(head),
            Insn::Simple(26),
            Insn::Jump {
                op: 154, // ifne
                target: head,
            },
            Insn::Simple(26),
            Insn::Simple(172),
        ];
        let table = vec![0u8, 1, 0];
        let before = code.clone();
        let skip = code.new_label();
        let mut woven = before.insns.clone();
        // After the loop head: iconst_0; istore_1 (too late to be in the
        // head's frame), then a read of it before the head is reached again.
        woven.splice(
            1..1,
            [
                Insn::Simple(3),
                Insn::Simple(60),
                Insn::Simple(27),
                Insn::Jump {
                    op: 154, // ifne
                    target: skip,
                },
                Insn::Label(skip),
            ],
        );
        code.insns = woven;
        let original = Original {
            insns: &before.insns,
            handlers: &before.handlers,
            stack_map: Some(&table),
            max_stack: 1,
            max_locals: 1,
            min_skipped_percent: 0,
        };
        let mut pool = PoolBuilder::empty();
        // The store after the head is fine (the head's frame has the local
        // as Top, and it is stored before it is read): the frames hold.
        assert_eq!(
            compute_pinned(&mut code, &CTX, &mut pool, &Flat, &original).unwrap(),
            Some(true)
        );
        // But a read before any store is refused.
        let mut code2 = before.clone();
        let skip2 = code2.new_label();
        let mut w = before.insns.clone();
        w.splice(
            1..1,
            [
                Insn::Simple(27),
                Insn::Jump {
                    op: 154, // ifne
                    target: skip2,
                },
                Insn::Label(skip2),
            ],
        );
        code2.insns = w;
        assert_eq!(
            compute_pinned(&mut code2, &CTX, &mut pool, &Flat, &original).unwrap(),
            None
        );
    }
}
