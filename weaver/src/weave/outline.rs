//! Advice dispatch out of line, for methods whose woven code would exceed the
//! JVM's 64 KiB limit.
//!
//! A method that overflows is woven again in *compact* mode
//! ([`MethodWeave::compact`]): each advice call (the residue test,
//! `aspectOf()`, the advice's arguments, the advice) moves into a private
//! static synthetic helper method of the same class, `major$advice$N`, which
//! takes the context values it reads as parameters; in the big method only the
//! loads of those values and one `invokestatic` remain. A point shadow's
//! operands stay on the stack when no advice there looks at them. Helpers
//! with the same code are one method: every shadow whose dispatch is the same
//! (ExecutionCounter-like before advice on thousands of calls) calls the same
//! helper. What stays inline: around advice (its proceed method and closure),
//! cflow entries, the shadow's shared `thisJoinPoint`, and a static part a
//! helper loads makes that helper the shadow's own.

use rustc_hash::FxHashMap as HashMap;

use major_classfile::frames::{self, MethodContext};
use major_classfile::opcodes::op;
use major_classfile::{Code, Insn, Label, Result};

use super::bypass::remap_labels;
use super::join_points::JOIN_POINT;
use super::matching::Matched;
use super::method::{method_info, MethodWeave};
use super::plan::{Residue, Source};
use super::shadows::Context;
use super::{emit, is_around};

/// `ACC_INTERFACE` of a class.
const ACC_INTERFACE: u16 = 0x0200;

/// The helper methods added to one class, by their descriptor and code.
#[derive(Debug, Default)]
pub(super) struct Helpers {
    by_code: HashMap<String, String>,
    /// Keys in the order the helpers were made (for [`Helpers::rollback`]).
    made: Vec<String>,
}

impl Helpers {
    /// How many helpers there are, for [`Helpers::rollback`].
    pub(super) fn mark(&self) -> usize {
        self.made.len()
    }

    /// Forgets the helpers made after `mark` (their method left unwoven).
    pub(super) fn rollback(&mut self, mark: usize) {
        for key in self.made.drain(mark..) {
            self.by_code.remove(&key);
        }
    }

    /// How many helpers the class has.
    pub(super) fn len(&self) -> usize {
        self.made.len()
    }
}

/// Whether a class can take helper methods: classes always (private static
/// methods are valid in every version), interfaces from Java 8 (52) on.
pub(super) fn can_take_helpers(access: u16, major_version: u16) -> bool {
    access & ACC_INTERFACE == 0 || major_version >= 52
}

/// Whether some advice in `matched` looks at a point shadow's operands (the
/// target and arguments): binds them, tests their types, takes the join point,
/// or is around advice or a cflow entry (which may push them).
pub(super) fn uses_operands(matched: &[Matched<'_, '_>]) -> bool {
    let operand = |s: &Source| matches!(s, Source::Target | Source::Arg { .. });
    matched.iter().any(|m| {
        is_around(m.advice)
            || m.advice.entry.is_some()
            || m.advice.binds.iter().flatten().any(operand)
            || residue_mentions(&m.residue, &operand)
            || takes_join_point(m)
    })
}

/// Whether some advice in `matched` looks at the value a point shadow
/// returns (binds it or tests its type), or is around advice.
pub(super) fn uses_result(matched: &[Matched<'_, '_>]) -> bool {
    let returned = |s: &Source| *s == Source::Returning;
    matched.iter().any(|m| {
        is_around(m.advice)
            || m.advice.entry.is_some()
            || m.advice.binds.iter().flatten().any(returned)
            || residue_mentions(&m.residue, &returned)
    })
}

/// Whether the advice or one of its `if(..)` tests takes `thisJoinPoint`.
fn takes_join_point(m: &Matched<'_, '_>) -> bool {
    let jp = |e: &crate::aspects::Extra| *e == crate::aspects::Extra::JoinPoint;
    m.advice.method.extras().any(|e| jp(&e))
        || m.advice
            .method
            .if_tests
            .iter()
            .any(|t| t.extras.iter().any(jp))
}

/// Whether residue `r` tests a value `wanted` selects (`if(..)` tests count:
/// they may take any bound value).
fn residue_mentions(r: &Residue, wanted: &impl Fn(&Source) -> bool) -> bool {
    match r {
        Residue::True | Residue::False | Residue::Cflow(_) => false,
        Residue::If(_) => true,
        Residue::InstanceOf(s, _) => wanted(s),
        Residue::Not(x) => residue_mentions(x, wanted),
        Residue::And(x, y) | Residue::Or(x, y) => {
            residue_mentions(x, wanted) || residue_mentions(y, wanted)
        }
    }
}

/// Whether `op` loads a local (`iload` … `aload`, long forms).
fn is_load(op: u8) -> bool {
    (op::ILOAD..=op::ALOAD).contains(&op)
}

/// The slots a local stored with `op` takes (2 for `lstore`/`dstore`).
fn stored_size(op: u8) -> u16 {
    match op {
        55 | 57 => 2, // lstore, dstore
        _ => 1,
    }
}

impl MethodWeave<'_, '_, '_> {
    /// Emits `dispatch` (stack-neutral advice dispatch code reading locals of
    /// `ctx`) into `out` as a call of a helper method that runs it: the values
    /// it reads are loaded and passed as arguments. Where the class cannot
    /// take helpers, or the code reads a local `ctx` does not describe, the
    /// code stays inline.
    pub(super) fn outline(
        &mut self,
        dispatch: Vec<Insn>,
        ctx: &Context,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        if !can_take_helpers(self.cls.access, self.major_version) {
            out.extend(dispatch);
            return Ok(());
        }
        // The context's values by local.
        let mut described: Vec<(u16, String)> = Vec::new();
        if let Some(t) = &ctx.this {
            described.push((0, t.clone()));
        }
        described.extend(ctx.target.iter().cloned());
        described.extend(ctx.args.iter().cloned());
        described.extend(ctx.ret.iter().filter(|(_, d)| d != "V").cloned());
        described.extend(ctx.exc.iter().cloned());
        if let Some(l) = ctx.jp {
            described.push((l, JOIN_POINT.to_string()));
        }
        // Locals read before written are the helper's parameters; the others
        // (a dispatch's own temps) follow them.
        let mut params: Vec<(u16, String)> = Vec::new();
        let mut own: Vec<(u16, u16)> = Vec::new(); // (local, slots)
        for insn in &dispatch {
            let (index, load, size) = match insn {
                Insn::Local { op, index, .. } => (*index, is_load(*op), stored_size(*op)),
                Insn::Iinc { index, .. } => (*index, true, 1),
                _ => continue,
            };
            if own.iter().any(|(l, _)| *l == index) || params.iter().any(|(l, _)| *l == index) {
                continue;
            }
            if load {
                match described.iter().find(|(l, _)| *l == index) {
                    Some(p) => params.push(p.clone()),
                    None => {
                        out.extend(dispatch);
                        return Ok(());
                    }
                }
            } else {
                own.push((index, size));
            }
        }
        let mut slot_of: HashMap<u16, u16> = HashMap::default();
        let mut next = 0u16;
        for (l, d) in &params {
            slot_of.insert(*l, next);
            next += emit::size(d);
        }
        for (l, size) in &own {
            slot_of.insert(*l, next);
            next += size;
        }
        let descriptor = format!(
            "({})V",
            params.iter().map(|(_, d)| d.as_str()).collect::<String>()
        );
        // The helper's code: labels renumbered in its own body, locals moved.
        let mut helper = Code::empty();
        let mut labels: HashMap<Label, Label> = HashMap::default();
        for insn in &dispatch {
            let mut seen: Vec<Label> = insn.targets().collect();
            if let Insn::Label(l) = insn {
                seen.push(*l);
            }
            for l in seen {
                labels.entry(l).or_insert_with(|| helper.new_label());
            }
        }
        let mut insns: Vec<Insn> = dispatch
            .iter()
            .map(|i| match remap_labels(i, &|l| labels[&l]) {
                Insn::Local { op, index, wide } => Insn::Local {
                    op,
                    index: slot_of[&index],
                    wide,
                },
                Insn::Iinc { index, delta, wide } => Insn::Iinc {
                    index: slot_of[&index],
                    delta,
                    wide,
                },
                other => other,
            })
            .collect();
        insns.push(Insn::Simple(op::RETURN));
        let key = format!("{descriptor}{insns:?}");
        let name = match self.helpers.by_code.get(&key) {
            Some(name) => name.clone(),
            None => {
                let name = format!("major$advice${}", self.helpers.len());
                emit::compact_locals(&mut insns);
                helper.insns = insns;
                let class_name = self.cls.name.clone();
                let mctx = MethodContext {
                    class_name: &class_name,
                    name: &name,
                    descriptor: &descriptor,
                    is_static: true,
                    major_version: self.major_version,
                };
                frames::compute(&mut helper, &mctx, self.pool, self.weaver.world.index())?;
                // private static synthetic
                let method = method_info(0x100A, &name, &descriptor, &helper, self.pool)?;
                self.added.push(method);
                self.helpers.by_code.insert(key.clone(), name.clone());
                self.helpers.made.push(key);
                name
            }
        };
        for (l, d) in &params {
            out.push(emit::load(d, *l));
        }
        let interface = self.cls.access & ACC_INTERFACE != 0;
        let m = self
            .pool
            .method_ref(&self.cls.name.clone(), &name, &descriptor, interface)?;
        out.push(Insn::Cp {
            op: op::INVOKESTATIC,
            index: m,
        });
        Ok(())
    }
}
