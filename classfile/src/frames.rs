//! StackMapTable computation for a changed method body.
//!
//! A worklist data-flow pass over basic blocks infers the verification types of
//! locals and stack at each block entry (merging reference types through the
//! [`ClassHierarchy`]). Unreachable blocks are replaced by `athrow` with a frame of
//! `[] [java/lang/Throwable]`, and removed from exception ranges, since the
//! verifier checks dead code too. The result: `max_stack`, `max_locals`, and a
//! compressed `StackMapTable` for class files of version 50 and later.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use crate::code::{Code, Handler, Insn, Label, Layout};
use crate::constant_pool::Constant;
use crate::descriptor;
use crate::error::{Error, ErrorKind, Result};
use crate::hierarchy::{ClassHierarchy, OBJECT};
use crate::opcodes::{flow, is_store, op, short_form, shuffle_depth, shuffle_slots, Flow, OPCODES};
use crate::pool_builder::PoolBuilder;

mod pinned;
pub use pinned::{
    compute_pinned, compute_pinned_with_layout, read_stack_map, FrameAt, Original,
    MIN_SKIPPED_PERCENT,
};

/// The method a body belongs to.
#[derive(Debug, Clone, Copy)]
pub struct MethodContext<'a> {
    /// Internal name of the declaring class.
    pub class_name: &'a str,
    /// Method name.
    pub name: &'a str,
    /// Method descriptor.
    pub descriptor: &'a str,
    /// Whether the method is static.
    pub is_static: bool,
    /// Class-file major version (frames are written for 50 and later).
    pub major_version: u16,
}

/// A verification type; a long or double takes two slots, the second `Top`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum VType {
    Top,
    Int,
    Float,
    Long,
    Double,
    Null,
    UninitThis,
    /// Result of the `new` at this label, not yet initialised.
    Uninit(Label),
    /// A class or array type, by interned name.
    Object(u32),
}

impl VType {
    fn is_ref(self) -> bool {
        matches!(
            self,
            VType::Null | VType::UninitThis | VType::Uninit(_) | VType::Object(_)
        )
    }
}

/// The stack effect of an opcode whose effect the opcode table gives (not
/// `*`): how many slots it pops and what it pushes (a long or double also
/// pushes its second slot, `Top`).
#[derive(Debug, Clone, Copy)]
struct StackEffect {
    pops: u8,
    push: Option<VType>,
}

/// [`StackEffect`]s by opcode, read once from [`OPCODES`]' `pops>pushes`
/// strings (`None` where the table says `*`).
static STACK_EFFECTS: std::sync::LazyLock<[Option<StackEffect>; 256]> =
    std::sync::LazyLock::new(|| {
        std::array::from_fn(|o| {
            let spec = OPCODES[o].stack;
            if spec == "*" {
                return None;
            }
            let (pops, pushes) = spec.split_once('>').expect("table specs have '>'");
            let pops = pops
                .bytes()
                .map(|c| if c == b'J' || c == b'D' { 2 } else { 1 })
                .sum();
            let push = match pushes.as_bytes() {
                [] => None,
                [b'I'] => Some(VType::Int),
                [b'F'] => Some(VType::Float),
                [b'J'] => Some(VType::Long),
                [b'D'] => Some(VType::Double),
                [b'N'] => Some(VType::Null),
                _ => unreachable!("opcodes push at most one of I F J D N: {spec}"),
            };
            Some(StackEffect { pops, push })
        })
    });

#[derive(Debug, PartialEq, Eq)]
struct Frame {
    locals: Vec<VType>,
    stack: Vec<VType>,
}

impl Clone for Frame {
    fn clone(&self) -> Self {
        Frame {
            locals: self.locals.clone(),
            stack: self.stack.clone(),
        }
    }

    /// Into the buffers already there (the derived one allocates anew).
    fn clone_from(&mut self, source: &Self) {
        self.locals.clone_from(&source.locals);
        self.stack.clone_from(&source.stack);
    }
}

/// Recomputes `max_stack`, `max_locals` and (for version ≥ 50) the StackMapTable of
/// `code`, rewriting unreachable code and widening branches as needed.
pub fn compute(
    code: &mut Code,
    ctx: &MethodContext<'_>,
    pool: &mut PoolBuilder<'_>,
    hierarchy: &dyn ClassHierarchy,
) -> Result<()> {
    compute_with_layout(code, ctx, pool, hierarchy).map(drop)
}

/// [`compute`], also giving the layout the StackMapTable was encoded with:
/// the body's final layout, for writing it
/// ([`Code::write_attribute`]) while it stays unchanged, without laying it
/// out once more.
pub fn compute_with_layout(
    code: &mut Code,
    ctx: &MethodContext<'_>,
    pool: &mut PoolBuilder<'_>,
    hierarchy: &dyn ClassHierarchy,
) -> Result<Layout> {
    compute_inner(code, ctx, pool, hierarchy).map_err(|e| {
        e.in_method(ctx.name, ctx.descriptor)
            .in_class(ctx.class_name)
    })
}

fn compute_inner(
    code: &mut Code,
    ctx: &MethodContext<'_>,
    pool: &mut PoolBuilder<'_>,
    hierarchy: &dyn ClassHierarchy,
) -> Result<Layout> {
    if let Some(i) = code
        .insns
        .iter()
        .position(|x| matches!(x.opcode(), Some(op::JSR | op::JSR_W | op::RET)))
    {
        return Err(Error::new(
            ErrorKind::Unsupported,
            code.origin_near(i).map(|o| o as usize),
            "subroutines (jsr/ret) are not supported when code changes",
        ));
    }
    for _round in 0..4 {
        let (_, layout) = code.widen_jumps_with_layout()?;
        let len = layout.code_len;
        if len > crate::code::MAX_CODE_LEN {
            return Err(Error::new(
                ErrorKind::CodeTooLarge,
                None,
                format!(
                    "code would be {len} bytes, over the JVM's limit of {}",
                    crate::code::MAX_CODE_LEN
                ),
            ));
        }
        let mut a = Analysis::new(code, ctx, pool, hierarchy)?;
        a.run()?;
        let result = a.finish()?;
        let Finished {
            frames,
            initial,
            max_stack,
            max_locals,
            mut types,
            rewritten,
            inserted,
        } = result;
        code.max_stack = max_stack;
        code.max_locals = max_locals;
        // Dead-code replacement only shrinks code; widen again and redo if
        // needed. Without it, no offset moved (the labels the analysis put
        // in take no bytes, but they need a new layout).
        let layout = if rewritten {
            let (widened, layout) = code.widen_jumps_with_layout()?;
            if widened {
                pool.keep_frame_types(types);
                continue;
            }
            layout
        } else {
            let layout = layout_with_inserted(layout, &inserted, code.label_count());
            debug_assert!(layout == code.layout(), "derived layout differs");
            layout
        };
        if ctx.major_version >= 50 {
            let name = pool.utf8("StackMapTable")?;
            let data = encode_frames(&frames, initial, &mut types, &layout, pool)?;
            code.set_stack_map(name, if frames.is_empty() { None } else { Some(data) });
        } else {
            code.set_stack_map(0, None);
        }
        pool.keep_frame_types(types);
        return Ok(layout);
    }
    Err(Error::malformed(None, "branch widening did not settle"))
}

/// A value's verification type, as [`stack_states`] reports it. A long or double
/// takes two stack entries, the second `Top`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// Unusable or the second half of a long/double.
    Top,
    /// `int` (and boolean, byte, char, short).
    Int,
    /// `float`.
    Float,
    /// `long`.
    Long,
    /// `double`.
    Double,
    /// `null`.
    Null,
    /// `this` in a constructor before the super/this constructor call.
    UninitThis,
    /// The result of the `new` at this label, not initialised yet.
    Uninit(Label),
    /// A class (internal name) or array (descriptor).
    Object(String),
}

/// The operand stack before every instruction of `code` that `wanted` selects
/// (`None` for the others, labels and unreachable instructions). Labels may be added to `code` first (before block
/// leaders and `new` instructions), so indices refer to `code` as it is after
/// the call.
pub fn stack_states(
    code: &mut Code,
    ctx: &MethodContext<'_>,
    pool: &PoolBuilder<'_>,
    hierarchy: &dyn ClassHierarchy,
    wanted: &dyn Fn(&Insn) -> bool,
) -> Result<Vec<Option<Vec<Value>>>> {
    let mut a = Analysis::new(code, ctx, pool, hierarchy).map_err(|e| {
        e.in_method(ctx.name, ctx.descriptor)
            .in_class(ctx.class_name)
    })?;
    a.run().map_err(|e| {
        e.in_method(ctx.name, ctx.descriptor)
            .in_class(ctx.class_name)
    })?;
    let mut out = vec![None; a.code.insns.len()];
    let mut f = Frame {
        locals: Vec::new(),
        stack: Vec::new(),
    };
    for b in 0..a.blocks.len() {
        let Some(entry) = &a.entries[b] else {
            continue;
        };
        f.clone_from(entry);
        let (start, end) = (a.blocks[b].start, a.blocks[b].end);
        for (i, slot) in out.iter_mut().enumerate().take(end).skip(start) {
            let insn = a.code.insns[i].clone();
            if insn.opcode().is_none() {
                continue;
            }
            if wanted(&insn) {
                *slot = Some(f.stack.iter().map(|v| a.value(*v)).collect());
            }
            a.execute(&insn, i, &mut f)?;
        }
    }
    Ok(out)
}

/// Interned class/array names for one method.
#[derive(Default)]
struct Interner {
    names: Vec<Arc<str>>,
    ids: HashMap<Arc<str>, u32>,
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let a: Arc<str> = Arc::from(s);
        self.names.push(a.clone());
        self.ids.insert(a, self.names.len() as u32 - 1);
        self.names.len() as u32 - 1
    }
    fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }
}

/// The blocks whose entry changed since they were last analysed. The one
/// first in code order goes next: blocks are in code order, so a block's
/// predecessors mostly come first, and each block is mostly analysed once
/// all the edges into it were merged (a loop's body again once its back edge
/// changed the loop head).
struct Worklist {
    queued: Vec<bool>,
    /// No block before this one is queued.
    next: usize,
}

impl Worklist {
    fn new(blocks: usize) -> Self {
        Worklist {
            queued: vec![false; blocks],
            next: blocks,
        }
    }

    /// Queues block `b` (once).
    fn push(&mut self, b: usize) {
        self.queued[b] = true;
        self.next = self.next.min(b);
    }

    /// Takes the queued block first in code order.
    fn pop(&mut self) -> Option<usize> {
        let k = self.queued[self.next..].iter().position(|q| *q)?;
        let b = self.next + k;
        self.queued[b] = false;
        self.next = b + 1;
        Some(b)
    }
}

struct Block {
    start: usize,
    end: usize,
    label: Label,
    handlers: Vec<usize>,
}

struct Analysis<'c, 'p> {
    code: &'c mut Code,
    ctx: &'c MethodContext<'c>,
    pool: &'c PoolBuilder<'p>,
    hierarchy: &'c dyn ClassHierarchy,
    /// The names and constant-pool references the class's methods share.
    types: ClassTypes,
    blocks: Vec<Block>,
    /// Block starting at each instruction index (`u32::MAX` if none).
    block_at: Vec<u32>,
    /// Instruction index each label stands before.
    label_pos: Vec<usize>,
    /// Class of the `new` whose label it is.
    new_class: HashMap<Label, u32>,
    entries: Vec<Option<Frame>>,
    max_stack: usize,
    max_locals: usize,
    this_id: u32,
    /// The interned class each handler catches (`Throwable` for any), by handler.
    catch_types: Vec<u32>,
    /// The labels `normalize` inserted ([`Scan::inserted`]).
    inserted: Vec<(usize, Label)>,
}

/// What the analyses of one class's methods share, kept in the class's
/// [`PoolBuilder`] from one method to the next: names interned, the least
/// upper bounds found, and constant-pool references decoded once per class.
#[derive(Default)]
pub(crate) struct ClassTypes {
    interner: Interner,
    lub_cache: HashMap<(u32, u32), u32>,
    /// By constant-pool index, 1 + the index in `refs` of what the entry
    /// does to the stack once decoded (0: not yet).
    ref_at: Vec<u32>,
    /// Field and method references and classes decoded so far.
    refs: Vec<RefEffect>,
    /// The pool index of each interned name's Class entry, once frames
    /// named it (0: not yet).
    class_entries: Vec<u16>,
}

impl std::fmt::Debug for ClassTypes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClassTypes")
            .field("names", &self.interner.names.len())
            .field("refs", &self.refs.len())
            .finish()
    }
}

impl Drop for Analysis<'_, '_> {
    /// Hands the shared types back to the pool for the next method (empty
    /// if [`Analysis::finish`] took them: its caller hands them back).
    fn drop(&mut self) {
        self.pool.keep_frame_types(std::mem::take(&mut self.types));
    }
}

/// What a constant-pool entry does to the stack where an instruction names
/// it, decoded once per analysis (the worklist visits blocks again, and
/// code calls the same methods again and again).
#[derive(Clone, Copy)]
struct RefEffect {
    /// What the entry was decoded as.
    kind: RefKind,
    /// Slots of the field's value, or of the method's arguments.
    slots: u16,
    /// The field's value, the method's result (`None`: void) or the class.
    value: Option<VType>,
    /// Whether the method is a constructor.
    is_init: bool,
}

/// How an instruction reads a constant-pool entry ([`RefEffect`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum RefKind {
    Field,
    Method,
    /// A class named by `checkcast` or `multianewarray`.
    Class,
}

struct Finished {
    frames: Vec<(Label, Frame)>,
    /// Entries of the implicit initial frame.
    initial: Vec<VType>,
    max_stack: u16,
    max_locals: u16,
    /// The shared types, for the caller to encode the frames with and hand
    /// back to the pool ([`PoolBuilder::keep_frame_types`]).
    types: ClassTypes,
    /// Whether dead code was replaced (offsets may have moved).
    rewritten: bool,
    /// The labels `normalize` inserted ([`Scan::inserted`]): with the
    /// layout before the analysis, the layout after it
    /// ([`layout_with_inserted`]) where nothing was rewritten.
    inserted: Vec<(usize, Label)>,
}

fn local_size(op: u8) -> usize {
    let base = short_form(op).map(|(b, _)| b).unwrap_or(op);
    match base {
        22 | 24 | 55 | 57 => 2, // lload dload lstore dstore
        _ => 1,
    }
}

impl<'c, 'p> Analysis<'c, 'p> {
    fn new(
        code: &'c mut Code,
        ctx: &'c MethodContext<'c>,
        pool: &'c PoolBuilder<'p>,
        hierarchy: &'c dyn ClassHierarchy,
    ) -> Result<Self> {
        let Scan {
            label_pos,
            leaders,
            max_locals: code_locals,
            news,
            inserted,
        } = normalize(code)?;
        let n = code.insns.len();
        let mut types = pool.take_frame_types();
        let interner = &mut types.interner;
        let mut new_class = HashMap::default();
        // max_locals: parameters and every local the code names.
        let max_locals = (descriptor::param_slots(ctx.descriptor)? + usize::from(!ctx.is_static))
            .max(code_locals);
        for &(i, index) in &news {
            let Some(Insn::Label(l)) = i.checked_sub(1).map(|p| &code.insns[p]) else {
                unreachable!("normalize puts a label before each new");
            };
            let name = pool.class_name(index)?;
            new_class.insert(*l, interner.id(&name));
        }
        // Blocks: a leader is the first instruction after a label that normalize
        // marked, which we recompute here from the same rules.
        let mut block_at = vec![u32::MAX; n + 1];
        let mut blocks: Vec<Block> = Vec::with_capacity(leaders.iter().filter(|l| **l).count());
        for s in (0..n).filter(|&i| leaders[i]) {
            // A block ends where the next begins.
            if let Some(prev) = blocks.last_mut() {
                prev.end = s;
            }
            let label = label_before(code, s).expect("normalize labels every leader");
            block_at[s] = blocks.len() as u32;
            blocks.push(Block {
                start: s,
                end: n,
                label,
                handlers: Vec::new(),
            });
        }
        let mut catch_types = Vec::with_capacity(code.handlers.len());
        for (h, handler) in code.handlers.iter().enumerate() {
            let (s, e) = (
                label_pos[handler.start.0 as usize],
                label_pos[handler.end.0 as usize],
            );
            // Blocks are in code order: those starting in [s, e) are a run.
            let first = blocks.partition_point(|b| b.start < s);
            for b in blocks[first..].iter_mut().take_while(|b| b.start < e) {
                b.handlers.push(h);
            }
            catch_types.push(if handler.catch_type == 0 {
                interner.id("java/lang/Throwable")
            } else {
                interner.id(&pool.class_name(handler.catch_type)?)
            });
        }
        if max_locals > 0xFFFF {
            return Err(Error::malformed(None, "more than 65535 local slots"));
        }
        let this_id = interner.id(ctx.class_name);
        let entries = vec![None; blocks.len()];
        Ok(Analysis {
            code,
            ctx,
            pool,
            hierarchy,
            types,
            blocks,
            block_at,
            label_pos,
            new_class,
            entries,
            max_stack: 0,
            max_locals,
            this_id,
            catch_types,
            inserted,
        })
    }

    fn initial_frame(&mut self) -> Result<Frame> {
        let mut locals = Vec::with_capacity(self.max_locals);
        if !self.ctx.is_static {
            locals.push(
                if self.ctx.name == "<init>" && self.ctx.class_name != OBJECT {
                    VType::UninitThis
                } else {
                    VType::Object(self.this_id)
                },
            );
        }
        let (params, _) = descriptor::parse_method(self.ctx.descriptor)?;
        for p in params {
            self.push_field_type(&mut locals, p);
        }
        locals.resize(self.max_locals, VType::Top);
        Ok(Frame {
            locals,
            stack: Vec::new(),
        })
    }

    fn push_field_type(&mut self, v: &mut Vec<VType>, d: &str) {
        match d.as_bytes()[0] {
            b'Z' | b'B' | b'C' | b'S' | b'I' => v.push(VType::Int),
            b'F' => v.push(VType::Float),
            b'J' => v.extend([VType::Long, VType::Top]),
            b'D' => v.extend([VType::Double, VType::Top]),
            b'L' => v.push(VType::Object(self.types.interner.id(&d[1..d.len() - 1]))),
            _ => v.push(VType::Object(self.types.interner.id(d))),
        }
    }

    fn value(&self, v: VType) -> Value {
        match v {
            VType::Top => Value::Top,
            VType::Int => Value::Int,
            VType::Float => Value::Float,
            VType::Long => Value::Long,
            VType::Double => Value::Double,
            VType::Null => Value::Null,
            VType::UninitThis => Value::UninitThis,
            VType::Uninit(l) => Value::Uninit(l),
            VType::Object(id) => Value::Object(self.types.interner.name(id).to_string()),
        }
    }

    fn label_block(&self, l: Label) -> usize {
        self.block_at[self.label_pos[l.0 as usize]] as usize
    }

    fn run(&mut self) -> Result<()> {
        if self.blocks.is_empty() {
            return Err(Error::malformed(None, "method body has no instructions"));
        }
        let init = self.initial_frame()?;
        self.entries[0] = Some(init);
        let mut work = Worklist::new(self.blocks.len());
        work.push(0);
        let mut f = Frame {
            locals: Vec::new(),
            stack: Vec::new(),
        };
        while let Some(b) = work.pop() {
            f.clone_from(self.entries[b].as_ref().expect("queued blocks have frames"));
            let (start, end) = (self.blocks[b].start, self.blocks[b].end);
            let handlers = std::mem::take(&mut self.blocks[b].handlers);
            // The block's last instruction (a `nop` falls through like an
            // empty block).
            let mut last = op::NOP;
            // The handlers see the locals before each store and after every
            // other instruction. Merging is idempotent, so the locals merge
            // again only once they may have changed: after a store, or an
            // `invokespecial` (a constructor call initializes locals).
            let mut merged = false;
            for i in start..end {
                let insn = self.code.insns[i].clone();
                let Some(opc) = insn.opcode() else { continue };
                let store = is_store(opc);
                if !handlers.is_empty() && store && !merged {
                    self.merge_handlers(&handlers, &f, &mut work)?;
                }
                self.execute(&insn, i, &mut f)?;
                self.max_stack = self.max_stack.max(f.stack.len());
                if store || opc == op::INVOKESPECIAL {
                    merged = false;
                }
                if !handlers.is_empty() && !store && !merged {
                    self.merge_handlers(&handlers, &f, &mut work)?;
                    merged = true;
                }
                match &insn {
                    Insn::Jump { target, .. } => {
                        let tb = self.label_block(*target);
                        self.merge_into(tb, &f, &mut work, i)?;
                    }
                    Insn::TableSwitch { .. } | Insn::LookupSwitch { .. } => {
                        for t in insn.targets() {
                            let tb = self.label_block(t);
                            self.merge_into(tb, &f, &mut work, i)?;
                        }
                    }
                    _ => {}
                }
                last = opc;
            }
            self.blocks[b].handlers = handlers;
            if matches!(flow(last), Flow::Next | Flow::Conditional) {
                if b + 1 >= self.blocks.len() {
                    return Err(Error::malformed(
                        self.code.origin_near(end - 1).map(|o| o as usize),
                        "execution falls off the end of the code",
                    ));
                }
                self.merge_into(b + 1, &f, &mut work, end - 1)?;
            }
        }
        Ok(())
    }

    fn merge_handlers(&mut self, handlers: &[usize], f: &Frame, work: &mut Worklist) -> Result<()> {
        for &h in handlers {
            let handler = self.code.handlers[h].handler;
            let t = self.catch_types[h];
            self.max_stack = self.max_stack.max(1);
            let hb = self.label_block(handler);
            let at = self.blocks[hb].start;
            self.merge_state(hb, &f.locals, &[VType::Object(t)], work, at)?;
        }
        Ok(())
    }

    fn merge_into(&mut self, b: usize, f: &Frame, work: &mut Worklist, at: usize) -> Result<()> {
        self.merge_state(b, &f.locals, &f.stack, work, at)
    }

    /// Merges a state (locals, stack) into the entry of block `b`, queueing
    /// the block if its entry changed.
    fn merge_state(
        &mut self,
        b: usize,
        locals: &[VType],
        stack: &[VType],
        work: &mut Worklist,
        at: usize,
    ) -> Result<()> {
        let changed = match self.entries[b].take() {
            None => {
                self.entries[b] = Some(Frame {
                    locals: locals.to_vec(),
                    stack: stack.to_vec(),
                });
                true
            }
            Some(mut old) => {
                if old.stack.len() != stack.len() {
                    return Err(Error::malformed(
                        self.code.origin_near(at).map(|o| o as usize),
                        format!(
                            "stack heights {} and {} meet at a branch target",
                            old.stack.len(),
                            stack.len()
                        ),
                    ));
                }
                // Most slots agree: only those that differ merge.
                let mut changed = false;
                for (o, &v) in old
                    .locals
                    .iter_mut()
                    .zip(locals)
                    .chain(old.stack.iter_mut().zip(stack))
                {
                    if *o != v {
                        let m = self.merge(*o, v)?;
                        changed |= m != *o;
                        *o = m;
                    }
                }
                self.entries[b] = Some(old);
                changed
            }
        };
        if changed {
            work.push(b);
        }
        Ok(())
    }

    fn merge(&mut self, a: VType, b: VType) -> Result<VType> {
        if a == b {
            return Ok(a);
        }
        Ok(match (a, b) {
            (VType::Null, VType::Object(_)) => b,
            (VType::Object(_), VType::Null) => a,
            (VType::Object(x), VType::Object(y)) => VType::Object(self.lub(x, y)?),
            _ => VType::Top,
        })
    }

    /// Least upper bound of two class or array types.
    fn lub(&mut self, x: u32, y: u32) -> Result<u32> {
        let key = if x < y { (x, y) } else { (y, x) };
        if let Some(&r) = self.types.lub_cache.get(&key) {
            return Ok(r);
        }
        let (a, b) = (
            self.types.interner.name(x).to_string(),
            self.types.interner.name(y).to_string(),
        );
        let r = match (a.strip_prefix('['), b.strip_prefix('[')) {
            (Some(ca), Some(cb)) => {
                let is_ref = |c: &str| c.starts_with('L') || c.starts_with('[');
                if is_ref(ca) && is_ref(cb) {
                    let ia = self.types.interner.id(element_name(ca));
                    let ib = self.types.interner.id(element_name(cb));
                    let e = self.lub(ia, ib)?;
                    let en = self.types.interner.name(e).to_string();
                    let arr = if en.starts_with('[') {
                        format!("[{en}")
                    } else {
                        format!("[L{en};")
                    };
                    self.types.interner.id(&arr)
                } else {
                    self.types.interner.id(OBJECT)
                }
            }
            (None, None) => {
                let s = self.hierarchy.common_super_class(&a, &b)?;
                self.types.interner.id(&s)
            }
            _ => self.types.interner.id(OBJECT),
        };
        self.types.lub_cache.insert(key, r);
        Ok(r)
    }

    fn err(&self, i: usize, msg: impl Into<String>) -> Error {
        Error::malformed(self.code.origin_near(i).map(|o| o as usize), msg)
    }

    fn pop(&self, f: &mut Frame, n: usize, i: usize) -> Result<()> {
        if f.stack.len() < n {
            return Err(self.err(
                i,
                format!(
                    "stack underflow at {}",
                    self.code.insns[i]
                        .opcode()
                        .map(|o| OPCODES[o as usize].name)
                        .unwrap_or("?")
                ),
            ));
        }
        f.stack.truncate(f.stack.len() - n);
        Ok(())
    }

    fn pop1(&self, f: &mut Frame, i: usize) -> Result<VType> {
        f.stack.pop().ok_or_else(|| self.err(i, "stack underflow"))
    }

    fn store(&self, f: &mut Frame, index: usize, v: VType, wide: bool, i: usize) -> Result<()> {
        let size = if wide { 2 } else { 1 };
        if index + size > f.locals.len() {
            return Err(self.err(i, format!("local {index} is past max_locals")));
        }
        if index > 0 && matches!(f.locals[index - 1], VType::Long | VType::Double) {
            f.locals[index - 1] = VType::Top;
        }
        f.locals[index] = v;
        if wide {
            f.locals[index + 1] = VType::Top;
        }
        Ok(())
    }

    /// Pushes a value of field descriptor `d` (nothing for `V`); a malformed
    /// descriptor is an error, not a panic.
    fn push_desc(&mut self, f: &mut Frame, d: &str) -> Result<()> {
        if d == "V" {
            return Ok(());
        }
        if descriptor::field_len(d) != Some(d.len()) {
            return Err(Error::malformed(
                None,
                format!("bad field descriptor {d:?}"),
            ));
        }
        self.push_field_type(&mut f.stack, d);
        Ok(())
    }

    /// What the constant-pool entry `index` does where instruction `i`
    /// reads it as a `kind`: decoded on first use, then from `refs`.
    fn ref_effect(&mut self, index: u16, kind: RefKind, i: usize) -> Result<RefEffect> {
        let at = usize::from(index);
        if let Some(&k) = self.types.ref_at.get(at) {
            if k != 0 {
                let r = self.types.refs[k as usize - 1];
                if r.kind == kind {
                    return Ok(r);
                }
            }
        }
        let pool = self.pool;
        let r = match kind {
            RefKind::Field => {
                let r = pool.member_ref(index)?;
                let d = &*r.descriptor;
                if descriptor::field_len(d) != Some(d.len()) {
                    let msg = format!("bad field descriptor {d:?}");
                    return Err(self.err(i, msg));
                }
                RefEffect {
                    kind,
                    slots: descriptor::slots(d) as u16,
                    value: Some(self.field_vtype(d)),
                    is_init: false,
                }
            }
            RefKind::Method => {
                let r = pool.member_ref(index)?;
                // Checks the descriptor, its result's too.
                let (args, d) = descriptor::method_slots(&r.descriptor)?;
                let value = (d != "V").then(|| self.field_vtype(d));
                RefEffect {
                    kind,
                    slots: args as u16,
                    value,
                    is_init: r.name == "<init>",
                }
            }
            RefKind::Class => {
                let c = pool.class_name(index)?;
                RefEffect {
                    kind,
                    slots: 0,
                    value: Some(VType::Object(self.types.interner.id(&c))),
                    is_init: false,
                }
            }
        };
        if self.types.ref_at.len() <= at {
            let len = pool.count().max(at + 1);
            if self.types.ref_at.is_empty() {
                // Zeroed memory: cheaper than filling it.
                self.types.ref_at = vec![0; len];
            } else {
                self.types.ref_at.resize(len, 0);
            }
        }
        if self.types.ref_at[at] == 0 {
            self.types.refs.push(r);
            self.types.ref_at[at] = self.types.refs.len() as u32;
        }
        Ok(r)
    }

    /// The verification type of a value of (well-formed) field descriptor
    /// `d`: the first of two slots for a long or double.
    fn field_vtype(&mut self, d: &str) -> VType {
        match d.as_bytes()[0] {
            b'Z' | b'B' | b'C' | b'S' | b'I' => VType::Int,
            b'F' => VType::Float,
            b'J' => VType::Long,
            b'D' => VType::Double,
            b'L' => VType::Object(self.types.interner.id(&d[1..d.len() - 1])),
            _ => VType::Object(self.types.interner.id(d)),
        }
    }

    fn execute(&mut self, insn: &Insn, i: usize, f: &mut Frame) -> Result<()> {
        let opc = insn.opcode().expect("not a label");
        if let Some(effect) = STACK_EFFECTS[opc as usize] {
            self.pop(f, effect.pops as usize, i)?;
            match effect.push {
                None => {}
                Some(v @ (VType::Long | VType::Double)) => f.stack.extend([v, VType::Top]),
                Some(v) => f.stack.push(v),
            }
            return Ok(());
        }
        let pool = self.pool;
        match insn {
            Insn::Ldc { index, .. }
            | Insn::Cp {
                op: op::LDC2_W,
                index,
            } => {
                let c = pool.constant(*index)?;
                match c {
                    Constant::Integer(_) => f.stack.push(VType::Int),
                    Constant::Float(_) => f.stack.push(VType::Float),
                    Constant::Long(_) => f.stack.extend([VType::Long, VType::Top]),
                    Constant::Double(_) => f.stack.extend([VType::Double, VType::Top]),
                    Constant::String(_) => f
                        .stack
                        .push(VType::Object(self.types.interner.id("java/lang/String"))),
                    Constant::Class(_) => f
                        .stack
                        .push(VType::Object(self.types.interner.id("java/lang/Class"))),
                    Constant::MethodType(_) => f.stack.push(VType::Object(
                        self.types.interner.id("java/lang/invoke/MethodType"),
                    )),
                    Constant::MethodHandle(..) => f.stack.push(VType::Object(
                        self.types.interner.id("java/lang/invoke/MethodHandle"),
                    )),
                    Constant::Dynamic(..) => {
                        let (_, d) = pool.dynamic(*index)?;
                        self.push_desc(f, &d)?;
                    }
                    other => {
                        return Err(
                            self.err(i, format!("ldc of a constant with tag {}", other.tag()))
                        )
                    }
                }
            }
            Insn::Simple(o) if (op::ALOAD_0..=op::ALOAD_3).contains(o) => {
                let v = f
                    .locals
                    .get((o - op::ALOAD_0) as usize)
                    .copied()
                    .ok_or_else(|| self.err(i, "local past max_locals"))?;
                f.stack.push(v);
            }
            Insn::Local {
                op: op::ALOAD,
                index,
                ..
            } => {
                let v = f
                    .locals
                    .get(*index as usize)
                    .copied()
                    .ok_or_else(|| self.err(i, "local past max_locals"))?;
                f.stack.push(v);
            }
            Insn::Simple(o) if is_store(*o) => {
                let (base, idx) = short_form(*o).expect("short store");
                self.exec_store(f, base, idx as usize, i)?;
            }
            Insn::Local { op: o, index, .. } if is_store(*o) => {
                self.exec_store(f, *o, *index as usize, i)?
            }
            Insn::Simple(op::AALOAD) => {
                self.pop(f, 1, i)?;
                let arr = self.pop1(f, i)?;
                let v = match arr {
                    VType::Object(id) => {
                        let n = self.types.interner.name(id);
                        match n.strip_prefix('[') {
                            Some(c) if c.starts_with('L') || c.starts_with('[') => {
                                let e = element_name(c).to_string();
                                VType::Object(self.types.interner.id(&e))
                            }
                            _ => VType::Object(self.types.interner.id(OBJECT)),
                        }
                    }
                    VType::Null => VType::Null,
                    _ => VType::Object(self.types.interner.id(OBJECT)),
                };
                f.stack.push(v);
            }
            Insn::Simple(o @ (op::DUP..=op::SWAP)) => {
                let s = &mut f.stack;
                if s.len() < shuffle_depth(*o) {
                    return Err(self.err(i, "stack underflow in dup/swap"));
                }
                shuffle_slots(s, *o);
            }
            Insn::Cp {
                op: o @ (op::GETSTATIC..=op::PUTFIELD),
                index,
            } => {
                let r = self.ref_effect(*index, RefKind::Field, i)?;
                let size = usize::from(r.slots);
                match *o {
                    op::GETSTATIC => push_value(f, r.value),
                    op::PUTSTATIC => self.pop(f, size, i)?,
                    op::GETFIELD => {
                        self.pop(f, 1, i)?;
                        push_value(f, r.value);
                    }
                    _ => self.pop(f, size + 1, i)?,
                }
            }
            Insn::Cp {
                op: op::INVOKEVIRTUAL | op::INVOKESPECIAL | op::INVOKESTATIC,
                index,
            }
            | Insn::InvokeInterface { index, .. } => {
                let o = opc;
                let sig = self.ref_effect(*index, RefKind::Method, i)?;
                self.pop(f, usize::from(sig.slots), i)?;
                if o != op::INVOKESTATIC {
                    let recv = self.pop1(f, i)?;
                    if o == op::INVOKESPECIAL && sig.is_init {
                        let init = match recv {
                            VType::UninitThis => VType::Object(self.this_id),
                            VType::Uninit(l) => {
                                VType::Object(*self.new_class.get(&l).ok_or_else(|| {
                                    self.err(i, "uninitialized value of unknown origin")
                                })?)
                            }
                            _ => return Err(self.err(i, "<init> called on an initialized value")),
                        };
                        for v in f.locals.iter_mut().chain(f.stack.iter_mut()) {
                            if *v == recv {
                                *v = init;
                            }
                        }
                    }
                }
                push_value(f, sig.value);
            }
            Insn::InvokeDynamic { index } => {
                let (_, d) = pool.dynamic(*index)?;
                let (n, ret) = descriptor::method_slots(&d)?;
                self.pop(f, n, i)?;
                self.push_desc(f, ret)?;
            }
            Insn::Cp { op: op::NEW, .. } => {
                let l = label_before(self.code, i).expect("normalize labels each new");
                f.stack.push(VType::Uninit(l));
            }
            Insn::NewArray { atype } => {
                self.pop(f, 1, i)?;
                let d = match atype {
                    4 => "[Z",
                    5 => "[C",
                    6 => "[F",
                    7 => "[D",
                    8 => "[B",
                    9 => "[S",
                    10 => "[I",
                    11 => "[J",
                    _ => return Err(self.err(i, format!("newarray with bad type code {atype}"))),
                };
                f.stack.push(VType::Object(self.types.interner.id(d)));
            }
            Insn::Cp {
                op: op::ANEWARRAY,
                index,
            } => {
                self.pop(f, 1, i)?;
                let c = pool.class_name(*index)?;
                let d = if c.starts_with('[') {
                    format!("[{c}")
                } else {
                    format!("[L{c};")
                };
                f.stack.push(VType::Object(self.types.interner.id(&d)));
            }
            Insn::Cp {
                op: op::CHECKCAST,
                index,
            } => {
                self.pop(f, 1, i)?;
                push_value(f, self.ref_effect(*index, RefKind::Class, i)?.value);
            }
            Insn::MultiANewArray { index, dims } => {
                self.pop(f, *dims as usize, i)?;
                push_value(f, self.ref_effect(*index, RefKind::Class, i)?.value);
            }
            other => return Err(self.err(i, format!("cannot simulate {other:?}"))),
        }
        Ok(())
    }

    fn exec_store(&mut self, f: &mut Frame, base: u8, index: usize, i: usize) -> Result<()> {
        match base {
            54 => {
                self.pop(f, 1, i)?;
                self.store(f, index, VType::Int, false, i)
            }
            55 => {
                self.pop(f, 2, i)?;
                self.store(f, index, VType::Long, true, i)
            }
            56 => {
                self.pop(f, 1, i)?;
                self.store(f, index, VType::Float, false, i)
            }
            57 => {
                self.pop(f, 2, i)?;
                self.store(f, index, VType::Double, true, i)
            }
            _ => {
                let v = self.pop1(f, i)?;
                if !v.is_ref() && v != VType::Top {
                    return Err(self.err(i, "astore of a primitive value"));
                }
                self.store(f, index, v, false, i)
            }
        }
    }

    /// Replaces dead blocks, trims exception ranges, and lists the frames to write.
    fn finish(mut self) -> Result<Finished> {
        let throwable = VType::Object(self.types.interner.id("java/lang/Throwable"));
        let dead: Vec<bool> = self.entries.iter().map(|e| e.is_none()).collect();
        let any_dead = dead.iter().any(|d| *d);
        // Which blocks need a frame: branch/handler targets of live code, and
        // every block after an unconditional transfer.
        let mut needs = vec![false; self.blocks.len()];
        for (b, blk) in self.blocks.iter().enumerate() {
            if dead[b] {
                needs[b] = true;
                continue;
            }
            // Only a block's last instruction branches (a leader follows
            // every branch).
            let Some(insn) = self.code.insns[blk.start..blk.end]
                .iter()
                .rfind(|x| !matches!(x, Insn::Label(_)))
            else {
                continue;
            };
            for t in insn.targets() {
                needs[self.block_at[self.label_pos[t.0 as usize]] as usize] = true;
            }
            if let Some(last) = insn.opcode() {
                if !matches!(flow(last), Flow::Next | Flow::Conditional)
                    && b + 1 < self.blocks.len()
                {
                    needs[b + 1] = true;
                }
            }
        }
        if any_dead {
            self.max_stack = self.max_stack.max(1);
            self.trim_handlers(&dead);
            // Replace dead instructions (keep labels) by one athrow per block.
            let mut out = Vec::with_capacity(self.code.insns.len());
            let mut b = 0;
            for (i, insn) in self.code.insns.iter().enumerate() {
                while b + 1 < self.blocks.len() && self.blocks[b + 1].start <= i {
                    b += 1;
                }
                let in_block =
                    !self.blocks.is_empty() && i >= self.blocks[b].start && i < self.blocks[b].end;
                if in_block && dead[b] && !matches!(insn, Insn::Label(_)) {
                    if i == self.blocks[b].start
                        || (self.blocks[b].start..i)
                            .all(|k| matches!(self.code.insns[k], Insn::Label(_)))
                    {
                        out.push(Insn::Simple(op::ATHROW));
                    }
                    continue;
                }
                out.push(insn.clone());
            }
            self.code.insns = out;
        }
        for h in &self.code.handlers {
            // Handler targets of remaining ranges.
            let hb = self.block_at[self.label_pos[h.handler.0 as usize]];
            if hb != u32::MAX {
                needs[hb as usize] = true;
            }
        }
        let initial = entries(&self.initial_frame()?.locals, true);
        let mut frames = Vec::with_capacity(needs.iter().filter(|n| **n).count());
        for (b, blk) in self.blocks.iter().enumerate() {
            if !needs[b] {
                continue;
            }
            let f = match self.entries[b].take() {
                Some(f) => f,
                None => Frame {
                    locals: Vec::new(),
                    stack: vec![throwable],
                },
            };
            frames.push((blk.label, f));
        }
        Ok(Finished {
            frames,
            initial,
            max_stack: self.max_stack.min(0xFFFF) as u16,
            max_locals: self.max_locals as u16,
            types: std::mem::take(&mut self.types),
            rewritten: any_dead,
            inserted: std::mem::take(&mut self.inserted),
        })
    }

    /// Cuts dead blocks out of exception ranges (splitting ranges), in place.
    fn trim_handlers(&mut self, dead: &[bool]) {
        let mut out = Vec::with_capacity(self.code.handlers.len());
        for h in &self.code.handlers {
            let (s, e) = (
                self.label_pos[h.start.0 as usize],
                self.label_pos[h.end.0 as usize],
            );
            let mut run: Option<Label> = None;
            for (b, blk) in self.blocks.iter().enumerate() {
                if blk.start < s || blk.start >= e {
                    continue;
                }
                match (dead[b], run) {
                    (false, None) => run = Some(blk.label),
                    (true, Some(st)) => {
                        out.push(Handler {
                            start: st,
                            end: blk.label,
                            ..*h
                        });
                        run = None;
                    }
                    _ => {}
                }
            }
            if let Some(st) = run {
                out.push(Handler {
                    start: st,
                    end: h.end,
                    ..*h
                });
            }
        }
        self.code.handlers = out;
    }
}

/// Pushes a value of type `v` (a long or double with its second slot `Top`;
/// nothing for `None`, a void result).
fn push_value(f: &mut Frame, v: Option<VType>) {
    match v {
        None => {}
        Some(v @ (VType::Long | VType::Double)) => f.stack.extend([v, VType::Top]),
        Some(v) => f.stack.push(v),
    }
}

/// For `[Lfoo;` → `foo`; for `[[I` → `[I` (the component's name as used in frames).
fn element_name(component: &str) -> &str {
    if let Some(n) = component.strip_prefix('L') {
        n.strip_suffix(';').unwrap_or(n)
    } else {
        component
    }
}

/// The label right before instruction `i` (the closest of several), if any.
fn label_before(code: &Code, i: usize) -> Option<Label> {
    match i.checked_sub(1).map(|p| &code.insns[p]) {
        Some(Insn::Label(l)) => Some(*l),
        _ => None,
    }
}

/// What [`normalize`] finds in its pass over a body, as it is after
/// normalize labelled it.
struct Scan {
    /// The instruction index each label stands before (`insns.len()` for a
    /// label at the end, `usize::MAX` for a label not placed).
    label_pos: Vec<usize>,
    /// Which instruction indices start basic blocks.
    leaders: Vec<bool>,
    /// One past the highest local slot an instruction names.
    max_locals: usize,
    /// The index of each `new` and the pool index of its class, in code order.
    news: Vec<(usize, u16)>,
    /// The labels normalize inserted, each with the index (before the
    /// insertion) of the instruction it stands before, in code order.
    inserted: Vec<(usize, Label)>,
}

/// Puts a label before every block leader and every `new` that lacks one.
/// One pass over the body finds where the labels stand, the leaders (the
/// first instruction, branch targets, handler starts and ends and handler
/// entries, and what follows a branch, return or throw), the local slots the
/// code names and its `new`s; what moves when labels are inserted is moved
/// with them.
fn normalize(code: &mut Code) -> Result<Scan> {
    let n = code.insns.len();
    let mut label_pos = vec![usize::MAX; code.label_count()];
    // One slot past the end takes the positions at or past it (ignored).
    let mut leaders = vec![false; n + 1];
    let mut max_locals = 0;
    let mut news = Vec::with_capacity(n / 32);
    // Branch targets, in code order.
    let mut targets: Vec<Label> = Vec::with_capacity(n / 16);
    {
        let insns = &code.insns;
        // The labels of insns[run..i] stand before instruction i.
        let mut run = 0;
        let mut place = |labels: &[Insn], at: usize| {
            for x in labels {
                if let Insn::Label(l) = x {
                    if let Some(p) = label_pos.get_mut(l.0 as usize) {
                        *p = at;
                    }
                }
            }
        };
        let mut first = true;
        let mut after_jump = false;
        for (i, insn) in insns.iter().enumerate() {
            if matches!(insn, Insn::Label(_)) {
                continue;
            }
            if run < i {
                place(&insns[run..i], i);
            }
            run = i + 1;
            if first || after_jump {
                leaders[i] = true;
                first = false;
            }
            after_jump = match insn {
                Insn::Jump { target, .. } => {
                    targets.push(*target);
                    true
                }
                Insn::TableSwitch { .. } | Insn::LookupSwitch { .. } => {
                    targets.extend(insn.targets());
                    true
                }
                Insn::Local { op, index, .. } => {
                    max_locals = max_locals.max(*index as usize + local_size(*op));
                    !matches!(flow(*op), Flow::Next)
                }
                Insn::Simple(o) => {
                    if let Some((_, i)) = short_form(*o) {
                        max_locals = max_locals.max(i as usize + local_size(*o));
                    }
                    !matches!(flow(*o), Flow::Next)
                }
                Insn::Iinc { index, .. } => {
                    max_locals = max_locals.max(*index as usize + 1);
                    false
                }
                Insn::Cp { op: op::NEW, index } => {
                    news.push((i, *index));
                    false
                }
                _ => false,
            };
        }
        place(&insns[run.min(n)..], n);
    }
    let placed = |l: Label| {
        label_pos
            .get(l.0 as usize)
            .is_some_and(|p| *p != usize::MAX)
    };
    if let Some(t) = targets.iter().find(|t| !placed(**t)) {
        return Err(Error::malformed(
            None,
            format!("branch to label {} that is not placed", t.0),
        ));
    }
    for h in &code.handlers {
        for l in [h.start, h.end, h.handler] {
            if !placed(l) {
                return Err(Error::malformed(
                    None,
                    "exception handler label is not placed",
                ));
            }
        }
    }
    for t in targets {
        leaders[label_pos[t.0 as usize].min(n)] = true;
    }
    for h in &code.handlers {
        for l in [h.start, h.end, h.handler] {
            leaders[label_pos[l.0 as usize].min(n)] = true;
        }
    }
    leaders.truncate(n);
    let mut missing: Vec<usize> = Vec::with_capacity(n / 16);
    let mut after_label = false;
    for (i, insn) in code.insns.iter().enumerate() {
        let is_label = matches!(insn, Insn::Label(_));
        if !is_label && !after_label && (leaders[i] || matches!(insn, Insn::Cp { op: op::NEW, .. }))
        {
            missing.push(i);
        }
        after_label = is_label;
    }
    if missing.is_empty() {
        return Ok(Scan {
            label_pos,
            leaders,
            max_locals,
            news,
            inserted: Vec::new(),
        });
    }
    // Insert the labels, copying the runs of instructions between them; every
    // instruction moves by the labels inserted up to it, and so do the
    // positions, leaders and `new`s found above.
    let total = n + missing.len();
    let mut out = Vec::with_capacity(total);
    let mut new_leaders = Vec::with_capacity(total);
    let mut added = Vec::with_capacity(missing.len());
    let mut inserted = Vec::with_capacity(missing.len());
    let mut old = std::mem::take(&mut code.insns).into_iter();
    let mut prev = 0;
    for &i in &missing {
        out.extend(old.by_ref().take(i - prev));
        new_leaders.extend_from_slice(&leaders[prev..i]);
        let l = code.new_label();
        out.push(Insn::Label(l));
        new_leaders.push(false);
        added.push((l, out.len()));
        inserted.push((i, l));
        prev = i;
    }
    out.extend(old);
    new_leaders.extend_from_slice(&leaders[prev..]);
    code.insns = out;
    let moved = |p: usize| p + missing.partition_point(|&m| m <= p);
    let mut label_pos: Vec<usize> = label_pos
        .into_iter()
        .map(|p| if p == usize::MAX { p } else { moved(p) })
        .collect();
    label_pos.resize(code.label_count(), usize::MAX);
    for (l, p) in added {
        label_pos[l.0 as usize] = p;
    }
    for (i, _) in &mut news {
        *i = moved(*i);
    }
    Ok(Scan {
        label_pos,
        leaders: new_leaders,
        max_locals,
        news,
        inserted,
    })
}

/// The layout of a body after [`normalize`] inserted `inserted` labels into
/// it, from its layout before (`before`, of the same body unlabelled): labels
/// take no bytes, so every instruction keeps its offset and an inserted label
/// takes that of the instruction it stands before. Cheaper than laying the
/// body out again.
fn layout_with_inserted(before: Layout, inserted: &[(usize, Label)], label_count: usize) -> Layout {
    if inserted.is_empty() {
        return before;
    }
    let Layout {
        insn_offsets: old,
        mut label_offsets,
        code_len,
    } = before;
    let mut insn_offsets = Vec::with_capacity(old.len() + inserted.len());
    let mut prev = 0;
    for &(i, _) in inserted {
        insn_offsets.extend_from_slice(&old[prev..i]);
        insn_offsets.push(old[i]);
        prev = i;
    }
    insn_offsets.extend_from_slice(&old[prev..]);
    label_offsets.resize(label_count, u32::MAX);
    for &(i, l) in inserted {
        label_offsets[l.0 as usize] = old[i];
    }
    Layout {
        insn_offsets,
        label_offsets,
        code_len,
    }
}

/// What [`vti`] writes with: the names, the layout, the pool, and the pool
/// index of each interned name's Class entry once asked for (0: not yet).
struct VtiContext<'x, 'p> {
    interner: &'x Interner,
    layout: &'x crate::code::Layout,
    pool: &'x mut PoolBuilder<'p>,
    classes: &'x mut Vec<u16>,
}

#[inline]
fn vti(v: VType, cx: &mut VtiContext<'_, '_>, out: &mut Vec<u8>) -> Result<()> {
    match v {
        VType::Top => out.push(0),
        VType::Int => out.push(1),
        VType::Float => out.push(2),
        VType::Double => out.push(3),
        VType::Long => out.push(4),
        VType::Null => out.push(5),
        VType::UninitThis => out.push(6),
        VType::Object(id) => {
            out.push(7);
            let known = cx.classes[id as usize];
            let index = if known != 0 {
                known
            } else {
                let index = cx.pool.class(cx.interner.name(id))?;
                cx.classes[id as usize] = index;
                index
            };
            out.extend_from_slice(&index.to_be_bytes());
        }
        VType::Uninit(l) => {
            out.push(8);
            out.extend_from_slice(&(cx.layout.offset(l) as u16).to_be_bytes());
        }
    }
    Ok(())
}

/// Slots → frame entries (a long/double entry covers two slots), trailing `Top`s dropped.
fn entries(slots: &[VType], trim: bool) -> Vec<VType> {
    let mut out = Vec::with_capacity(slots.len());
    entries_into(slots, trim, &mut out);
    out
}

/// [`entries`] into `out` (cleared first).
fn entries_into(slots: &[VType], trim: bool, out: &mut Vec<VType>) {
    out.clear();
    let mut i = 0;
    while i < slots.len() {
        out.push(slots[i]);
        i += if matches!(slots[i], VType::Long | VType::Double) {
            2
        } else {
            1
        };
    }
    if trim {
        while out.last() == Some(&VType::Top) {
            out.pop();
        }
    }
}

fn encode_frames(
    frames: &[(Label, Frame)],
    initial: Vec<VType>,
    types: &mut ClassTypes,
    layout: &crate::code::Layout,
    pool: &mut PoolBuilder<'_>,
) -> Result<Vec<u8>> {
    let mut sorted: Vec<(u32, &Frame)> =
        frames.iter().map(|(l, f)| (layout.offset(*l), f)).collect();
    types.class_entries.resize(types.interner.names.len(), 0);
    let mut cx = VtiContext {
        interner: &types.interner,
        layout,
        pool,
        classes: &mut types.class_entries,
    };
    sorted.sort_by_key(|x| x.0);
    let mut prev = initial;
    // One pair of buffers for every frame's entries.
    let (mut locals, mut stack) = (Vec::new(), Vec::new());
    let mut out = Vec::with_capacity(2 + 8 * sorted.len());
    out.extend_from_slice(&(sorted.len() as u16).to_be_bytes());
    let mut last: i64 = -1;
    for (off, f) in sorted {
        let delta = (off as i64 - last - 1) as u32;
        last = off as i64;
        if delta > 0xFFFF {
            return Err(Error::malformed(None, "frame offset delta out of range"));
        }
        let d = delta as u16;
        entries_into(&f.locals, true, &mut locals);
        entries_into(&f.stack, false, &mut stack);
        let same = locals == prev;
        if same && stack.is_empty() {
            if d < 64 {
                out.push(d as u8);
            } else {
                out.push(251);
                out.extend_from_slice(&d.to_be_bytes());
            }
        } else if same && stack.len() == 1 {
            if d < 64 {
                out.push(64 + d as u8);
            } else {
                out.push(247);
                out.extend_from_slice(&d.to_be_bytes());
            }
            vti(stack[0], &mut cx, &mut out)?;
        } else if stack.is_empty()
            && locals.len() < prev.len()
            && prev.len() - locals.len() <= 3
            && prev[..locals.len()] == locals[..]
        {
            out.push(251 - (prev.len() - locals.len()) as u8);
            out.extend_from_slice(&d.to_be_bytes());
        } else if stack.is_empty()
            && locals.len() > prev.len()
            && locals.len() - prev.len() <= 3
            && locals[..prev.len()] == prev[..]
        {
            out.push(251 + (locals.len() - prev.len()) as u8);
            out.extend_from_slice(&d.to_be_bytes());
            for v in &locals[prev.len()..] {
                vti(*v, &mut cx, &mut out)?;
            }
        } else {
            out.push(255);
            out.extend_from_slice(&d.to_be_bytes());
            out.extend_from_slice(&(locals.len() as u16).to_be_bytes());
            for v in &locals {
                vti(*v, &mut cx, &mut out)?;
            }
            out.extend_from_slice(&(stack.len() as u16).to_be_bytes());
            for v in &stack {
                vti(*v, &mut cx, &mut out)?;
            }
        }
        std::mem::swap(&mut prev, &mut locals);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::CodeAttr;
    use crate::hierarchy::ClassInfo;

    /// Every class directly under `java/lang/Object`.
    struct Flat;
    impl ClassHierarchy for Flat {
        fn class_info(&self, name: &str) -> Option<ClassInfo> {
            Some(ClassInfo {
                super_name: (name != OBJECT).then(|| Arc::from(OBJECT)),
                is_interface: false,
            })
        }
    }

    const CTX: MethodContext<'static> = MethodContext {
        class_name: "T",
        name: "f",
        descriptor: "(Z)Ljava/lang/Object;",
        is_static: true,
        major_version: 61,
    };

    /// `static Object f(boolean z) { return z ? T.a() : T.b; }` with `a()`
    /// returning an `A` and `b` holding a `B`: the join's frame has their
    /// least upper bound on the stack.
    fn body(pool: &mut PoolBuilder<'_>) -> Code {
        let a = pool.method_ref("T", "a", "()LA;", false).unwrap();
        let b = pool.field_ref("T", "b", "LB;").unwrap();
        let mut code = Code::empty();
        let (other, join) = (code.new_label(), code.new_label());
        code.insns = vec![
            Insn::Simple(op::ILOAD_0),
            Insn::Jump {
                op: op::IFEQ,
                target: other,
            },
            Insn::Cp {
                op: op::INVOKESTATIC,
                index: a,
            },
            Insn::Jump {
                op: op::GOTO,
                target: join,
            },
            Insn::Label(other),
            Insn::Cp {
                op: op::GETSTATIC,
                index: b,
            },
            Insn::Label(join),
            Insn::Simple(176), // areturn
        ];
        code
    }

    fn frames_of(code: &Code, pool: &PoolBuilder<'_>) -> Vec<FrameAt> {
        let data = code
            .attributes
            .iter()
            .find_map(|a| match a {
                CodeAttr::StackMapTable { data, .. } => Some(data.clone()),
                _ => None,
            })
            .expect("frames written");
        read_stack_map(&data, &CTX, pool).unwrap()
    }

    /// The second method of a class, analysed with what the first left in
    /// the pool (names, decoded references), gets the frames a fresh pool
    /// gives, and they are the right ones.
    #[test]
    fn shared_class_types_give_the_frames_of_a_fresh_analysis() {
        let mut shared = PoolBuilder::empty();
        let mut first = body(&mut shared);
        compute(&mut first, &CTX, &mut shared, &Flat).unwrap();
        let mut second = body(&mut shared);
        compute(&mut second, &CTX, &mut shared, &Flat).unwrap();
        let mut fresh = PoolBuilder::empty();
        let mut alone = body(&mut fresh);
        compute(&mut alone, &CTX, &mut fresh, &Flat).unwrap();
        let frames = frames_of(&second, &shared);
        assert_eq!(frames, frames_of(&alone, &fresh));
        assert_eq!(frames, frames_of(&first, &shared));
        // `other` after the goto (offset 10), the join (13) with A ⊔ B.
        let offsets: Vec<u32> = frames.iter().map(|f| f.offset).collect();
        assert_eq!(offsets, vec![10, 13]);
        assert!(frames[0].stack.is_empty());
        assert_eq!(frames[1].stack, vec![Value::Object(OBJECT.to_string())]);
        assert_eq!(frames[1].locals, vec![Value::Int]);
        assert_eq!((second.max_stack, second.max_locals), (1, 1));
    }

    /// The worklist hands out the queued block first in code order, each
    /// once however often it was queued.
    #[test]
    fn worklist_takes_blocks_in_code_order() {
        let mut w = Worklist::new(5);
        for b in [3, 1, 4, 1] {
            w.push(b);
        }
        assert_eq!(w.pop(), Some(1));
        w.push(0); // a back edge
        assert_eq!(w.pop(), Some(0));
        assert_eq!(w.pop(), Some(3));
        assert_eq!(w.pop(), Some(4));
        assert_eq!(w.pop(), None);
    }
}
