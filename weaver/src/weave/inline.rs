//! Inlining a constructor into one that delegates to it with `this(..)`.
//!
//! AspectJ has one initialization and one preinitialization join point per
//! `new`, for the constructor `new` called: for `C() { this(1); .. }` they
//! belong to `C()`, and cover the code of `C(int)` too. ajc gets there by
//! inlining the delegated constructor, and so does major, but only for
//! constructors whose initialization or preinitialization is advised: the copy
//! is the delegated constructor as already woven (its executions and calls keep
//! their advice), without its own initialization join points.

use rustc_hash::FxHashMap as HashMap;

use major_classfile::opcodes::op;
use major_classfile::{descriptor, Code, CodeAttr, Handler, Insn, Label, Result};

use super::emit;

/// Replaces the `invokespecial <init>` at `at` in `k` (the `this(..)` call,
/// with the receiver and the arguments on the stack) by the body of `t` (a
/// constructor of the same class with descriptor `t_desc`, whose locals move up
/// by `base`); its `return`s jump to the end of the copy. Returns the label in
/// `k` that `t_label` (a label of `t`) became.
pub fn inline_constructor(
    k: &mut Code,
    at: usize,
    t: &Code,
    t_desc: &str,
    base: u16,
    t_label: Label,
) -> Result<Label> {
    let mut map: HashMap<Label, Label> = HashMap::default();
    let mut label = |k: &mut Code, l: Label| *map.entry(l).or_insert_with(|| k.new_label());
    let (params, _) = descriptor::parse_method(t_desc)?;
    let mut seq = Vec::with_capacity(t.insns.len() + params.len() + 2);
    // The arguments into the copy's parameter slots, then the receiver into its slot 0.
    let mut slots = Vec::new();
    let mut slot = 1u16;
    for p in &params {
        slots.push((slot, p.to_string()));
        slot += emit::size(p);
    }
    for (s, d) in slots.iter().rev() {
        seq.push(local(emit::store(d, 0), base + s));
    }
    seq.push(local(emit::store("Ljava/lang/Object;", 0), base));
    let end = k.new_label();
    for insn in &t.insns {
        let copy = match insn {
            Insn::Label(l) => Insn::Label(label(k, *l)),
            Insn::Simple(o @ 26..=45) => {
                let kind = (o - 26) / 4;
                local(
                    Insn::Local {
                        op: op::ILOAD + kind,
                        index: 0,
                        wide: false,
                    },
                    base + u16::from((o - 26) % 4),
                )
            }
            Insn::Simple(o @ 59..=78) => {
                let kind = (o - 59) / 4;
                local(
                    Insn::Local {
                        op: op::ISTORE + kind,
                        index: 0,
                        wide: false,
                    },
                    base + u16::from((o - 59) % 4),
                )
            }
            Insn::Simple(op::RETURN) => Insn::Jump {
                op: op::GOTO,
                target: end,
            },
            Insn::Local { op: o, index, .. } => local(
                Insn::Local {
                    op: *o,
                    index: 0,
                    wide: false,
                },
                base + index,
            ),
            Insn::Iinc { index, delta, .. } => Insn::Iinc {
                index: base + index,
                delta: *delta,
                wide: base + index > 255 || !(-128..=127).contains(delta),
            },
            Insn::Jump { op: o, target } => Insn::Jump {
                op: *o,
                target: label(k, *target),
            },
            Insn::TableSwitch {
                default,
                low,
                targets,
            } => Insn::TableSwitch {
                default: label(k, *default),
                low: *low,
                targets: targets.iter().map(|l| label(k, *l)).collect(),
            },
            Insn::LookupSwitch { default, pairs } => Insn::LookupSwitch {
                default: label(k, *default),
                pairs: pairs.iter().map(|(v, l)| (*v, label(k, *l))).collect(),
            },
            other => other.clone(),
        };
        seq.push(copy);
    }
    seq.push(Insn::Label(end));
    let handlers: Vec<Handler> = t
        .handlers
        .iter()
        .map(|h| Handler {
            start: label(k, h.start),
            end: label(k, h.end),
            handler: label(k, h.handler),
            catch_type: h.catch_type,
        })
        .collect();
    let mut lines = Vec::new();
    for a in &t.attributes {
        if let CodeAttr::LineNumbers { entries, .. } = a {
            for (l, n) in entries {
                lines.push((label(k, *l), *n));
            }
        }
    }
    let mapped = label(k, t_label);
    if let Some(CodeAttr::LineNumbers { entries, .. }) = k
        .attributes
        .iter_mut()
        .find(|a| matches!(a, CodeAttr::LineNumbers { .. }))
    {
        entries.extend(lines);
    }
    k.insns.splice(at..=at, seq);
    k.handlers.extend(handlers);
    Ok(mapped)
}

/// `insn` (a load or store) with local `index`.
fn local(insn: Insn, index: u16) -> Insn {
    match insn {
        Insn::Local { op: o, .. } => Insn::Local {
            op: o,
            index,
            wide: index > 255,
        },
        other => other,
    }
}
