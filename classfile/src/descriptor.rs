//! Field and method descriptors (JVMS §4.3).

use crate::error::{Error, Result};

/// Splits a method descriptor into its parameter descriptors and return descriptor.
pub fn parse_method(desc: &str) -> Result<(Vec<&str>, &str)> {
    let bad = || Error::malformed(None, format!("bad method descriptor {desc:?}"));
    let rest = desc.strip_prefix('(').ok_or_else(bad)?;
    let close = byte_pos(rest, b')').ok_or_else(bad)?;
    // Each parameter takes a byte at least.
    let mut params = Vec::with_capacity(close.min(8));
    let mut p = &rest[..close];
    while !p.is_empty() {
        let n = field_len(p).ok_or_else(bad)?;
        params.push(&p[..n]);
        p = &p[n..];
    }
    let ret = &rest[close + 1..];
    if ret != "V" && field_len(ret) != Some(ret.len()) {
        return Err(bad());
    }
    Ok((params, ret))
}

/// The slots a method's parameters take (without `this`) and its return
/// descriptor: [`parse_method`] without the list, checked the same way.
pub fn method_slots(desc: &str) -> Result<(usize, &str)> {
    let bad = || Error::malformed(None, format!("bad method descriptor {desc:?}"));
    let rest = desc.strip_prefix('(').ok_or_else(bad)?;
    let close = byte_pos(rest, b')').ok_or_else(bad)?;
    let mut slots_taken = 0;
    let mut p = &rest[..close];
    while !p.is_empty() {
        let n = field_len(p).ok_or_else(bad)?;
        slots_taken += slots(&p[..n]);
        p = &p[n..];
    }
    let ret = &rest[close + 1..];
    if ret != "V" && field_len(ret) != Some(ret.len()) {
        return Err(bad());
    }
    Ok((slots_taken, ret))
}

/// Where the ASCII byte `c` first is in `s`: descriptors are short, and a
/// plain loop beats `str::find`'s searcher on them.
fn byte_pos(s: &str, c: u8) -> Option<usize> {
    s.bytes().position(|b| b == c)
}

/// Length of the field descriptor at the start of `s`.
pub fn field_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i] == b'[' {
        i += 1;
    }
    match b.get(i)? {
        b'B' | b'C' | b'D' | b'F' | b'I' | b'J' | b'S' | b'Z' => Some(i + 1),
        b'L' => byte_pos(&s[i..], b';').map(|e| i + e + 1),
        _ => None,
    }
}

/// Number of local/stack slots a value of field descriptor `d` takes (0 for `V`).
pub fn slots(d: &str) -> usize {
    match d.as_bytes().first() {
        Some(b'J' | b'D') => 2,
        Some(b'V') | None => 0,
        _ => 1,
    }
}

/// Total slots of a method's parameters (without `this`).
pub fn param_slots(desc: &str) -> Result<usize> {
    Ok(method_slots(desc)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_descriptors() {
        let (p, r) = parse_method("(I[[JLjava/lang/String;D)V").unwrap();
        assert_eq!(p, vec!["I", "[[J", "Ljava/lang/String;", "D"]);
        assert_eq!(r, "V");
        assert_eq!(param_slots("(IJD)V").unwrap(), 5);
        assert_eq!(method_slots("(I[[JLa;D)La;").unwrap(), (5, "La;"));
        assert!(method_slots("(Lfoo)V").is_err());
        assert!(method_slots("()").is_err());
        assert!(parse_method("(Lfoo)V").is_err());
        assert!(parse_method("I)V").is_err());
        assert!(parse_method("()").is_err());
    }
}
