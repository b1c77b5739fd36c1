//! `cflow(..)` and `cflowbelow(..)`: per-thread state entered where the inner
//! pointcut matches and tested where the advice's shadows are.
//!
//! Each cflow node of an advice's pointcut gets a [`CflowField`]: a
//! `major.runtime.CFlowCounter` when nothing is bound inside it, else a
//! `major.runtime.CFlowStack` of the values bound inside (the innermost entry's
//! values are the ones the advice sees, as in AspectJ). The field lives in an
//! extra class `<Aspect>$MajorCflow`, never in a woven class.
//!
//! The node's inner pointcut becomes an *entry*: a [`PlannedAdvice`] with
//! [`CflowEntry`] set, matched like advice, that enters the control flow before
//! the join point and leaves it after, however it ends. A `cflow` entry has the
//! highest precedence (advice at the entering join point are inside the flow); a
//! `cflowbelow` entry the lowest (they are not).

use major_classfile::opcodes::op;
use major_classfile::{ClassBuilder, ClassHierarchy, Code, Insn, PoolBuilder, Result};
use major_pointcut_lang::matcher::{compile_advice_part, TypeWorld};
use major_pointcut_lang::resolve::{Pc, Scope};
use major_pointcut_lang::ResolvedAdvice;

use super::emit;
use super::method::MethodWeave;
use super::plan::{self, CflowEntry, CflowField, PlannedAdvice};
use super::shadows::Context;
use crate::aspects::AdviceMethod;

/// Suffix of the extra class holding an aspect's cflow fields.
pub const HOLDER_SUFFIX: &str = "$MajorCflow";

/// What planning the cflows of one advice needs.
pub struct Planner<'a, 'p> {
    /// Every cflow field so far (indices are [`CflowField`] numbers).
    pub fields: &'a mut Vec<CflowField>,
    /// Entries planned so far.
    pub entries: &'a mut Vec<PlannedAdvice<'p>>,
    /// Type world for compiling the entries' pointcuts.
    pub world: &'a dyn TypeWorld,
}

impl<'p> Planner<'_, 'p> {
    /// Plans the cflow nodes of `pc` (part of `advice`'s pointcut, preceded by
    /// `if_base` `if(..)`s): a field and an entry for each, recursively for
    /// nested cflows. Returns the fields of `pc`'s own cflow nodes, in pre-order.
    #[allow(clippy::too_many_arguments)]
    pub fn plan(
        &mut self,
        advice: &'p ResolvedAdvice,
        pc: &'p Pc,
        if_base: usize,
        aspect_class: &str,
        method: &AdviceMethod,
        scope: &Scope,
    ) -> Vec<usize> {
        // The advice's formals are what a cflow may push for it; the slots
        // past them are read by `if(..)` tests at the cflow's entry alone.
        let n = advice.formals.len();
        let mut ids = Vec::new();
        for (inner, below, base) in plan::cflow_nodes(pc, if_base) {
            let pushed_slots = plan::cflow_pushed_slots(inner, n);
            let field = self.fields.len();
            self.fields.push(CflowField {
                owner: format!("{aspect_class}{HOLDER_SUFFIX}"),
                name: format!("cflow${field}"),
                stack: !pushed_slots.is_empty(),
            });
            let nested = self.plan(advice, inner, base, aspect_class, method, scope);
            let binds = plan::pc_bindings(inner, advice.slot_count(), &nested);
            let pushed = pushed_slots.iter().map(|&s| binds[s]).collect();
            self.entries.push(PlannedAdvice {
                aspect_class: aspect_class.to_string(),
                aspect_of: format!("()L{aspect_class};"),
                resolved: advice,
                method: method.clone(),
                pointcut: compile_advice_part(advice, inner, scope, self.world),
                rank: 0,
                binds,
                id: 0,
                pc: inner,
                if_base: base,
                cflows: nested,
                entry: Some(CflowEntry {
                    field,
                    below,
                    pushed,
                }),
            });
            ids.push(field);
        }
        ids
    }
}

/// `getstatic` of a cflow field.
pub fn get_field(f: &CflowField, pool: &mut PoolBuilder<'_>, out: &mut Vec<Insn>) -> Result<()> {
    let r = pool.field_ref(&f.owner, &f.name, f.descriptor())?;
    out.push(Insn::Cp {
        op: op::GETSTATIC,
        index: r,
    });
    Ok(())
}

/// Calls a no-argument method of the field's class on the field's value.
pub fn call(
    f: &CflowField,
    name: &str,
    descriptor: &str,
    pool: &mut PoolBuilder<'_>,
    out: &mut Vec<Insn>,
) -> Result<()> {
    get_field(f, pool, out)?;
    let m = pool.method_ref(f.class(), name, descriptor, false)?;
    out.push(Insn::Cp {
        op: op::INVOKEVIRTUAL,
        index: m,
    });
    Ok(())
}

/// The extra classes holding the fields, one per owner, in field order; each
/// creates its counters and stacks in its static initializer.
pub fn holder_classes(
    fields: &[CflowField],
    hierarchy: &dyn ClassHierarchy,
) -> Result<Vec<(String, Vec<u8>)>> {
    let mut owners: Vec<&str> = Vec::new();
    for f in fields {
        if !owners.contains(&f.owner.as_str()) {
            owners.push(&f.owner);
        }
    }
    let mut out = Vec::new();
    for owner in owners {
        let mut b = ClassBuilder::new(52, 0x1031, owner, "java/lang/Object")?; // public final synthetic super
        let mut code = Code::empty();
        for f in fields.iter().filter(|f| f.owner == owner) {
            b.add_field(0x1019, &f.name, f.descriptor())?; // public static final synthetic
            let pool = b.pool();
            let c = pool.class(f.class())?;
            code.insns.push(Insn::Cp {
                op: op::NEW,
                index: c,
            });
            code.insns.push(Insn::Simple(op::DUP));
            let init = pool.method_ref(f.class(), "<init>", "()V", false)?;
            code.insns.push(Insn::Cp {
                op: op::INVOKESPECIAL,
                index: init,
            });
            let r = pool.field_ref(owner, &f.name, f.descriptor())?;
            code.insns.push(Insn::Cp {
                op: op::PUTSTATIC,
                index: r,
            });
        }
        code.insns.push(Insn::Simple(op::RETURN));
        b.add_method(0x0008, "<clinit>", "()V", Some(&mut code), hierarchy)?;
        out.push((format!("{owner}.class"), b.finish()));
    }
    Ok(out)
}

impl<'w, 'p> MethodWeave<'w, 'p, '_> {
    /// Enters a cflow: `counter.inc()`, or `stack.push(new Object[] { values })`.
    pub(super) fn cflow_enter(
        &mut self,
        entry: &plan::CflowEntry,
        ctx: &Context,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        let f = &self.weaver.cflow_fields[entry.field];
        if !f.stack {
            return call(f, "inc", "()V", self.pool, out);
        }
        get_field(f, self.pool, out)?;
        emit::push_int(entry.pushed.len() as i32, self.pool, out)?;
        let obj = self.pool.class("java/lang/Object")?;
        out.push(Insn::Cp {
            op: op::ANEWARRAY,
            index: obj,
        });
        for (i, src) in entry.pushed.iter().enumerate() {
            out.push(Insn::Simple(op::DUP));
            emit::push_int(i as i32, self.pool, out)?;
            self.load_source(*src, "Ljava/lang/Object;", ctx, out)?;
            out.push(Insn::Simple(83)); // aastore
        }
        let m = self
            .pool
            .method_ref(f.class(), "push", "([Ljava/lang/Object;)V", false)?;
        out.push(Insn::Cp {
            op: op::INVOKEVIRTUAL,
            index: m,
        });
        Ok(())
    }

    /// Leaves a cflow (only if it was entered, when `flag` records that).
    pub(super) fn cflow_exit(
        &mut self,
        entry: &plan::CflowEntry,
        flag: Option<u16>,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        let skip = self.code.new_label();
        if let Some(f) = flag {
            out.push(emit::load("I", f));
            out.push(Insn::Jump {
                op: 153, // ifeq
                target: skip,
            });
        }
        let f = &self.weaver.cflow_fields[entry.field];
        let name = if f.stack { "pop" } else { "dec" };
        call(f, name, "()V", self.pool, out)?;
        out.push(Insn::Label(skip));
        Ok(())
    }
}
