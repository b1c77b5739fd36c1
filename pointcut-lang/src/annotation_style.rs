//! Annotation-style aspects: a Java class annotated `@Aspect` whose methods carry
//! `@Pointcut("..")`, `@Before("..")`, `@After`, `@AfterReturning(pointcut = "..",
//! returning = "r")`, `@AfterThrowing`, `@Around`, plus `@DeclarePrecedence`,
//! `@DeclareWarning` and `@DeclareError`. The pointcut strings go through the same
//! parser as `.aj` files; diagnostics are mapped back into the string literal in the
//! `.java` file, escapes and `+` concatenation included.

use crate::ast::*;
use crate::diagnostics::Diagnostic;
use crate::parse;

/// A Java token: enough to walk declarations without parsing statements.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Str(String, Vec<usize>),
    Punct(char),
    Other,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    span: Span,
}

fn tokenize(text: &str, base: usize) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i = (i + 2).min(b.len());
            continue;
        }
        if c == b'"' {
            let block = b.get(i + 1) == Some(&b'"') && b.get(i + 2) == Some(&b'"');
            let open = if block { 3 } else { 1 };
            i += open;
            let body_start = i;
            while i < b.len() {
                if b[i] == b'\\' {
                    i += 2;
                    continue;
                }
                if b[i] == b'"'
                    && (!block || (b.get(i + 1) == Some(&b'"') && b.get(i + 2) == Some(&b'"')))
                {
                    break;
                }
                if !block && b[i] == b'\n' {
                    break;
                }
                i += 1;
            }
            let body_end = i.min(b.len());
            let raw = text.get(body_start..body_end).unwrap_or("");
            let (s, map) = parse::unescape_java(raw);
            let map = map.into_iter().map(|m| base + body_start + m).collect();
            i = (i + open).min(b.len());
            out.push(Token {
                tok: Tok::Str(s, map),
                span: Span::new(base + start, base + i),
            });
            continue;
        }
        if c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != b'\'' && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            out.push(Token {
                tok: Tok::Other,
                span: Span::new(base + start, base + i),
            });
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80 {
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$' || b[i] >= 0x80)
            {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Ident(text[start..i].to_string()),
                span: Span::new(base + start, base + i),
            });
            continue;
        }
        if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_') {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Other,
                span: Span::new(base + start, base + i),
            });
            continue;
        }
        i += 1;
        out.push(Token {
            tok: Tok::Punct(c as char),
            span: Span::new(base + start, base + i),
        });
    }
    out
}

fn is_punct(t: Option<&Token>, c: char) -> bool {
    matches!(t, Some(Token { tok: Tok::Punct(p), .. }) if *p == c)
}

fn ident_of(t: Option<&Token>) -> Option<&str> {
    match t {
        Some(Token {
            tok: Tok::Ident(s), ..
        }) => Some(s),
        _ => None,
    }
}

/// Index of the token closing the bracket opened at `open`.
fn matching(toks: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (k, t) in toks.iter().enumerate().skip(open) {
        if let Tok::Punct(c) = t.tok {
            match c {
                '(' | '{' | '[' => depth += 1,
                ')' | '}' | ']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(k);
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// A parsed annotation: name and its element values (strings only matter here).
struct Annot {
    name: String,
    span: Span,
    /// `(element name or "value", string, offsets)`.
    values: Vec<(String, String, Vec<usize>, Span)>,
}

impl Annot {
    fn get(&self, key: &str) -> Option<&(String, String, Vec<usize>, Span)> {
        self.values.iter().find(|v| v.0 == key)
    }
}

/// Parses `@Name` or `@Name(...)` at `k`; returns it and the index after it.
fn annotation(toks: &[Token], k: usize) -> Option<(Annot, usize)> {
    let mut j = k + 1;
    let mut name = ident_of(toks.get(j))?.to_string();
    j += 1;
    while is_punct(toks.get(j), '.') && ident_of(toks.get(j + 1)).is_some() {
        name = ident_of(toks.get(j + 1))?.to_string();
        j += 2;
    }
    let mut values = Vec::new();
    let mut end = toks[j - 1].span.end;
    if is_punct(toks.get(j), '(') {
        let close = matching(toks, j)?;
        end = toks[close].span.end;
        let inner = &toks[j + 1..close];
        // Split at top-level commas into elements.
        let mut depth = 0;
        let mut parts: Vec<&[Token]> = Vec::new();
        let mut from = 0;
        for (x, t) in inner.iter().enumerate() {
            match t.tok {
                Tok::Punct('(' | '{' | '[') => depth += 1,
                Tok::Punct(')' | '}' | ']') => depth -= 1,
                Tok::Punct(',') if depth == 0 => {
                    parts.push(&inner[from..x]);
                    from = x + 1;
                }
                _ => {}
            }
        }
        parts.push(&inner[from..]);
        for part in parts.into_iter().filter(|p| !p.is_empty()) {
            let (key, rest) = match (ident_of(part.first()), is_punct(part.get(1), '=')) {
                (Some(kname), true) => (kname.to_string(), &part[2..]),
                _ => ("value".to_string(), part),
            };
            // A string or a concatenation of strings.
            let mut s = String::new();
            let mut map = Vec::new();
            let mut ok = !rest.is_empty();
            for (x, t) in rest.iter().enumerate() {
                match (&t.tok, x % 2) {
                    (Tok::Str(v, m), 0) => {
                        s.push_str(v);
                        map.extend_from_slice(&m[..m.len() - 1]);
                        if x + 1 == rest.len() {
                            map.push(m[m.len() - 1]);
                        }
                    }
                    (Tok::Punct('+'), 1) => {}
                    _ => ok = false,
                }
            }
            if ok {
                let sp = Span::new(rest[0].span.start, rest[rest.len() - 1].span.end);
                values.push((key, s, map, sp));
            }
        }
        j = close + 1;
    }
    Some((
        Annot {
            name,
            span: Span::new(toks[k].span.start, end),
            values,
        },
        j,
    ))
}

/// Parses a pointcut string whose bytes sit at the file offsets `map`.
fn pointcut_in_string(text: &str, map: &[usize]) -> Result<Pointcut, Diagnostic> {
    let f = |o: usize| map.get(o).copied().unwrap_or(*map.last().unwrap_or(&0));
    let mut pc = parse::parse_pointcut(text).map_err(|d| string_error(d, text, map))?;
    shift_pointcut(&mut pc, &f);
    Ok(pc)
}

fn string_error(d: Diagnostic, text: &str, map: &[usize]) -> Diagnostic {
    let f = |o: usize| map.get(o).copied().unwrap_or(*map.last().unwrap_or(&0));
    let mut d = d.shifted(&f);
    d.message = format!("in pointcut string: {}", d.message);
    if text.trim().is_empty() {
        d = d.with_help("the annotation needs a pointcut expression");
    }
    d
}

/// Moves every span of a parsed pointcut through `f`.
fn shift_pointcut(pc: &mut Pointcut, f: &dyn Fn(usize) -> usize) {
    use crate::patterns::*;
    fn sp(s: &mut Span, f: &dyn Fn(usize) -> usize) {
        *s = Span::new(f(s.start), f(s.end).max(f(s.start)));
    }
    fn tp(t: &mut TypePattern, f: &dyn Fn(usize) -> usize) {
        sp(&mut t.span, f);
        match &mut t.kind {
            TypePatternKind::Named(n) => n
                .type_args
                .iter_mut()
                .filter_map(TypeArgPattern::type_pattern_mut)
                .for_each(|x| tp(x, f)),
            TypePatternKind::Not(a) => tp(a, f),
            TypePatternKind::And(a, b) | TypePatternKind::Or(a, b) => {
                tp(a, f);
                tp(b, f);
            }
            TypePatternKind::Annotated(anns, t) => {
                anns.iter_mut().for_each(|a| ann(a, f));
                tp(t, f);
            }
        }
    }
    fn ann(a: &mut AnnotationPattern, f: &dyn Fn(usize) -> usize) {
        sp(&mut a.span, f);
        tp(&mut a.ty, f);
    }
    fn args(xs: &mut [ArgPattern], f: &dyn Fn(usize) -> usize) {
        for x in xs {
            match x {
                ArgPattern::Ellipsis(s) => sp(s, f),
                ArgPattern::Type(t) => tp(t, f),
            }
        }
    }
    fn sig(s: &mut SignaturePattern, f: &dyn Fn(usize) -> usize) {
        sp(&mut s.span, f);
        sp(&mut s.name_span, f);
        s.annotations.iter_mut().for_each(|a| ann(a, f));
        if let Some(t) = &mut s.return_type {
            tp(t, f);
        }
        if let Some(t) = &mut s.declaring_type {
            tp(t, f);
        }
        args(&mut s.params, f);
        s.throws.iter_mut().for_each(|t| tp(&mut t.ty, f));
    }
    fn field(x: &mut FieldPattern, f: &dyn Fn(usize) -> usize) {
        sp(&mut x.span, f);
        x.annotations.iter_mut().for_each(|a| ann(a, f));
        tp(&mut x.field_type, f);
        if let Some(t) = &mut x.declaring_type {
            tp(t, f);
        }
    }
    sp(&mut pc.span, f);
    use PointcutKind as K;
    match &mut pc.kind {
        K::And(a, b) | K::Or(a, b) => {
            shift_pointcut(a, f);
            shift_pointcut(b, f);
        }
        K::Not(a) | K::Cflow(a) | K::CflowBelow(a) => shift_pointcut(a, f),
        K::Call(s)
        | K::Execution(s)
        | K::Initialization(s)
        | K::PreInitialization(s)
        | K::WithinCode(s) => sig(s, f),
        K::Get(x) | K::Set(x) => field(x, f),
        K::StaticInitialization(t)
        | K::Handler(t)
        | K::Within(t)
        | K::This(t)
        | K::Target(t)
        | K::AtAnnotation(t)
        | K::AtWithin(t)
        | K::AtWithinCode(t)
        | K::AtThis(t)
        | K::AtTarget(t) => tp(t, f),
        K::Args(a) | K::AtArgs(a) => args(a, f),
        K::If(e) => sp(&mut e.span, f),
        K::Reference(r) => {
            sp(&mut r.name.span, f);
            args(&mut r.args, f);
        }
        K::UnknownDesignator(i) => sp(&mut i.span, f),
        K::AdviceExecution | K::Empty => {}
    }
}

/// A method header after its annotations.
struct MethodHeader {
    modifiers: Vec<Ident>,
    return_type: Option<JavaType>,
    name: Ident,
    params: Vec<Formal>,
    body: Option<Span>,
    end: usize,
}

fn java_type_of(toks: &[Token], source: &str) -> Option<JavaType> {
    let first = toks.first()?;
    let last = toks.last()?;
    let span = Span::new(first.span.start, last.span.end);
    let text = span.text(source);
    let (base, args) = match text.find('<') {
        Some(i) => {
            let end = text.rfind('>').map_or(text.len(), |j| j + 1).max(i);
            (&text[..i], Some(text[i..end].to_string()))
        }
        None => (text.split('[').next().unwrap_or(text), None),
    };
    let tail = match text.rfind('>') {
        Some(j) => &text[j + 1..],
        None => text,
    };
    let varargs = tail.contains("...");
    let base = base.trim_end_matches("...");
    Some(JavaType {
        name: base.split_whitespace().collect::<String>(),
        type_args: args,
        dims: tail.matches('[').count() as u8,
        varargs,
        span,
    })
}

fn method_header(toks: &[Token], k: usize, source: &str) -> Option<MethodHeader> {
    let mut j = k;
    let mut modifiers = Vec::new();
    const MODS: &[&str] = &[
        "public",
        "protected",
        "private",
        "static",
        "final",
        "abstract",
        "synchronized",
        "native",
        "strictfp",
        "default",
    ];
    loop {
        match ident_of(toks.get(j)) {
            Some(m) if MODS.contains(&m) => {
                modifiers.push(Ident {
                    name: m.to_string(),
                    span: toks[j].span,
                });
                j += 1;
            }
            _ => {
                if is_punct(toks.get(j), '@') {
                    let (_, after) = annotation(toks, j)?;
                    j = after;
                    continue;
                }
                break;
            }
        }
    }
    // Return type up to the name followed by `(`.
    let mut open = j;
    while open < toks.len() && !is_punct(toks.get(open), '(') {
        if is_punct(toks.get(open), ';')
            || is_punct(toks.get(open), '{')
            || is_punct(toks.get(open), '=')
        {
            return None;
        }
        open += 1;
    }
    if open >= toks.len() || open == j {
        return None;
    }
    let name_tok = &toks[open - 1];
    let name = Ident {
        name: ident_of(Some(name_tok))?.to_string(),
        span: name_tok.span,
    };
    let return_type = java_type_of(&toks[j..open - 1], source);
    let close = matching(toks, open)?;
    let mut params = Vec::new();
    let inner = &toks[open + 1..close];
    let mut depth = 0i32;
    let mut from = 0;
    let mut pieces: Vec<&[Token]> = Vec::new();
    for (x, t) in inner.iter().enumerate() {
        match t.tok {
            Tok::Punct('<' | '(') => depth += 1,
            Tok::Punct('>' | ')') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                pieces.push(&inner[from..x]);
                from = x + 1;
            }
            _ => {}
        }
    }
    pieces.push(&inner[from..]);
    for piece in pieces.into_iter().filter(|p| !p.is_empty()) {
        let mut s = 0;
        loop {
            if is_punct(piece.get(s), '@') {
                s = annotation(piece, s).map_or(s + 1, |(_, a)| a);
            } else if ident_of(piece.get(s)) == Some("final") {
                s += 1;
            } else {
                break;
            }
        }
        let last = piece.len() - 1;
        if s >= last {
            return None;
        }
        let pname = ident_of(piece.get(last))?;
        let ty = java_type_of(&piece[s..last], source)?;
        params.push(Formal {
            span: Span::new(piece[s].span.start, piece[last].span.end),
            ty,
            name: Ident {
                name: pname.to_string(),
                span: piece[last].span,
            },
        });
    }
    let mut e = close + 1;
    if ident_of(toks.get(e)) == Some("throws") {
        while e < toks.len() && !is_punct(toks.get(e), '{') && !is_punct(toks.get(e), ';') {
            e += 1;
        }
    }
    let (body, end) = if is_punct(toks.get(e), '{') {
        let c = matching(toks, e)?;
        (Some(Span::new(toks[e].span.start, toks[c].span.end)), c + 1)
    } else {
        (None, e + 1)
    };
    Some(MethodHeader {
        modifiers,
        return_type,
        name,
        params,
        body,
        end,
    })
}

/// Parses an annotation-style `.java` file into the same AST as a `.aj` file.
/// Classes without `@Aspect` are kept as Java types.
pub fn parse_java(source: &str) -> Result<CompilationUnit, Vec<Diagnostic>> {
    let mut unit = parse::parse_unit(source).map_err(|d| vec![d])?;
    let mut errors = Vec::new();
    let mut rest = Vec::new();
    for jt in std::mem::take(&mut unit.java_types) {
        match aspect_of_class(&jt, source, &mut errors) {
            Some(a) => unit.aspects.push(a),
            None => rest.push(jt),
        }
    }
    unit.java_types = rest;
    if errors.is_empty() {
        Ok(unit)
    } else {
        Err(errors)
    }
}

fn aspect_of_class(jt: &JavaText, source: &str, errors: &mut Vec<Diagnostic>) -> Option<Aspect> {
    let toks = tokenize(&jt.text, jt.span.start);
    // Header: annotations and modifiers up to `class Name`, then the body.
    let mut k = 0;
    let mut is_aspect = false;
    let mut annotations = Vec::new();
    let mut modifiers = Vec::new();
    let mut precedence = Vec::new();
    while k < toks.len() {
        if is_punct(toks.get(k), '@') {
            let (a, after) = annotation(&toks, k)?;
            match a.name.as_str() {
                "Aspect" => is_aspect = true,
                "DeclarePrecedence" => precedence.push(a.span),
                _ => {}
            }
            annotations.push(JavaText {
                text: a.span.text(source).to_string(),
                span: a.span,
            });
            k = after;
            continue;
        }
        match ident_of(toks.get(k)) {
            Some("class") => break,
            Some(m) => {
                modifiers.push(Ident {
                    name: m.to_string(),
                    span: toks[k].span,
                });
                k += 1;
            }
            None => return None,
        }
    }
    if !is_aspect {
        return None;
    }
    let name_tok = toks.get(k + 1)?;
    let name = Ident {
        name: ident_of(Some(name_tok))?.to_string(),
        span: name_tok.span,
    };
    let mut j = k + 2;
    let mut extends = None;
    while j < toks.len() && !is_punct(toks.get(j), '{') {
        if ident_of(toks.get(j)) == Some("extends") {
            let from = j + 1;
            let mut to = from;
            while to < toks.len()
                && !is_punct(toks.get(to), '{')
                && ident_of(toks.get(to)) != Some("implements")
            {
                to += 1;
            }
            extends = java_type_of(&toks[from..to], source);
            j = to;
            continue;
        }
        j += 1;
    }
    let body_open = j;
    let body_close = matching(&toks, body_open)?;
    let mut aspect = Aspect {
        name,
        modifiers,
        annotations,
        extends,
        implements: Vec::new(),
        per_clause: None,
        members: Vec::new(),
        annotation_style: true,
        span: jt.span,
    };
    // @DeclarePrecedence("A, B") on the class.
    for sp in precedence {
        let (a, _) = annotation(&toks, toks.iter().position(|t| t.span.start == sp.start)?)?;
        if let Some((_, s, map, _)) = a.get("value") {
            let mut patterns = Vec::new();
            let mut from = 0;
            for piece in s.split(',') {
                let lead = piece.len() - piece.trim_start().len();
                let sub = &map[from + lead..];
                match parse::parse_type_pattern(piece.trim()) {
                    Ok(mut tp) => {
                        shift_type_pattern(&mut tp, sub);
                        patterns.push(tp);
                    }
                    Err(d) => errors.push(string_error(d, piece.trim(), sub)),
                }
                from += piece.len() + 1;
            }
            aspect
                .members
                .push(Member::DeclarePrecedence(DeclarePrecedence {
                    patterns,
                    span: a.span,
                }));
        }
    }
    // Members at depth 1.
    let mut m = body_open + 1;
    let mut pending: Vec<Annot> = Vec::new();
    while m < body_close {
        if is_punct(toks.get(m), '@') {
            match annotation(&toks, m) {
                Some((a, after)) => {
                    pending.push(a);
                    m = after;
                    continue;
                }
                None => {
                    m += 1;
                    continue;
                }
            }
        }
        let start = toks[m].span.start;
        let relevant = pending.iter().any(|a| {
            matches!(
                a.name.as_str(),
                "Pointcut"
                    | "Before"
                    | "After"
                    | "AfterReturning"
                    | "AfterThrowing"
                    | "Around"
                    | "DeclareWarning"
                    | "DeclareError"
                    | "DeclareParents"
                    | "DeclareMixin"
            )
        });
        if !relevant {
            // Skip this member: to its `;` or its block.
            let mut e = m;
            while e < body_close {
                if is_punct(toks.get(e), ';') {
                    e += 1;
                    break;
                }
                if is_punct(toks.get(e), '{') {
                    e = matching(&toks, e).map_or(body_close, |c| c + 1);
                    if !is_punct(toks.get(e), ';') && !is_punct(toks.get(e), ',') {
                        break;
                    }
                    continue;
                }
                if is_punct(toks.get(e), '(') || is_punct(toks.get(e), '[') {
                    e = matching(&toks, e).map_or(body_close, |c| c + 1);
                    continue;
                }
                e += 1;
            }
            let end = toks.get(e.saturating_sub(1)).map_or(start, |t| t.span.end);
            let sp = Span::new(pending.first().map_or(start, |a| a.span.start), end);
            aspect.members.push(Member::Java(JavaText {
                text: sp.text(source).to_string(),
                span: sp,
            }));
            pending.clear();
            m = e.max(m + 1);
            continue;
        }
        let annots = std::mem::take(&mut pending);
        let member_start = annots.first().map_or(start, |a| a.span.start);
        if let Some(a) = annots
            .iter()
            .find(|a| a.name == "DeclareWarning" || a.name == "DeclareError")
        {
            // `@DeclareWarning("pc") static final String x = "message";`
            let mut e = m;
            while e < body_close && !is_punct(toks.get(e), ';') {
                e += 1;
            }
            // The field's initializer: string literals joined by `+`.
            let init = toks[m..e]
                .iter()
                .position(|t| t.tok == Tok::Punct('='))
                .map_or(e, |k| m + k + 1);
            let message: String = toks[init..e]
                .iter()
                .filter_map(|t| match &t.tok {
                    Tok::Str(s, _) => Some(s.as_str()),
                    _ => None,
                })
                .collect();
            let span = Span::new(member_start, toks.get(e).map_or(start, |t| t.span.end));
            if let Some((_, s, map, _)) = a.get("value") {
                match pointcut_in_string(s, map) {
                    Ok(pc) => aspect.members.push(Member::DeclareMessage(DeclareMessage {
                        is_error: a.name == "DeclareError",
                        pointcut: pc,
                        message,
                        span,
                    })),
                    Err(d) => errors.push(d),
                }
            }
            m = e + 1;
            continue;
        }
        if let Some(a) = annots
            .iter()
            .find(|a| a.name == "DeclareParents" || a.name == "DeclareMixin")
        {
            errors.push(
                Diagnostic::error(
                    "pointcut::unsupported",
                    format!("`@{}` (inter-type declarations) is not supported", a.name),
                    a.span,
                )
                .with_label("outside the supported subset of AspectJ"),
            );
            let mut e = m;
            while e < body_close && !is_punct(toks.get(e), ';') {
                e += 1;
            }
            m = e + 1;
            continue;
        }
        let Some(h) = method_header(&toks, m, source) else {
            errors.push(
                Diagnostic::error(
                    "pointcut::syntax",
                    "expected a method after this annotation",
                    annots[0].span,
                )
                .with_label("annotates no method"),
            );
            m += 1;
            continue;
        };
        let span = Span::new(
            member_start,
            toks.get(h.end.saturating_sub(1))
                .map_or(start, |t| t.span.end),
        );
        m = h.end;
        for a in &annots {
            if let Some(member) = member_of(a, &h, span, source, errors) {
                aspect.members.push(member);
            }
        }
    }
    Some(aspect)
}

fn shift_type_pattern(tp: &mut crate::patterns::TypePattern, map: &[usize]) {
    let f = |o: usize| map.get(o).copied().unwrap_or(*map.last().unwrap_or(&0));
    let mut pc = Pointcut {
        kind: PointcutKind::Within(tp.clone()),
        span: tp.span,
    };
    shift_pointcut(&mut pc, &f);
    if let PointcutKind::Within(t) = pc.kind {
        *tp = t;
    }
}

fn member_of(
    a: &Annot,
    h: &MethodHeader,
    span: Span,
    source: &str,
    errors: &mut Vec<Diagnostic>,
) -> Option<Member> {
    let expr_key = if a.get("pointcut").is_some() {
        "pointcut"
    } else {
        "value"
    };
    let parsed = a
        .get(expr_key)
        .map(|(_, s, map, _)| pointcut_in_string(s, map));
    let expr = match parsed {
        Some(Ok(pc)) => Some(pc),
        Some(Err(d)) => {
            errors.push(d);
            return None;
        }
        None => None,
    };
    if a.name == "Pointcut" {
        let is_abstract = h.modifiers.iter().any(|m| m.name == "abstract");
        return Some(Member::Pointcut(PointcutDecl {
            name: h.name.clone(),
            modifiers: h.modifiers.clone(),
            params: h.params.clone(),
            has_colon: !is_abstract,
            expr: if is_abstract {
                None
            } else {
                Some(expr.unwrap_or(Pointcut {
                    kind: PointcutKind::Empty,
                    span: a.span,
                }))
            },
            span,
        }));
    }
    let Some(pointcut) = expr else {
        errors.push(
            Diagnostic::error(
                "pointcut::syntax",
                format!("`@{}` needs a pointcut string", a.name),
                a.span,
            )
            .with_label("no pointcut given"),
        );
        return None;
    };
    let mut params = h.params.clone();
    let mut take = |key: &str| -> Result<Option<Formal>, Diagnostic> {
        let Some((_, name, _, vsp)) = a.get(key) else {
            return Ok(None);
        };
        match params.iter().position(|p| &p.name.name == name) {
            Some(i) => Ok(Some(params.remove(i))),
            None => Err(Diagnostic::error(
                "pointcut::unbound-formal",
                format!(
                    "`{key} = \"{name}\"` names no parameter of `{}`",
                    h.name.name
                ),
                *vsp,
            )
            .with_label("no such parameter")
            .with_secondary(h.name.span, "this method")),
        }
    };
    let kind = match a.name.as_str() {
        "Before" => AdviceKind::Before,
        "After" => AdviceKind::After,
        "AfterReturning" => match take("returning") {
            Ok(f) => AdviceKind::AfterReturning(f),
            Err(d) => {
                errors.push(d);
                return None;
            }
        },
        "AfterThrowing" => match take("throwing") {
            Ok(f) => AdviceKind::AfterThrowing(f),
            Err(d) => {
                errors.push(d);
                return None;
            }
        },
        _ => AdviceKind::Around(h.return_type.clone().unwrap_or(JavaType {
            name: "Object".into(),
            type_args: None,
            dims: 0,
            varargs: false,
            span: h.name.span,
        })),
    };
    let body_span = h.body.unwrap_or(h.name.span);
    let text = body_span.text(source).to_string();
    let (proceed_calls, reflective) = crate::lexical::scan_body(&text, body_span.start);
    Some(Member::Advice(Advice {
        kind,
        keyword_span: a.span,
        annotations: Vec::new(),
        params,
        throws: Vec::new(),
        pointcut,
        body: AdviceBody {
            text,
            span: body_span,
            proceed_calls,
            reflective,
        },
        span,
    }))
}
