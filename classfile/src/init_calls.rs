//! Which `invokespecial <init>` initializes what: the super (or `this(..)`)
//! call of a constructor, and the object of each `new`.
//!
//! [`init_calls`] first tries one linear pass that follows only the
//! uninitialized values (`this` before the super call, the result of each
//! `new`) through the stack and the locals, by slot counts. It gives up, and the
//! full type analysis of [`frames::stack_states`] answers instead, as soon as
//! control flow could carry an uninitialized value anywhere but to the next
//! instruction: a branch, a switch or a `jsr` while one is live, or a branch
//! target or handler entry reached while one is live. Straight-line code between
//! a `new` and its constructor call (the usual shape) is followed exactly; code
//! where no uninitialized value is live needs no tracking at all.

use crate::code::{Code, Insn};
use crate::descriptor;
use crate::error::Result;
use crate::frames::{self, MethodContext, Value};
use crate::hierarchy::{ClassHierarchy, OBJECT};
use crate::kept_frames::stack_effect;
use crate::opcodes::{flow, op, short_form, shuffle_depth, shuffle_slots, Flow};
use crate::pool_builder::PoolBuilder;

/// The constructor calls of a method body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InitCalls {
    /// In a constructor: the index of the call of the super class's (or
    /// another of this class's) constructor on `this`.
    pub super_call: Option<usize>,
    /// Calls that initialize the result of a `new`, whose value is on the
    /// stack twice (`new; dup; args..; invokespecial`): the index of the call,
    /// and that of the `new` when the `dup` directly follows it.
    pub ctor_calls: Vec<(usize, Option<usize>)>,
}

/// Finds the constructor calls of `code` (see the module documentation).
/// Indices refer to `code` as it is after the call: the fallback analysis may
/// add labels.
pub fn init_calls(
    code: &mut Code,
    ctx: &MethodContext<'_>,
    pool: &PoolBuilder<'_>,
    hierarchy: &dyn ClassHierarchy,
) -> Result<InitCalls> {
    if let Some(found) = linear(code, ctx, pool)? {
        return Ok(found);
    }
    by_analysis(code, ctx, pool, hierarchy)
}

/// The linear pass alone: `None` where it gives up. Public so that tests can
/// hold it against [`by_analysis`] on real code.
pub fn linear(
    code: &Code,
    ctx: &MethodContext<'_>,
    pool: &PoolBuilder<'_>,
) -> Result<Option<InitCalls>> {
    linear_pass(code, ctx, pool)
}

/// What a stack slot or local holds, as far as constructor calls go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Val {
    Other,
    /// `this` before the super call.
    This,
    /// The result of the `new` at this instruction index.
    New(usize),
}

/// The linear pass; `None` when control flow could carry an uninitialized value.
fn linear_pass(
    code: &Code,
    ctx: &MethodContext<'_>,
    pool: &PoolBuilder<'_>,
) -> Result<Option<InitCalls>> {
    let is_ctor = ctx.name == "<init>" && !ctx.is_static && ctx.class_name != OBJECT;
    // Branch targets and handler entries: control may arrive there from elsewhere.
    let mut target = vec![false; code.label_count()];
    for insn in code.insns.iter().filter(|i| i.is_branch()) {
        for t in insn.targets() {
            target[t.0 as usize] = true;
        }
    }
    for h in &code.handlers {
        target[h.handler.0 as usize] = true;
    }
    // Instructions inside some exception handler's range.
    let mut covered = vec![false; code.insns.len()];
    if !code.handlers.is_empty() {
        let mut at = vec![usize::MAX; code.label_count()];
        for (i, insn) in code.insns.iter().enumerate() {
            if let Insn::Label(l) = insn {
                at[l.0 as usize] = i;
            }
        }
        for h in &code.handlers {
            let (s, e) = (at[h.start.0 as usize], at[h.end.0 as usize]);
            if s == usize::MAX || e == usize::MAX {
                return Ok(None);
            }
            for c in covered.iter_mut().take(e).skip(s) {
                *c = true;
            }
        }
    }
    let mut locals: Vec<Val> = Vec::new();
    if is_ctor {
        locals.push(Val::This);
    }
    let mut stack: Vec<Val> = Vec::new();
    let mut locals_live = is_ctor;
    let mut out = InitCalls::default();
    let live = |stack: &[Val], locals: &[Val]| stack.iter().chain(locals).any(|v| *v != Val::Other);
    for (i, insn) in code.insns.iter().enumerate() {
        let Some(o) = insn.opcode() else {
            if let Insn::Label(l) = insn {
                if target[l.0 as usize] {
                    if live(&stack, &locals) {
                        return Ok(None);
                    }
                    stack.clear(); // whatever is below is of no interest
                }
            }
            continue;
        };
        match flow(o) {
            Flow::Next => {}
            Flow::Jsr | Flow::Ret => return Ok(None),
            _ if live(&stack, &locals) => return Ok(None),
            _ => {}
        }
        // Nothing uninitialized live: only a `new` can change that (the
        // stack is kept empty then, its slots all being of no interest).
        if stack.is_empty() && !locals_live && !matches!(insn, Insn::Cp { op: op::NEW, .. }) {
            continue;
        }
        let local = match insn {
            Insn::Local { op, index, .. } => Some((*op, *index as usize)),
            Insn::Simple(s) => short_form(*s).map(|(b, n)| (b, n as usize)),
            _ => None,
        };
        match (insn, local) {
            (_, Some((op::ALOAD, n))) => stack.push(locals.get(n).copied().unwrap_or(Val::Other)),
            (_, Some((op::ASTORE, n))) => {
                let v = pop(&mut stack);
                set_local(&mut locals, n, v);
            }
            (_, Some((base @ 54..=57, n))) => {
                // istore lstore fstore dstore
                let size = if matches!(base, 55 | 57) { 2 } else { 1 };
                for _ in 0..size {
                    pop(&mut stack);
                }
                for k in n..n + size {
                    set_local(&mut locals, k, Val::Other);
                }
            }
            (Insn::Iinc { index, .. }, _) => set_local(&mut locals, *index as usize, Val::Other),
            (Insn::Cp { op: op::NEW, .. }, _) => stack.push(Val::New(i)),
            (Insn::Simple(d @ (op::DUP..=op::SWAP)), _) => shuffle(&mut stack, *d),
            (
                Insn::Cp {
                    op: op::INVOKESPECIAL,
                    index,
                },
                _,
            ) if pool.member_ref(*index)?.name == "<init>" => {
                let n = pool.member_slots(*index)?.0;
                if stack.len() < n + 1 {
                    // The receiver is below what is followed: not uninitialized.
                    stack.clear();
                    continue;
                }
                stack.truncate(stack.len() - n);
                let recv = stack.pop().expect("checked");
                match recv {
                    Val::This if out.super_call.is_none() => out.super_call = Some(i),
                    Val::New(k) if stack.last() == Some(&recv) => {
                        let simple = matches!(code.insns.get(k + 1), Some(Insn::Simple(op::DUP)));
                        out.ctor_calls.push((i, simple.then_some(k)));
                    }
                    _ => {}
                }
                if recv != Val::Other {
                    for v in stack.iter_mut().chain(locals.iter_mut()) {
                        if *v == recv {
                            *v = Val::Other;
                        }
                    }
                }
            }
            (Insn::TableSwitch { .. } | Insn::LookupSwitch { .. }, _) => {
                pop(&mut stack);
            }
            _ => {
                let Some((pops, pushes)) = stack_effect(insn, pool)? else {
                    return Ok(None);
                };
                // An uninitialized value may be consumed otherwise (a field of
                // `this` set before the super call): only where it is
                // initialized matters.
                for _ in 0..pops {
                    pop(&mut stack);
                }
                stack.extend(std::iter::repeat_n(Val::Other, pushes));
            }
        }
        locals_live = locals.iter().any(|v| *v != Val::Other);
        if covered[i] && locals_live {
            return Ok(None); // a handler would receive an uninitialized local
        }
        if !matches!(flow(o), Flow::Next | Flow::Conditional)
            || stack.iter().all(|v| *v == Val::Other)
        {
            // What follows is reached by a branch, if at all; or nothing on
            // the stack is of interest.
            stack.clear();
        }
    }
    Ok(Some(out))
}

/// Pops a slot; below what is followed there is nothing of interest.
fn pop(stack: &mut Vec<Val>) -> Val {
    stack.pop().unwrap_or(Val::Other)
}

fn set_local(locals: &mut Vec<Val>, n: usize, v: Val) {
    if locals.len() <= n {
        locals.resize(n + 1, Val::Other);
    }
    locals[n] = v;
}

/// `dup`..`swap` on slots. Slots below what is followed are `Other`s.
fn shuffle(s: &mut Vec<Val>, o: u8) {
    let need = shuffle_depth(o);
    if s.len() < need {
        let missing = need - s.len();
        s.splice(0..0, std::iter::repeat_n(Val::Other, missing));
    }
    shuffle_slots(s, o);
}

/// The answer of the full type analysis ([`frames::stack_states`]), which may
/// add labels to `code`.
pub fn by_analysis(
    code: &mut Code,
    ctx: &MethodContext<'_>,
    pool: &PoolBuilder<'_>,
    hierarchy: &dyn ClassHierarchy,
) -> Result<InitCalls> {
    let is_ctor = ctx.name == "<init>";
    let states = frames::stack_states(code, ctx, pool, hierarchy, &|i| {
        matches!(
            i,
            Insn::Cp {
                op: op::INVOKESPECIAL,
                ..
            }
        )
    })?;
    // Where each label stands.
    let mut label_at = vec![usize::MAX; code.label_count()];
    for (i, insn) in code.insns.iter().enumerate() {
        if let Insn::Label(l) = insn {
            label_at[l.0 as usize] = i;
        }
    }
    let mut out = InitCalls::default();
    for (i, insn) in code.insns.iter().enumerate() {
        let Insn::Cp {
            op: op::INVOKESPECIAL,
            index,
        } = insn
        else {
            continue;
        };
        let r = pool.member_ref(*index)?;
        if r.name != "<init>" {
            continue;
        }
        let Some(stack) = &states[i] else { continue };
        let n = descriptor::param_slots(&r.descriptor)?;
        let Some(recv) = stack.len().checked_sub(n + 1).map(|k| &stack[k]) else {
            continue;
        };
        match recv {
            Value::UninitThis if is_ctor && out.super_call.is_none() => out.super_call = Some(i),
            Value::Uninit(label) => {
                let below = stack.len().checked_sub(n + 2).map(|k| &stack[k]);
                if below == Some(recv) {
                    let new_at = label_at
                        .get(label.0 as usize)
                        .copied()
                        .filter(|&p| p != usize::MAX)
                        .and_then(|p| {
                            (p..code.insns.len())
                                .find(|&k| !matches!(code.insns[k], Insn::Label(_)))
                        })
                        .filter(|&k| {
                            matches!(code.insns[k], Insn::Cp { op: op::NEW, .. })
                                && code.insns.get(k + 1) == Some(&Insn::Simple(op::DUP))
                        });
                    out.ctor_calls.push((i, new_at));
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffles_move_followed_values() {
        let (a, b, c) = (Val::New(1), Val::This, Val::Other);
        let mut s = vec![c, b, a];
        shuffle(&mut s, op::DUP_X1);
        assert_eq!(s, vec![c, a, b, a]);
        let mut s = vec![c, b, a];
        shuffle(&mut s, op::DUP2_X1);
        assert_eq!(s, vec![b, a, c, b, a]);
        // Slots below what is followed are others.
        let mut s = vec![a];
        shuffle(&mut s, op::DUP_X1);
        assert_eq!(s, vec![a, c, a]);
        let mut s = vec![];
        shuffle(&mut s, op::DUP2);
        assert_eq!(s, vec![c, c, c, c]);
    }
}
