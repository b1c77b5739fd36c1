//! Full coverage: point shadows woven as straight-line code, one call of a
//! dispatch method ([`bypass::Dispatch`]) per advice next to the shadow's
//! instruction, which stays where it was.
//!
//! With guards, a woven point shadow holds its woven code and its original
//! instruction with a branch on the method's bypass decision between them
//! (`iload d; ifne bypassed`). Those branches have targets whose frames the
//! frame analysis must find, from the nearest original frame on: most of a
//! full weave's time where shadows are dense (ObjectTracker advises every
//! `new` of the class library). A dispatch method checks the bypasses itself,
//! so where every advice at a shadow can be called through one, the shadow
//! becomes
//!
//! ```text
//!   invokestatic before₂; invokestatic before₁       (highest precedence first)
//!   <the instruction>
//!   [dup;] invokestatic after₁; [dup;] invokestatic after₂
//! ```
//!
//! which neither branches nor moves an instruction: the original frames
//! still hold, at their new offsets ([`major_classfile::kept_frames`]), and a
//! method whose woven shadows are all of this kind needs no bypass decision
//! on entry (`MethodWeave::drop_unused_decision`). The
//! woven code is smaller too: 3 or 4 bytes per advice where a guarded shadow
//! takes its advice call, the bypass test and a copy of the instruction.
//!
//! A shadow qualifies when it is a method or constructor call or a field
//! access, and every advice at it
//! * has a dispatch (an instance method of a singleton aspect whose
//!   parameters, if any, are formals of type `Object`),
//! * matched without a residue (no run-time test, no `cflow`),
//! * is `before` (not on a constructor call, whose `new` would run before the
//!   advice: its class initialized earlier than AspectJ's order) or `after
//!   returning`, the same for all of them (see below),
//! * takes no value, or (after returning) the returned reference alone: a
//!   call's reference result, or the object a constructor call made where its
//!   `new; dup` leaves it on the stack ([`super::shadows`]' `new_at`), which
//!   `dup` passes on.
//!
//! Any other shadow is woven with its guard, as before.
//!
//! **When the bypasses are checked.** A guarded shadow follows the decision
//! its method took on entry; a straight-line shadow, the bypasses at the
//! moment it runs. For the DIB the two agree: advice sets and clears it
//! around its own run, so it cannot change between a method's entry and a
//! shadow in it. For the BIB they differ only in a method that was entered
//! before the VM booted and still runs after (a thread's loop started during
//! start-up): its straight-line shadows run their advice from the boot on,
//! which is what the BIB promises (no advice before the boot, every join
//! point's advice after it). A join point's before and after advice still run
//! both or neither: a shadow with both keeps its guard, since a call during
//! which the VM boots would otherwise run its after advice alone.

use major_classfile::opcodes::op;
use major_classfile::{Insn, Result};
use major_pointcut_lang::ast::AdviceKind;
use major_pointcut_lang::matcher::ShadowKind;

use super::bypass;
use super::matching::Matched;
use super::method::MethodWeave;
use super::plan::{Residue, Source};
use super::shadows::Found;
use crate::aspects::Param;

impl MethodWeave<'_, '_, '_> {
    /// The straight-line code that replaces instruction `insn` of point
    /// shadow `f` (which leaves `result` on the stack; `moves_new`: a
    /// constructor call whose `new; dup` leaves the new object there), if
    /// every advice in `matched` qualifies (see the module documentation).
    /// `None`: the shadow is woven with its guard.
    pub(super) fn straight_line(
        &mut self,
        f: &Found,
        matched: &[Matched<'_, '_>],
        result: Option<&str>,
        moves_new: bool,
        insn: &Insn,
    ) -> Result<Option<Vec<Insn>>> {
        if self.guard.is_none() {
            return Ok(None);
        }
        let kind = f.kind;
        if !matches!(
            kind,
            ShadowKind::MethodCall
                | ShadowKind::ConstructorCall
                | ShadowKind::FieldGet
                | ShadowKind::FieldSet
        ) {
            return Ok(None);
        }
        // What `dup` can pass on after the instruction: a reference.
        let reference = match kind {
            ShadowKind::ConstructorCall => moves_new,
            ShadowKind::MethodCall => result.is_some_and(|d| d.starts_with(['L', '['])),
            _ => false,
        };
        let weaver = self.weaver;
        let mut calls = Vec::with_capacity(matched.len());
        for m in matched {
            let a = m.advice;
            if m.residue != Residue::True || a.entry.is_some() {
                return Ok(None);
            }
            let Some(d) = weaver.dispatch.get(a.id).and_then(Option::as_ref) else {
                return Ok(None);
            };
            let after = match a.resolved.kind {
                AdviceKind::Before if kind != ShadowKind::ConstructorCall => false,
                AdviceKind::AfterReturning(_) => true,
                _ => return Ok(None),
            };
            let passes_result = match (d.arity(), a.method.params.as_slice()) {
                (0, _) => false,
                (1, [Param::Formal(k)])
                    if after && reference && a.binds.get(*k) == Some(&Some(Source::Returning)) =>
                {
                    true
                }
                _ => return Ok(None),
            };
            calls.push((a.rank, after, passes_result, d));
        }
        // Before and after advice at one shadow keep the guard: a call
        // during which the VM boots would run the after advice alone.
        let after = calls.first().is_some_and(|c| c.1);
        if calls.iter().any(|c| c.1 != after) {
            return Ok(None);
        }
        // The outermost (highest precedence, rank 0) before advice first, and
        // after advice last.
        calls.sort_by_key(|&(rank, ..)| if after { usize::MAX - rank } else { rank });
        let mut out = Vec::with_capacity(2 * calls.len() + 1);
        if after {
            out.push(insn.clone());
        }
        for (_, _, passes_result, d) in &calls {
            if *passes_result {
                out.push(Insn::Simple(op::DUP));
            }
            bypass::call_dispatch(d, self.pool, &mut out)?;
        }
        if !after {
            out.push(insn.clone());
        }
        Ok(Some(out))
    }
}
