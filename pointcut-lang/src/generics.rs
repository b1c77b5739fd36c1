//! Generic signatures seen from a subclass: the type arguments a class gives
//! its supertypes (`class IntBox extends Box<Integer>`), substituted into a
//! supertype's method signature (`Box.put(T)` seen from `IntBox` is
//! `put(Integer)`). AspectJ gives a join point the signature of every method
//! it overrides, in this parameterized form (and `call`s of inherited members
//! their parameterized form), so the matcher needs these descriptors.

use std::collections::HashMap;

use crate::descriptor::{self, GenericArg, GenericType};
use crate::matcher::TypeWorld;

/// Type parameters: each name with the erasure of its first bound.
type TypeParams = Vec<(String, String)>;

/// Type parameters of a class or method signature: names and the erasure of
/// their first bound (internal name), and the rest of the signature.
fn type_params(s: &str) -> Option<(TypeParams, &str)> {
    let Some(rest) = s.strip_prefix('<') else {
        return Some((Vec::new(), s));
    };
    let b = rest.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while *b.get(i)? != b'>' {
        let start = i;
        while *b.get(i)? != b':' {
            i += 1;
        }
        let name = std::str::from_utf8(&b[start..i]).ok()?.to_string();
        let mut bound: Option<String> = None;
        // `:ClassBound` (maybe empty) then `:InterfaceBound`*.
        while b.get(i) == Some(&b':') {
            i += 1;
            if matches!(b.get(i), Some(b'L' | b'T' | b'[')) {
                let t = descriptor::generic_type_at(rest, &mut i)?;
                if bound.is_none() {
                    bound = Some(if t.type_var || t.dims > 0 {
                        "java/lang/Object".to_string()
                    } else {
                        t.name
                    });
                }
            }
        }
        out.push((
            name,
            bound.unwrap_or_else(|| "java/lang/Object".to_string()),
        ));
    }
    Some((out, &rest[i + 1..]))
}

/// The direct supertypes a class signature names, with type arguments.
fn class_supers(sig: &str) -> Option<(TypeParams, Vec<GenericType>)> {
    let (params, rest) = type_params(sig)?;
    let mut i = 0;
    let mut supers = Vec::new();
    while i < rest.len() {
        supers.push(descriptor::generic_type_at(rest, &mut i)?);
    }
    Some((params, supers))
}

type Bindings = HashMap<String, GenericType>;

fn substitute(t: &GenericType, env: &Bindings) -> GenericType {
    if t.type_var {
        if let Some(b) = env.get(&t.name) {
            let mut r = b.clone();
            r.dims += t.dims;
            return r;
        }
        return t.clone();
    }
    GenericType {
        name: t.name.clone(),
        type_var: false,
        dims: t.dims,
        args: t
            .args
            .iter()
            .map(|a| match a {
                GenericArg::Any => GenericArg::Any,
                GenericArg::Extends(g) => GenericArg::Extends(substitute(g, env)),
                GenericArg::Super(g) => GenericArg::Super(substitute(g, env)),
                GenericArg::Type(g) => GenericArg::Type(substitute(g, env)),
            })
            .collect(),
    }
}

/// The bindings of `target`'s type parameters as seen from `from` (a
/// subtype), through the class signatures on the way; `None` when `from`
/// reaches `target` only through raw types or not at all.
fn bindings_to(from: &str, target: &str, world: &dyn TypeWorld, depth: u8) -> Option<Bindings> {
    if depth > 32 {
        return None;
    }
    let sig = world.class_signature(from)?;
    let (_, supers) = class_supers(&sig)?;
    for s in supers {
        if s.type_var || s.args.is_empty() {
            continue;
        }
        let params = world
            .class_signature(&s.name)
            .and_then(|g| type_params(&g).map(|(p, _)| p))
            .unwrap_or_default();
        if params.len() != s.args.len() {
            continue;
        }
        let env: Bindings = params
            .iter()
            .zip(&s.args)
            .map(|((name, bound), a)| {
                let t = match a {
                    GenericArg::Type(g) | GenericArg::Extends(g) => g.clone(),
                    GenericArg::Super(_) | GenericArg::Any => GenericType {
                        name: bound.clone(),
                        type_var: false,
                        dims: 0,
                        args: Vec::new(),
                    },
                };
                (name.clone(), t)
            })
            .collect();
        if s.name == target {
            return Some(env);
        }
        if world.is_subtype(&s.name, target) {
            if let Some(up) = bindings_to(&s.name, target, world, depth + 1) {
                return Some(
                    up.into_iter()
                        .map(|(k, v)| (k, substitute(&v, &env)))
                        .collect(),
                );
            }
        }
    }
    None
}

fn erase(t: &GenericType, bounds: &HashMap<String, String>, out: &mut String) {
    for _ in 0..t.dims {
        out.push('[');
    }
    let name = if t.type_var {
        bounds
            .get(&t.name)
            .map(String::as_str)
            .unwrap_or("java/lang/Object")
    } else {
        &t.name
    };
    match name {
        "boolean" => out.push('Z'),
        "byte" => out.push('B'),
        "char" => out.push('C'),
        "short" => out.push('S'),
        "int" => out.push('I'),
        "long" => out.push('J'),
        "float" => out.push('F'),
        "double" => out.push('D'),
        "void" => out.push('V'),
        n => {
            out.push('L');
            out.push_str(n);
            out.push(';');
        }
    }
}

/// The descriptor of method `signature` (a generic method signature) of
/// class `owner` as seen from its subtype `from`: `owner`'s type variables
/// replaced by the arguments `from` gives them, the rest erased to their
/// bounds. `None` if `from` gives no arguments or the signature is malformed.
pub fn seen_from(
    from: &str,
    owner: &str,
    signature: &str,
    world: &dyn TypeWorld,
) -> Option<String> {
    let env = bindings_to(from, owner, world, 0)?;
    let (mparams, rest) = type_params(signature)?;
    let (params, ret) = descriptor::method_signature(rest)?;
    let mut bounds: HashMap<String, String> = world
        .class_signature(owner)
        .and_then(|g| type_params(&g).map(|(p, _)| p))
        .unwrap_or_default()
        .into_iter()
        .collect();
    bounds.extend(mparams);
    let mut d = String::from("(");
    for p in &params {
        erase(&substitute(p, &env), &bounds, &mut d);
    }
    d.push(')');
    erase(&substitute(&ret, &env), &bounds, &mut d);
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matcher::SimpleWorld;

    #[test]
    fn substitutes_through_supertypes() {
        let mut w = SimpleWorld::new();
        w.add("p/Box", &["java/lang/Object"], &[])
            .add("p/IntBox", &["p/Box"], &[])
            .add("p/Mid", &["p/Box"], &[])
            .add("p/Leaf", &["p/Mid"], &[])
            .class_signature("p/Box", "<T:Ljava/lang/Object;>Ljava/lang/Object;")
            .class_signature("p/IntBox", "Lp/Box<Ljava/lang/Integer;>;")
            .class_signature(
                "p/Mid",
                "<U:Ljava/lang/Number;>Lp/Box<Ljava/util/List<TU;>;>;",
            )
            .class_signature("p/Leaf", "Lp/Mid<Ljava/lang/Long;>;");
        assert_eq!(
            seen_from("p/IntBox", "p/Box", "(TT;)V", &w).as_deref(),
            Some("(Ljava/lang/Integer;)V")
        );
        assert_eq!(
            seen_from("p/Leaf", "p/Box", "(TT;)TT;", &w).as_deref(),
            Some("(Ljava/util/List;)Ljava/util/List;")
        );
        assert_eq!(
            seen_from("p/IntBox", "p/Box", "<V:Ljava/lang/Number;>(TV;[TT;)V", &w).as_deref(),
            Some("(Ljava/lang/Number;[Ljava/lang/Integer;)V")
        );
        assert_eq!(seen_from("p/Box", "p/Box", "(TT;)V", &w), None);
    }
}
