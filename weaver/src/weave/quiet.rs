//! Quiet bodies: method bodies that run no Java code but their own and
//! cannot throw — getters, setters, arithmetic on locals and `this`'s fields.
//!
//! The calling-context tree counts the frame of such a body without making
//! it current (`countContext` instead of `enterContext` and the exits,
//! ARCHITECTURE.md "Calling context"): nothing can run below it — no call,
//! no allocation, no class to load or initialize, no exception to construct —
//! so no other node is ever entered while it runs, and the tree is the same.
//! The check is conservative: whatever it cannot prove quiet is not.
//!
//! An instruction is quiet when it cannot throw and runs no code: constants
//! (`ldc` of numbers and strings only: a class constant may load a class),
//! locals, stack shuffles, arithmetic but integer division and remainder,
//! comparisons, branches and switches, returns, the instance fields of
//! `this` (an instance method that never stores into local 0: `this` is
//! never null) and the static fields the class itself declares (its methods
//! run once it is initialized). Arrays, calls, `new`, casts, `instanceof`,
//! monitors, `athrow`, `jsr` and exception handlers are not.

use std::collections::HashMap;

use major_classfile::opcodes::{self, op};
use major_classfile::{descriptor, Code, Constant, Insn, Label, PoolBuilder, Result};

/// The class a body belongs to, as far as a quiet body may touch it.
pub struct Scope<'a> {
    /// The class's internal name.
    pub class: &'a str,
    /// Whether the method is static (has no `this`).
    pub is_static: bool,
    /// The static fields the class declares: (name, descriptor).
    pub own_statics: &'a [(String, String)],
}

/// A value on the operand stack, one per slot (a long or a double takes two):
/// whether it is `this`.
type Stack = Vec<bool>;

/// Whether `code` is quiet (see the module doc).
pub fn is_quiet(code: &Code, pool: &PoolBuilder<'_>, scope: &Scope<'_>) -> Result<bool> {
    if !code.handlers.is_empty() {
        return Ok(false);
    }
    let this_fixed = !scope.is_static && !code.insns.iter().any(stores_local_0);
    let mut seen: HashMap<Label, Stack> = HashMap::new();
    let mut pending: HashMap<Label, Stack> = HashMap::new();
    // `None`: the previous instruction does not fall through.
    let mut stack: Option<Stack> = Some(Vec::new());
    for insn in &code.insns {
        if let Insn::Label(l) = insn {
            let here = match (stack.take(), pending.remove(l)) {
                (Some(s), Some(p)) => match merge(s, &p) {
                    Some(m) => m,
                    None => return Ok(false),
                },
                (Some(s), None) => s,
                (None, Some(p)) => p,
                // Reached only by a later (backward) jump: javac's loop
                // conditions. Taken as empty; each such jump is checked.
                (None, None) => Vec::new(),
            };
            seen.insert(*l, here.clone());
            stack = Some(here);
            continue;
        }
        let Some(s) = stack.as_mut() else {
            // Unreachable code: not worth proving anything about.
            return Ok(false);
        };
        let flow = match step(insn, s, pool, scope, this_fixed)? {
            Some(f) => f,
            None => return Ok(false),
        };
        for target in insn.targets() {
            match seen.get(&target) {
                // Backward: the state assumed there must hold for this jump.
                Some(assumed) => {
                    let fits = assumed.len() == s.len()
                        && assumed.iter().zip(s.iter()).all(|(a, b)| !*a || *b);
                    if !fits {
                        return Ok(false);
                    }
                }
                None => {
                    let merged = match pending.remove(&target) {
                        Some(p) => match merge(s.clone(), &p) {
                            Some(m) => m,
                            None => return Ok(false),
                        },
                        None => s.clone(),
                    };
                    pending.insert(target, merged);
                }
            }
        }
        if !flow {
            stack = None;
        }
    }
    Ok(true)
}

/// Two states of one place: `this` only where both have it; `None` when
/// their depths differ (not verifiable code).
fn merge(mut a: Stack, b: &Stack) -> Option<Stack> {
    if a.len() != b.len() {
        return None;
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x &= *y;
    }
    Some(a)
}

/// Whether `insn` stores into local 0.
fn stores_local_0(insn: &Insn) -> bool {
    match insn {
        Insn::Simple(o) => {
            opcodes::is_store(*o) && opcodes::short_form(*o).is_some_and(|(_, i)| i == 0)
        }
        Insn::Local { op: o, index, .. } => opcodes::is_store(*o) && *index == 0,
        Insn::Iinc { index, .. } => *index == 0,
        _ => false,
    }
}

/// Applies one quiet instruction to `s`: `Some(falls_through)`, or `None`
/// when the instruction is not quiet (or the stack does not fit it).
fn step(
    insn: &Insn,
    s: &mut Stack,
    pool: &PoolBuilder<'_>,
    scope: &Scope<'_>,
    this_fixed: bool,
) -> Result<Option<bool>> {
    let pop = |s: &mut Stack, n: usize| -> Option<()> {
        let len = s.len().checked_sub(n)?;
        s.truncate(len);
        Some(())
    };
    let push = |s: &mut Stack, n: usize| s.extend(std::iter::repeat_n(false, n));
    // By the opcode table: (pops, pushes) in slots.
    let table = |s: &mut Stack, o: u8| -> Option<()> {
        let (pops, pushes) = opcodes::slot_effect(o)?;
        pop(s, usize::from(pops))?;
        push(s, usize::from(pushes));
        Some(())
    };
    let fits = |r: Option<()>| r.map(|()| true);
    Ok(match insn {
        Insn::Simple(o) => match *o {
            // aload_0: `this` when it stays there.
            op::ALOAD_0 => {
                s.push(this_fixed);
                Some(true)
            }
            // Constants, other short loads and stores.
            op::NOP..=15 | op::ILOAD_0..=45 | op::ISTORE_0..=op::ASTORE_3 => fits(table(s, *o)),
            // pop, pop2, the dups and swap.
            87 | 88 => fits(pop(s, usize::from(*o - 86))),
            op::DUP..=op::SWAP => {
                if s.len() < opcodes::shuffle_depth(*o) {
                    None
                } else {
                    opcodes::shuffle_slots(s, *o);
                    Some(true)
                }
            }
            // idiv, ldiv, irem, lrem throw ArithmeticException.
            108 | 109 | 112 | 113 => None,
            // Arithmetic, conversions, comparisons.
            96..=131 | 133..=152 => fits(table(s, *o)),
            // Returns.
            op::IRETURN..=op::RETURN => Some(false),
            _ => None,
        },
        Insn::Local { op: o, index, .. } => match *o {
            op::ALOAD => {
                s.push(*index == 0 && this_fixed);
                Some(true)
            }
            // iload..dload; istore..astore.
            21..=24 => {
                push(s, if matches!(*o, 22 | 24) { 2 } else { 1 });
                Some(true)
            }
            54..=58 => fits(pop(s, if matches!(*o, 55 | 57) { 2 } else { 1 })),
            _ => None,
        },
        Insn::Iinc { .. } => Some(true),
        Insn::Push { .. } => {
            push(s, 1);
            Some(true)
        }
        Insn::Ldc { index, .. } => match pool.constant(*index)? {
            Constant::Integer(_) | Constant::Float(_) | Constant::String(_) => {
                push(s, 1);
                Some(true)
            }
            _ => None,
        },
        Insn::Cp { op: o, index } => match *o {
            op::LDC2_W => match pool.constant(*index)? {
                Constant::Long(_) | Constant::Double(_) => {
                    push(s, 2);
                    Some(true)
                }
                _ => None,
            },
            op::GETFIELD | op::PUTFIELD => {
                let m = pool.member_ref(*index)?;
                let size = descriptor::slots(&m.descriptor);
                // The receiver: below the value for a putfield.
                let below = if *o == op::PUTFIELD { size } else { 0 };
                let at = s.len().checked_sub(below + 1);
                if !at.is_some_and(|at| s[at]) {
                    return Ok(None);
                }
                if *o == op::PUTFIELD {
                    pop(s, size + 1);
                } else {
                    pop(s, 1);
                    push(s, size);
                }
                Some(true)
            }
            op::GETSTATIC | op::PUTSTATIC => {
                let m = pool.member_ref(*index)?;
                let own = m.owner == scope.class
                    && scope
                        .own_statics
                        .iter()
                        .any(|(n, d)| *n == m.name && *d == m.descriptor);
                if !own {
                    return Ok(None);
                }
                let size = descriptor::slots(&m.descriptor);
                if *o == op::PUTSTATIC {
                    fits(pop(s, size))
                } else {
                    push(s, size);
                    Some(true)
                }
            }
            _ => None,
        },
        Insn::Jump { op: o, .. } => match *o {
            op::GOTO | op::GOTO_W => Some(false),
            op::JSR | op::JSR_W => None,
            // ifeq..if_acmpne, ifnull, ifnonnull.
            op::IFEQ..=op::IF_ACMPNE | op::IFNULL | op::IFNONNULL => fits(table(s, *o)),
            _ => None,
        },
        Insn::TableSwitch { .. } | Insn::LookupSwitch { .. } => fits(pop(s, 1)).map(|_| false),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use major_classfile::Handler;

    const C: &str = "p/C";

    fn simple(o: u8) -> Insn {
        Insn::Simple(o)
    }

    /// Whether `insns` (labels from `code`) are quiet in an instance
    /// (`is_static == false`) or static method of `p/C`, which declares the
    /// static `int n`.
    fn quiet(code: &mut Code, insns: Vec<Insn>, is_static: bool) -> bool {
        code.insns = insns;
        let statics = [("n".to_string(), "I".to_string())];
        let scope = Scope {
            class: C,
            is_static,
            own_statics: &statics,
        };
        is_quiet(code, &PoolBuilder::empty(), &scope).unwrap()
    }

    fn field(pool_op: u8, owner: &str, name: &str, desc: &str, pool: &mut PoolBuilder) -> Insn {
        Insn::Cp {
            op: pool_op,
            index: pool.field_ref(owner, name, desc).unwrap(),
        }
    }

    #[test]
    fn getters_and_setters_of_this_are_quiet() {
        let mut pool = PoolBuilder::empty();
        let get = field(op::GETFIELD, C, "f", "I", &mut pool);
        let put_long = field(op::PUTFIELD, C, "w", "J", &mut pool);
        let statics = [("n".to_string(), "I".to_string())];
        let scope = |is_static| Scope {
            class: C,
            is_static,
            own_statics: &statics,
        };
        let check = |insns: Vec<Insn>, is_static: bool| {
            let mut code = Code::empty();
            code.insns = insns;
            is_quiet(&code, &pool, &scope(is_static)).unwrap()
        };
        // return this.f
        let getter = vec![simple(op::ALOAD_0), get.clone(), simple(op::IRETURN)];
        assert!(check(getter.clone(), false));
        // In a static method local 0 is a parameter: it may be null.
        assert!(!check(getter, true));
        // this.w = (long) local 1
        let setter = vec![
            simple(op::ALOAD_0),
            simple(31), // lload_1
            put_long.clone(),
            simple(op::RETURN),
        ];
        assert!(check(setter, false));
        // local1.w = local 2: another object.
        let other = vec![
            simple(43), // aload_1
            simple(32), // lload_2
            put_long,
            simple(op::RETURN),
        ];
        assert!(!check(other, false));
        // `this` replaced before the read.
        let replaced = vec![
            simple(43), // aload_1
            simple(75), // astore_0
            simple(op::ALOAD_0),
            get,
            simple(op::IRETURN),
        ];
        assert!(!check(replaced, false));
    }

    #[test]
    fn only_the_classs_own_statics_are_quiet() {
        let mut pool = PoolBuilder::empty();
        let own = field(op::GETSTATIC, C, "n", "I", &mut pool);
        let inherited = field(op::GETSTATIC, C, "m", "I", &mut pool);
        let other = field(op::GETSTATIC, "p/D", "n", "I", &mut pool);
        let statics = [("n".to_string(), "I".to_string())];
        let scope = Scope {
            class: C,
            is_static: true,
            own_statics: &statics,
        };
        for (insn, expected) in [(own, true), (inherited, false), (other, false)] {
            let mut code = Code::empty();
            code.insns = vec![insn, simple(op::IRETURN)];
            assert_eq!(is_quiet(&code, &pool, &scope).unwrap(), expected);
        }
    }

    #[test]
    fn what_may_throw_or_run_code_is_not_quiet() {
        let mut pool = PoolBuilder::empty();
        let call = Insn::Cp {
            op: op::INVOKESTATIC,
            index: pool.method_ref(C, "m", "()V", false).unwrap(),
        };
        let class = Insn::Ldc {
            index: pool.class("p/D").unwrap(),
            wide: false,
        };
        let string = Insn::Ldc {
            index: pool.string("s").unwrap(),
            wide: false,
        };
        let scope = Scope {
            class: C,
            is_static: true,
            own_statics: &[],
        };
        let check = |insns: Vec<Insn>| {
            let mut code = Code::empty();
            code.insns = insns;
            is_quiet(&code, &pool, &scope).unwrap()
        };
        assert!(!check(vec![call, simple(op::RETURN)]));
        assert!(!check(vec![class, simple(176)]));
        assert!(check(vec![string, simple(176)]));
        // iload_0 / iload_1: idiv may throw, imul may not.
        for (o, expected) in [(108, false), (104, true)] {
            assert_eq!(
                check(vec![simple(26), simple(27), simple(o), simple(op::IRETURN)]),
                expected
            );
        }
        // An array element: aload_0 iconst_0 iaload.
        assert!(!check(vec![
            simple(op::ALOAD_0),
            simple(3),
            simple(46),
            simple(op::IRETURN)
        ]));
    }

    #[test]
    fn branches_carry_this_only_where_every_path_has_it() {
        let mut pool = PoolBuilder::empty();
        let get = field(op::GETFIELD, C, "f", "I", &mut pool);
        let scope = Scope {
            class: C,
            is_static: false,
            own_statics: &[],
        };
        // (local1 ? this : X).f, X this or local 2.
        let ternary = |code: &mut Code, other: Insn| {
            let (l1, l2) = (code.new_label(), code.new_label());
            vec![
                simple(27), // iload_1
                Insn::Jump {
                    op: op::IFEQ,
                    target: l1,
                },
                simple(op::ALOAD_0),
                Insn::Jump {
                    op: op::GOTO,
                    target: l2,
                },
                Insn::Label(l1),
                other,
                Insn::Label(l2),
                get.clone(),
                simple(op::IRETURN),
            ]
        };
        let mut code = Code::empty();
        code.insns = ternary(&mut code, simple(op::ALOAD_0));
        assert!(is_quiet(&code, &pool, &scope).unwrap());
        let mut code = Code::empty();
        code.insns = ternary(&mut code, simple(44)); // aload_2
        assert!(!is_quiet(&code, &pool, &scope).unwrap());

        // javac's loop: goto cond; body: iinc; cond: iload_1 bipush 10
        // if_icmplt body; return.
        let mut code = Code::empty();
        let (body, cond) = (code.new_label(), code.new_label());
        code.insns = vec![
            Insn::Jump {
                op: op::GOTO,
                target: cond,
            },
            Insn::Label(body),
            Insn::Iinc {
                index: 1,
                delta: 1,
                wide: false,
            },
            Insn::Label(cond),
            simple(27),
            Insn::Push { op: 16, value: 10 },
            Insn::Jump {
                op: 161, // if_icmplt
                target: body,
            },
            simple(op::RETURN),
        ];
        assert!(is_quiet(&code, &pool, &scope).unwrap());
        // A backward jump that carries a value the label was not assumed
        // to have.
        let mut code = Code::empty();
        let top = code.new_label();
        code.insns = vec![
            Insn::Label(top),
            simple(op::ALOAD_0),
            Insn::Jump {
                op: op::GOTO,
                target: top,
            },
        ];
        assert!(!is_quiet(&code, &pool, &scope).unwrap());
    }

    #[test]
    fn a_body_with_handlers_is_not_quiet() {
        let mut code = Code::empty();
        let (a, b) = (code.new_label(), code.new_label());
        code.handlers.push(Handler {
            start: a,
            end: b,
            handler: b,
            catch_type: 0,
        });
        let insns = vec![
            Insn::Label(a),
            simple(op::RETURN),
            Insn::Label(b),
            simple(op::RETURN),
        ];
        assert!(!quiet(&mut code, insns, true));
    }
}
