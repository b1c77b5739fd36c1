//! Bytecode snippets the weaver inserts: loads and stores by descriptor, boxing
//! and unboxing, and the conversions between a value's static type and a formal's.

use major_classfile::opcodes::op;
use major_classfile::{Insn, PoolBuilder, Result};

/// The long-form load opcode for a value of descriptor `d`.
pub fn load_op(d: &str) -> u8 {
    match d.as_bytes()[0] {
        b'J' => 22,
        b'F' => 23,
        b'D' => 24,
        b'L' | b'[' => op::ALOAD,
        _ => op::ILOAD,
    }
}

/// The long-form store opcode for a value of descriptor `d`.
pub fn store_op(d: &str) -> u8 {
    load_op(d) + 33
}

/// `xload index`.
pub fn load(d: &str, index: u16) -> Insn {
    Insn::Local {
        op: load_op(d),
        index,
        wide: false,
    }
}

/// `xstore index`.
pub fn store(d: &str, index: u16) -> Insn {
    Insn::Local {
        op: store_op(d),
        index,
        wide: false,
    }
}

/// Rewrites every `xload n`/`xstore n` (not `wide`) of locals 0–3 into its
/// one-byte form `xload_<n>`/`xstore_<n>`, as javac and ajc write them: the
/// weaver builds loads and stores in the long form (their index is often
/// changed afterwards), and calls this on a woven body just before its frames
/// and layout are computed, so that woven code costs no more than ajc's.
pub fn compact_locals(insns: &mut [Insn]) {
    for insn in insns {
        if let Insn::Local {
            op: o,
            index: index @ 0..=3,
            wide: false,
        } = *insn
        {
            let index = index as u8;
            match o {
                21..=25 => *insn = Insn::Simple(26 + (o - 21) * 4 + index),
                54..=58 => *insn = Insn::Simple(59 + (o - 54) * 4 + index),
                _ => {}
            }
        }
    }
}

/// The descriptor of class `name` (internal form): `Lname;`. Built by hand:
/// `format!` costs several times as much, and shadows ask for one or more
/// each.
pub fn object_descriptor(name: &str) -> String {
    let mut d = String::with_capacity(name.len() + 2);
    d.push('L');
    d.push_str(name);
    d.push(';');
    d
}

/// Slots a value of descriptor `d` takes.
pub fn size(d: &str) -> u16 {
    if d == "J" || d == "D" {
        2
    } else {
        1
    }
}

/// `dup` or `dup2` for a value of descriptor `d`.
pub fn dup(d: &str) -> Insn {
    Insn::Simple(if size(d) == 2 { op::DUP2 } else { op::DUP })
}

/// `pop` or `pop2`.
pub fn pop(d: &str) -> Insn {
    Insn::Simple(if size(d) == 2 { 88 } else { op::POP })
}

/// The box class of a primitive descriptor.
pub fn box_class(p: char) -> Option<&'static str> {
    Some(match p {
        'I' => "java/lang/Integer",
        'J' => "java/lang/Long",
        'F' => "java/lang/Float",
        'D' => "java/lang/Double",
        'Z' => "java/lang/Boolean",
        'B' => "java/lang/Byte",
        'C' => "java/lang/Character",
        'S' => "java/lang/Short",
        _ => return None,
    })
}

fn unbox_method(p: char) -> &'static str {
    match p {
        'I' => "intValue",
        'J' => "longValue",
        'F' => "floatValue",
        'D' => "doubleValue",
        'Z' => "booleanValue",
        'B' => "byteValue",
        'C' => "charValue",
        _ => "shortValue",
    }
}

/// Whether `d` is a primitive descriptor (not `V`).
pub fn is_primitive(d: &str) -> bool {
    d.len() == 1 && d != "V"
}

/// Boxes the primitive on top of the stack (`Integer.valueOf`...).
pub fn boxing(p: char, pool: &mut PoolBuilder<'_>, out: &mut Vec<Insn>) -> Result<()> {
    let c = box_class(p).expect("primitive");
    let m = pool.method_ref(c, "valueOf", &format!("({p})L{c};"), false)?;
    out.push(Insn::Cp {
        op: op::INVOKESTATIC,
        index: m,
    });
    Ok(())
}

/// Unboxes the reference on top of the stack to primitive `p` (checkcast + xValue).
pub fn unboxing(p: char, pool: &mut PoolBuilder<'_>, out: &mut Vec<Insn>) -> Result<()> {
    let c = box_class(p).expect("primitive");
    let cls = pool.class(c)?;
    out.push(Insn::Cp {
        op: op::CHECKCAST,
        index: cls,
    });
    let m = pool.method_ref(c, unbox_method(p), &format!("(){p}"), false)?;
    out.push(Insn::Cp {
        op: op::INVOKEVIRTUAL,
        index: m,
    });
    Ok(())
}

/// Converts a reference on top of the stack to primitive `p` as AspectJ
/// converts what around advice returns: `major.runtime.Conversions.<p>Value`
/// (`null` gives 0/`false`, any `Number` converts to a numeric type, `char`
/// only from a `Character`, `boolean` only from a `Boolean`, anything else
/// is a `ClassCastException`).
pub fn unbox_converting(p: char, pool: &mut PoolBuilder<'_>, out: &mut Vec<Insn>) -> Result<()> {
    let (name, desc) = match p {
        'I' => ("intValue", "(Ljava/lang/Object;)I"),
        'J' => ("longValue", "(Ljava/lang/Object;)J"),
        'F' => ("floatValue", "(Ljava/lang/Object;)F"),
        'D' => ("doubleValue", "(Ljava/lang/Object;)D"),
        'Z' => ("booleanValue", "(Ljava/lang/Object;)Z"),
        'B' => ("byteValue", "(Ljava/lang/Object;)B"),
        'C' => ("charValue", "(Ljava/lang/Object;)C"),
        _ => ("shortValue", "(Ljava/lang/Object;)S"),
    };
    let m = pool.method_ref("major/runtime/Conversions", name, desc, false)?;
    out.push(Insn::Cp {
        op: op::INVOKESTATIC,
        index: m,
    });
    Ok(())
}

/// [`convert`] for a value the advice gave (what around advice returns, the
/// values it passes to `proceed`): a reference becomes a primitive by
/// [`unbox_converting`] (so `null`, another `Number`, work as in AspectJ).
pub fn convert_from_advice(
    have: &str,
    want: &str,
    needs_cast: bool,
    pool: &mut PoolBuilder<'_>,
    out: &mut Vec<Insn>,
) -> Result<()> {
    if !is_primitive(have) && is_primitive(want) {
        return unbox_converting(want.chars().next().unwrap_or('I'), pool, out);
    }
    convert(have, want, needs_cast, pool, out)
}

/// Converts the value on top of the stack from descriptor `have` to `want`
/// (boxing, unboxing, or a cast when `cast` says the reference needs one).
pub fn convert(
    have: &str,
    want: &str,
    needs_cast: bool,
    pool: &mut PoolBuilder<'_>,
    out: &mut Vec<Insn>,
) -> Result<()> {
    if have == want {
        return Ok(());
    }
    let (hp, wp) = (is_primitive(have), is_primitive(want));
    match (hp, wp) {
        (true, false) => {
            boxing(have.chars().next().unwrap_or('I'), pool, out)?;
            let boxed = format!(
                "L{};",
                box_class(have.chars().next().unwrap_or('I')).unwrap_or("java/lang/Object")
            );
            if want != "Ljava/lang/Object;" && boxed != want && want != "Ljava/lang/Number;" {
                let c = pool.class(crate::weave::plan::internal_of(want).as_str())?;
                out.push(Insn::Cp {
                    op: op::CHECKCAST,
                    index: c,
                });
            }
        }
        (false, true) => unboxing(want.chars().next().unwrap_or('I'), pool, out)?,
        (false, false) => {
            if needs_cast {
                let c = pool.class(crate::weave::plan::internal_of(want).as_str())?;
                out.push(Insn::Cp {
                    op: op::CHECKCAST,
                    index: c,
                });
            }
        }
        (true, true) => {
            // Widening primitive conversions; byte/short/char to int need none.
            let from_int = matches!(have, "B" | "S" | "C" | "I");
            let op = match (want, from_int, have) {
                ("J", true, _) => Some(133),
                ("F", true, _) => Some(134),
                ("D", true, _) => Some(135),
                ("F", false, "J") => Some(137),
                ("D", false, "J") => Some(138),
                ("D", false, "F") => Some(141),
                _ => None,
            };
            if let Some(o) = op {
                out.push(Insn::Simple(o));
            }
        }
    }
    Ok(())
}

/// Pushes an int constant with the smallest instruction.
pub fn push_int(v: i32, pool: &mut PoolBuilder<'_>, out: &mut Vec<Insn>) -> Result<()> {
    match v {
        -1..=5 => out.push(Insn::Simple((3 + v) as u8)),
        -128..=127 => out.push(Insn::Push {
            op: 16,
            value: v as i16,
        }),
        -32768..=32767 => out.push(Insn::Push {
            op: 17,
            value: v as i16,
        }),
        _ => {
            let i = pool.integer(v)?;
            out.push(Insn::Ldc {
                index: i,
                wide: i > 255,
            });
        }
    }
    Ok(())
}

/// Pushes a string constant.
pub fn push_string(s: &str, pool: &mut PoolBuilder<'_>, out: &mut Vec<Insn>) -> Result<()> {
    let i = pool.string(s)?;
    out.push(Insn::Ldc {
        index: i,
        wide: i > 255,
    });
    Ok(())
}

/// `new Object[] { values }`: each value (local, descriptor) loaded, primitives boxed.
pub fn boxed_array(
    values: &[(u16, String)],
    pool: &mut PoolBuilder<'_>,
    out: &mut Vec<Insn>,
) -> Result<()> {
    push_int(values.len() as i32, pool, out)?;
    let obj = pool.class("java/lang/Object")?;
    out.push(Insn::Cp {
        op: op::ANEWARRAY,
        index: obj,
    });
    for (i, (l, d)) in values.iter().enumerate() {
        out.push(Insn::Simple(op::DUP));
        push_int(i as i32, pool, out)?;
        out.push(load(d, *l));
        if is_primitive(d) {
            boxing(d.chars().next().unwrap_or('I'), pool, out)?;
        }
        out.push(Insn::Simple(83)); // aastore
    }
    Ok(())
}

/// Pushes the default value of descriptor `d` (0, 0L, 0.0, null).
pub fn push_default(d: &str, out: &mut Vec<Insn>) {
    out.push(Insn::Simple(match d.as_bytes()[0] {
        b'J' => 9,
        b'F' => 11,
        b'D' => 14,
        b'L' | b'[' => op::ACONST_NULL,
        _ => 3,
    }));
}

/// The return opcode for a value of descriptor `d` (`ireturn` … `areturn`).
pub fn return_op(d: &str) -> u8 {
    match d.as_bytes()[0] {
        b'J' => 173,
        b'F' => 174,
        b'D' => 175,
        b'L' | b'[' => 176,
        _ => 172,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use major_classfile::opcodes::short_form;

    #[test]
    fn locals_0_to_3_get_their_one_byte_forms() {
        let mut insns = vec![
            load("I", 0),
            load("J", 3),
            load("Ljava/lang/Object;", 2),
            store("D", 1),
            store("[I", 3),
            load("I", 4),
            Insn::Local {
                op: op::ALOAD,
                index: 1,
                wide: true,
            },
            Insn::Simple(op::RETURN),
        ];
        compact_locals(&mut insns);
        let short: Vec<Option<(u8, u16)>> = insns
            .iter()
            .map(|i| match i {
                Insn::Simple(o) => short_form(*o),
                _ => None,
            })
            .collect();
        assert_eq!(
            short[..5],
            [
                Some((op::ILOAD, 0)),
                Some((22, 3)),
                Some((op::ALOAD, 2)),
                Some((57, 1)),
                Some((op::ASTORE, 3)),
            ]
        );
        // Locals past 3, wide forms and other instructions stay as they are.
        assert_eq!(insns[5], load("I", 4));
        assert!(matches!(insns[6], Insn::Local { wide: true, .. }));
        assert_eq!(insns[7], Insn::Simple(op::RETURN));
    }
}
