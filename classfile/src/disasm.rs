//! A `javap -c`-like disassembler, driven by the opcode table.

use std::fmt::Write;

use crate::class_reader::{ClassFile, CodeAttribute};
use crate::code::{Code, CodeAttr, Insn};
use crate::constant_pool::{Constant, ConstantPool};
use crate::error::Result;
use crate::opcodes::OPCODES;

/// A short text for the constant at `idx` (`java/lang/String.length:()I` ...).
pub fn constant_text(pool: &ConstantPool<'_>, idx: u16) -> String {
    let r = (|| -> Result<String> {
        Ok(match pool.get(idx)? {
            Constant::Utf8(_) => format!("{:?}", pool.utf8(idx)?),
            Constant::Integer(v) => format!("int {v}"),
            Constant::Float(v) => format!("float {}", f32::from_bits(v)),
            Constant::Long(v) => format!("long {v}"),
            Constant::Double(v) => format!("double {}", f64::from_bits(v)),
            Constant::Class(_) => format!("class {}", pool.class_name(idx)?),
            Constant::String(s) => format!("String {:?}", pool.utf8(s)?),
            Constant::Fieldref(..) | Constant::Methodref(..) | Constant::InterfaceMethodref(..) => {
                let m = pool.member_ref(idx)?;
                format!("{}.{}:{}", m.owner, m.name, m.descriptor)
            }
            Constant::NameAndType(..) => {
                let (n, d) = pool.name_and_type(idx)?;
                format!("{n}:{d}")
            }
            Constant::MethodHandle(k, r) => {
                format!("MethodHandle kind {k} {}", constant_text(pool, r))
            }
            Constant::MethodType(d) => format!("MethodType {}", pool.utf8(d)?),
            Constant::Dynamic(b, _) | Constant::InvokeDynamic(b, _) => {
                let (n, d) = pool.dynamic(idx)?;
                format!("#{b}:{n}:{d}")
            }
            Constant::Module(n) => format!("module {}", pool.utf8(n)?),
            Constant::Package(n) => format!("package {}", pool.utf8(n)?),
            Constant::Unusable => "unusable".into(),
        })
    })();
    r.unwrap_or_else(|e| format!("<{e}>"))
}

/// Disassembles one decoded method body; labels print as the offsets they had.
pub fn disassemble_code(code: &Code, pool: &ConstantPool<'_>, out: &mut String) {
    let layout = code.layout();
    let lab = |l: crate::code::Label| layout.offset(l);
    let _ = writeln!(
        out,
        "    max_stack={} max_locals={} length={}",
        code.max_stack, code.max_locals, layout.code_len
    );
    for (i, insn) in code.insns.iter().enumerate() {
        let Some(o) = insn.opcode() else { continue };
        let name = OPCODES[o as usize].name;
        let at = layout.insn_offsets[i];
        let operands = match insn {
            Insn::Simple(_) | Insn::Label(_) => String::new(),
            Insn::Local { index, wide, .. } => {
                format!("{index}{}", if *wide { " (wide)" } else { "" })
            }
            Insn::Iinc { index, delta, .. } => format!("{index}, {delta}"),
            Insn::Push { value, .. } => value.to_string(),
            Insn::Ldc { index, .. } | Insn::Cp { index, .. } | Insn::InvokeDynamic { index } => {
                format!("#{index} // {}", constant_text(pool, *index))
            }
            Insn::InvokeInterface { index, count } => {
                format!("#{index}, {count} // {}", constant_text(pool, *index))
            }
            Insn::NewArray { atype } => format!("type {atype}"),
            Insn::MultiANewArray { index, dims } => {
                format!("#{index}, {dims} // {}", constant_text(pool, *index))
            }
            Insn::Jump { target, .. } => lab(*target).to_string(),
            Insn::TableSwitch {
                default,
                low,
                targets,
            } => {
                let mut s = format!("{{ // {low} to {}", *low as i64 + targets.len() as i64 - 1);
                for (k, t) in targets.iter().enumerate() {
                    let _ = write!(s, "\n             {}: {}", *low as i64 + k as i64, lab(*t));
                }
                let _ = write!(s, "\n             default: {}\n        }}", lab(*default));
                s
            }
            Insn::LookupSwitch { default, pairs } => {
                let mut s = format!("{{ // {}", pairs.len());
                for (k, t) in pairs {
                    let _ = write!(s, "\n             {k}: {}", lab(*t));
                }
                let _ = write!(s, "\n             default: {}\n        }}", lab(*default));
                s
            }
        };
        let _ = writeln!(out, "    {at:5}: {name:<16}{operands}");
    }
    if !code.handlers.is_empty() {
        let _ = writeln!(out, "    Exception table:\n       from    to  target type");
        for h in &code.handlers {
            let ty = if h.catch_type == 0 {
                "any".to_string()
            } else {
                pool.class_name(h.catch_type)
                    .map(|c| c.into_owned())
                    .unwrap_or_else(|e| format!("<{e}>"))
            };
            let _ = writeln!(
                out,
                "      {:5} {:5} {:5}   {ty}",
                lab(h.start),
                lab(h.end),
                lab(h.handler)
            );
        }
    }
    for a in &code.attributes {
        if let CodeAttr::StackMapTable { data, .. } = a {
            let n = if data.len() >= 2 {
                u16::from_be_bytes([data[0], data[1]])
            } else {
                0
            };
            let _ = writeln!(out, "    StackMapTable: {n} frames");
        }
    }
}

/// Disassembles a class; with `method` set, only methods with that name (or
/// `name` + descriptor) are printed.
pub fn disassemble_class(class: &ClassFile<'_>, method: Option<&str>) -> Result<String> {
    let mut out = String::new();
    let pool = &class.pool;
    let _ = writeln!(
        out,
        "class {} (version {}.{}, flags {:#06x})",
        class.name()?,
        class.major_version,
        class.minor_version,
        class.access
    );
    if let Some(s) = class.super_name()? {
        let _ = writeln!(out, "  extends {s}");
    }
    for i in class.interface_names()? {
        let _ = writeln!(out, "  implements {i}");
    }
    if method.is_none() {
        let _ = writeln!(out, "  constant pool: {} slots", pool.len());
        for f in &class.fields {
            let _ = writeln!(
                out,
                "  field {} {} (flags {:#06x})",
                class.member_name(f)?,
                class.member_descriptor(f)?,
                f.access
            );
        }
    }
    for m in &class.methods {
        let name = class.member_name(m)?;
        let desc = class.member_descriptor(m)?;
        if let Some(want) = method {
            if want != name && want != format!("{name}{desc}") {
                continue;
            }
        }
        let _ = writeln!(out, "\n  method {name}{desc} (flags {:#06x})", m.access);
        if let Some(a) = m.attribute("Code") {
            let attr = CodeAttribute::parse(a, pool).map_err(|e| e.in_method(&name, &desc))?;
            let code = Code::decode(&attr, pool).map_err(|e| e.in_method(&name, &desc))?;
            disassemble_code(&code, pool, &mut out);
        }
    }
    Ok(out)
}
