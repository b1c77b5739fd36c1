//! A Java-aware lexical scan that runs before the grammar: it finds unterminated
//! strings, text blocks, char literals and comments, and unbalanced braces,
//! parentheses and brackets, and reports them where they start (the grammar alone
//! could only say "unexpected end of file"). It also scans advice bodies for
//! `proceed(..)` calls and reflective join-point variables.

use crate::ast::{ProceedCall, ReflectiveUse, Span};
use crate::diagnostics::Diagnostic;

/// One open delimiter on the stack.
struct Open {
    ch: u8,
    at: usize,
}

fn closing(open: u8) -> u8 {
    match open {
        b'{' => b'}',
        b'(' => b')',
        _ => b']',
    }
}

/// Indentation (in bytes of leading whitespace) of the line containing `at`, and
/// whether `at` is the first non-blank character of its line.
fn indent_of(text: &[u8], at: usize) -> (usize, bool) {
    let start = text[..at]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let indent = text[start..]
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count();
    (indent, start + indent == at)
}

/// Skips a string, text block, char literal or comment starting at `i`; returns
/// the index after it, or a diagnostic if it never ends. `None` if nothing to skip.
fn skip_literal(text: &[u8], i: usize) -> Option<Result<usize, Diagnostic>> {
    let n = text.len();
    let at = |k: usize| text.get(k).copied().unwrap_or(0);
    match at(i) {
        b'/' if at(i + 1) == b'/' => {
            let mut k = i + 2;
            while k < n && text[k] != b'\n' {
                k += 1;
            }
            Some(Ok(k))
        }
        b'/' if at(i + 1) == b'*' => {
            let mut k = i + 2;
            while k + 1 < n && !(text[k] == b'*' && text[k + 1] == b'/') {
                k += 1;
            }
            if k + 1 >= n {
                return Some(Err(Diagnostic::error(
                    "pointcut::unterminated-comment",
                    "unterminated block comment",
                    Span::new(i, i + 2),
                )
                .with_label("this comment is never closed")
                .with_help("close it with `*/`")));
            }
            Some(Ok(k + 2))
        }
        b'"' if at(i + 1) == b'"' && at(i + 2) == b'"' => {
            let mut k = i + 3;
            while k < n {
                if text[k] == b'\\' {
                    k += 2;
                    continue;
                }
                if text[k] == b'"' && at(k + 1) == b'"' && at(k + 2) == b'"' {
                    return Some(Ok(k + 3));
                }
                k += 1;
            }
            Some(Err(Diagnostic::error(
                "pointcut::unterminated-string",
                "unterminated text block",
                Span::new(i, i + 3),
            )
            .with_label("this text block is never closed")
            .with_help("close it with `\"\"\"`")))
        }
        b'"' => {
            let mut k = i + 1;
            while k < n && text[k] != b'"' && text[k] != b'\n' {
                k += if text[k] == b'\\' { 2 } else { 1 };
            }
            if k >= n || text[k] != b'"' {
                let end = k.min(n);
                return Some(Err(Diagnostic::error(
                    "pointcut::unterminated-string",
                    "unterminated string literal",
                    Span::new(i, end.max(i + 1)),
                )
                .with_label("this string is not closed before the end of the line")
                .with_help(
                    "add the closing `\"` (strings cannot span lines; use a text block)",
                )));
            }
            Some(Ok(k + 1))
        }
        b'\'' => {
            let mut k = i + 1;
            while k < n && text[k] != b'\'' && text[k] != b'\n' {
                k += if text[k] == b'\\' { 2 } else { 1 };
            }
            if k >= n || text[k] != b'\'' || k == i + 1 {
                let end = k.min(n);
                return Some(Err(Diagnostic::error(
                    "pointcut::unterminated-char",
                    "unterminated character literal",
                    Span::new(i, end.max(i + 1)),
                )
                .with_label("this character literal is not closed")
                .with_help(
                    "a character literal holds one character or escape: 'a', '\\n', '\\''",
                )));
            }
            Some(Ok(k + 1))
        }
        _ => None,
    }
}

/// How deeply delimiters (and `!` runs) may nest: the grammar and the passes after
/// it recurse, and a limit keeps hostile input from exhausting the stack.
pub const MAX_NESTING: usize = 100;

fn too_deep(at: usize) -> Diagnostic {
    Diagnostic::error(
        "pointcut::too-deep",
        format!("nesting deeper than {MAX_NESTING} levels is not supported"),
        Span::new(at, at + 1),
    )
    .with_label("too deep here")
}

/// Checks strings, comments and delimiters of a whole source text.
pub fn check_balance(source: &str, end_label: &str) -> Result<(), Diagnostic> {
    let text = source.as_bytes();
    let mut stack: Vec<Open> = Vec::new();
    let mut bangs = 0usize;
    // The first block whose closing brace is indented differently from its opening
    // line: the likely place of a missing `}` when braces do not balance.
    let mut suspect: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < text.len() {
        if let Some(r) = skip_literal(text, i) {
            i = r?;
            continue;
        }
        let c = text[i];
        if c == b'!' {
            bangs += 1;
            if bangs > MAX_NESTING {
                return Err(too_deep(i));
            }
        } else if !c.is_ascii_whitespace() && c != b'(' {
            bangs = 0;
        }
        match c {
            b'{' | b'(' | b'[' => {
                if stack.len() >= MAX_NESTING {
                    return Err(too_deep(i));
                }
                stack.push(Open { ch: c, at: i })
            }
            b'}' | b')' | b']' => match stack.pop() {
                Some(open) if closing(open.ch) == c => {
                    if c == b'}' && suspect.is_none() {
                        let (oi, _) = indent_of(text, open.at);
                        let (ci, first) = indent_of(text, i);
                        if first && oi != ci {
                            suspect = Some((open.at, i));
                        }
                    }
                }
                Some(open) => {
                    let want = closing(open.ch) as char;
                    return Err(Diagnostic::error(
                        "pointcut::unbalanced",
                        format!("mismatched `{}`: expected `{want}`", c as char),
                        Span::new(i, i + 1),
                    )
                    .with_label(format!("expected `{want}` here"))
                    .with_secondary(
                        Span::new(open.at, open.at + 1),
                        format!("to close this `{}`", open.ch as char),
                    ));
                }
                None => {
                    return Err(Diagnostic::error(
                        "pointcut::unbalanced",
                        format!("unexpected `{}` with nothing to close", c as char),
                        Span::new(i, i + 1),
                    )
                    .with_label("no matching opening delimiter")
                    .with_help("remove it, or add the opening delimiter it belongs to"));
                }
            },
            _ => {}
        }
        i += 1;
    }
    if let Some(open) = stack.first() {
        let innermost = stack.last().map_or(open.at, |o| o.at);
        let mut d = Diagnostic::error(
            "pointcut::unbalanced",
            format!("unclosed `{}`", open.ch as char),
            Span::new(open.at, open.at + 1),
        )
        .with_label(format!("this `{}` is never closed", open.ch as char))
        .with_secondary(
            {
                let last = text
                    .iter()
                    .rposition(|c| !c.is_ascii_whitespace())
                    .unwrap_or(0);
                Span::new(last, (last + 1).min(text.len()))
            },
            end_label,
        );
        if let Some((sopen, sclose)) = suspect {
            d = d
                .with_secondary(
                    Span::new(sopen, sopen + 1),
                    "perhaps this block lacks its `}`",
                )
                .with_secondary(
                    Span::new(sclose, sclose + 1),
                    "as this `}` is indented like an outer one",
                );
        } else if innermost != open.at {
            d = d.with_secondary(Span::new(innermost, innermost + 1), "innermost unclosed");
        }
        return Err(d.with_help(format!("add the missing `{}`", closing(open.ch) as char)));
    }
    Ok(())
}

/// Scans an advice body (`{ .. }` at byte `offset` of the file) for `proceed(..)`
/// calls and reflective join-point variables.
pub fn scan_body(body: &str, offset: usize) -> (Vec<ProceedCall>, ReflectiveUse) {
    let text = body.as_bytes();
    let mut calls = Vec::new();
    let mut uses = ReflectiveUse::default();
    let mut prev_sig: u8 = 0; // last significant character before an identifier
    let mut i = 0;
    while i < text.len() {
        if let Some(r) = skip_literal(text, i) {
            match r {
                Ok(k) => {
                    i = k;
                    prev_sig = b'"';
                    continue;
                }
                Err(_) => break,
            }
        }
        let c = text[i];
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let start = i;
            while i < text.len()
                && (text[i].is_ascii_alphanumeric() || text[i] == b'_' || text[i] == b'$')
            {
                i += 1;
            }
            let word = &body[start..i];
            match word {
                "thisJoinPoint" => uses.this_join_point = true,
                "thisJoinPointStaticPart" => uses.this_join_point_static_part = true,
                "thisEnclosingJoinPointStaticPart" => {
                    uses.this_enclosing_join_point_static_part = true
                }
                "thisCallingContext" => uses.this_calling_context = true,
                "proceed" if prev_sig != b'.' => {
                    let mut k = i;
                    while k < text.len() && text[k].is_ascii_whitespace() {
                        k += 1;
                    }
                    if k < text.len() && text[k] == b'(' {
                        if let Some((args, end)) = count_args(text, k) {
                            calls.push(ProceedCall {
                                args,
                                span: Span::new(offset + start, offset + end),
                            });
                        }
                    }
                }
                _ => {}
            }
            prev_sig = b'a';
            continue;
        }
        if !c.is_ascii_whitespace() {
            prev_sig = c;
        }
        i += 1;
    }
    (calls, uses)
}

/// Counts the comma-separated arguments of the parenthesised list at `open`;
/// returns the count and the index after the closing parenthesis.
fn count_args(text: &[u8], open: usize) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut commas = 0usize;
    let mut any = false;
    let mut i = open;
    while i < text.len() {
        if let Some(r) = skip_literal(text, i) {
            i = r.ok()?;
            any = true;
            continue;
        }
        match text[i] {
            b'(' | b'{' | b'[' => depth += 1,
            b')' | b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    let n = if any { commas + 1 } else { 0 };
                    return Some((n, i + 1));
                }
            }
            b',' if depth == 1 => commas += 1,
            c if !c.is_ascii_whitespace() && depth >= 1 => any = true,
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_with_tricky_literals() {
        let src = r#"aspect A { String s = "}{"; char c = '}'; char q = '\''; /* { */ // {
        String t = """
            { " }
            """; }"#;
        assert!(check_balance(src, "end").is_ok());
    }

    #[test]
    fn unclosed_brace_reported_at_opening() {
        let e = check_balance("aspect A {\n  void f() {\n}\n", "end").unwrap_err();
        assert_eq!(e.span.start, 9);
    }

    #[test]
    fn mismatched() {
        let e = check_balance("a ( ]", "end").unwrap_err();
        assert!(e.message.contains("mismatched"));
    }

    #[test]
    fn proceed_calls() {
        let (calls, uses) = scan_body(
            "{ Object r = proceed(a, f(b, c)); x.proceed(); proceed(); thisJoinPoint; }",
            0,
        );
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].args, 2);
        assert_eq!(calls[1].args, 0);
        assert!(uses.this_join_point);
        assert!(!uses.this_join_point_static_part);
    }
}
