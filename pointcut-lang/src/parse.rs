//! From text to the typed AST: runs the lexical pre-scan, the pest grammar
//! (`grammar.pest`), and turns pest's pairs into [`crate::ast`] nodes. Syntax errors
//! become [`Diagnostic`]s that say what was expected.

use pest::iterators::Pair;
use pest::Parser as _;

use crate::ast::*;
use crate::diagnostics::Diagnostic;
use crate::lexical;
use crate::patterns::*;

/// The generated parser, private so that its `Rule` enum stays an implementation
/// detail.
mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "grammar.pest"]
    pub(super) struct AjParser;
}

use grammar::{AjParser, Rule};

type P<'i> = Pair<'i, Rule>;

fn span(p: &P<'_>) -> Span {
    let s = p.as_span();
    Span::new(s.start(), s.end())
}

fn ident(p: &P<'_>) -> Ident {
    Ident {
        name: p.as_str().to_string(),
        span: span(p),
    }
}

fn java_text(p: &P<'_>) -> JavaText {
    JavaText {
        text: p.as_str().to_string(),
        span: span(p),
    }
}

/// Runs the grammar from `rule`; on failure, runs it again with pest's detailed
/// error tracking (slower, so off on the success path) to say what was expected.
fn run(rule: Rule, text: &str) -> Result<pest::iterators::Pairs<'_, Rule>, Diagnostic> {
    match AjParser::parse(rule, text) {
        Ok(p) => Ok(p),
        Err(_) => {
            pest::set_error_detail(true);
            let r = AjParser::parse(rule, text);
            r.map_err(|e| syntax_error(text, e))
        }
    }
}

/// Parses a whole `.aj` compilation unit. Spans are byte offsets into `text`.
pub fn parse_unit(text: &str) -> Result<CompilationUnit, Diagnostic> {
    lexical::check_balance(text, "the file ends here")?;
    let mut pairs = run(Rule::file, text)?;
    let file = pairs.next().expect("file rule");
    build_unit(text, file)
}

/// Parses a pointcut expression on its own (annotation-style strings, tests).
pub fn parse_pointcut(text: &str) -> Result<Pointcut, Diagnostic> {
    lexical::check_balance(text, "the pointcut ends here")?;
    let mut pairs = run(Rule::pointcut_only, text)?;
    let top = pairs.next().expect("pointcut_only rule");
    match top
        .into_inner()
        .find(|p| p.as_rule() == Rule::pointcut_expr)
    {
        Some(p) => pointcut(p),
        None => Ok(Pointcut {
            kind: PointcutKind::Empty,
            span: Span::new(0, 0),
        }),
    }
}

/// Parses a type pattern on its own (`declare precedence` lists in annotation style,
/// tests).
pub fn parse_type_pattern(text: &str) -> Result<TypePattern, Diagnostic> {
    lexical::check_balance(text, "the pattern ends here")?;
    let mut pairs = run(Rule::type_pattern_only, text)?;
    let top = pairs.next().expect("type_pattern_only rule");
    let p = top
        .into_inner()
        .find(|p| p.as_rule() == Rule::type_pattern)
        .expect("type pattern");
    type_pattern(p)
}

// ------------------------------------------------------------------ errors

/// What to call a rule in "expected ..." messages; `None` hides it.
fn rule_name(r: Rule) -> Option<&'static str> {
    Some(match r {
        Rule::EOI => "end of input",
        Rule::ident | Rule::pc_ref_name => "an identifier",
        Rule::qualified_name => "a name",
        Rule::pointcut_expr | Rule::pc_and | Rule::pc_not | Rule::pc_paren => {
            "a pointcut expression"
        }
        Rule::pc_ref => "a pointcut",
        Rule::call
        | Rule::execution
        | Rule::get
        | Rule::set
        | Rule::initialization
        | Rule::preinitialization
        | Rule::staticinitialization
        | Rule::handler
        | Rule::adviceexecution
        | Rule::within
        | Rule::withincode
        | Rule::this_pc
        | Rule::target
        | Rule::args
        | Rule::cflow
        | Rule::cflowbelow
        | Rule::if_pc
        | Rule::at_annotation
        | Rule::at_within
        | Rule::at_withincode
        | Rule::at_this
        | Rule::at_target
        | Rule::at_args
        | Rule::at_unknown => "a pointcut designator",
        Rule::type_pattern
        | Rule::tp_and
        | Rule::tp_not
        | Rule::tp_paren
        | Rule::annotated_type
        | Rule::simple_type_pattern
        | Rule::return_type => "a type pattern",
        Rule::name_pattern | Rule::member_ref | Rule::member_name => "a name pattern",
        Rule::ctor_ref => "a constructor pattern",
        Rule::param_patterns | Rule::arg_patterns | Rule::ellipsis => "a parameter pattern",
        Rule::plus => "`+`",
        Rule::throws_pattern | Rule::throws_clause => "`throws`",
        Rule::annotation_pattern | Rule::annotation => "an annotation",
        Rule::modifier_pattern | Rule::mod_name | Rule::modifier_kw | Rule::modifiers => {
            "a modifier"
        }
        Rule::formals => "`(` and the formal parameters",
        Rule::formal => "a formal parameter",
        Rule::java_type | Rule::primitive_type | Rule::class_type => "a type",
        Rule::type_args | Rule::tp_args => "type arguments",
        Rule::block | Rule::advice_body => "a `{` block",
        Rule::aspect_close => "`}` closing the aspect",
        Rule::pointcut_decl => "a pointcut declaration",
        Rule::advice_decl => "an advice",
        Rule::java_member => "a member",
        Rule::aspect_decl => "an aspect",
        Rule::package_decl => "`package`",
        Rule::import_decl => "`import`",
        Rule::extends_clause => "`extends`",
        Rule::implements_clause => "`implements`",
        Rule::per_clause => "a per-clause",
        Rule::string_lit | Rule::message => "a string literal",
        Rule::returning_kw => "`returning`",
        Rule::throwing_kw => "`throwing`",
        Rule::extra_formal => "`(`",
        Rule::dims_pattern | Rule::dims => "`[]`",
        Rule::varargs => "`...`",
        Rule::paren_text => "`(`",
        Rule::mod_not | Rule::throws_not | Rule::annotation_not => "`!`",
        Rule::or_op => "`||`",
        Rule::and_op => "`&&`",
        _ => return None,
    })
}

/// The token found at `pos`, for "found ..." labels.
fn found_at(text: &str, pos: usize) -> (String, usize) {
    let rest = &text[pos.min(text.len())..];
    let Some(c) = rest.chars().next() else {
        return ("end of input".into(), 0);
    };
    let len = if c.is_alphanumeric() || c == '_' || c == '$' {
        rest.find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '$'))
            .unwrap_or(rest.len())
    } else {
        c.len_utf8()
    };
    (format!("`{}`", &rest[..len]), len)
}

fn join_expected(mut items: Vec<String>) -> String {
    items.sort();
    items.dedup();
    match items.len() {
        0 => "something else".into(),
        1 => items.remove(0),
        n => {
            let last = items.pop().unwrap_or_default();
            let _ = n;
            format!("{} or {}", items.join(", "), last)
        }
    }
}

fn syntax_error(text: &str, e: pest::error::Error<Rule>) -> Diagnostic {
    let mut pos = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    // The expected tokens are those of the furthest position reached, which may lie
    // past pest's own error location (a failing lookahead reports early).
    if let Some(a) = e.parse_attempts() {
        if a.max_position > pos && a.max_position <= text.len() && !a.expected_tokens().is_empty() {
            pos = a.max_position;
        }
    }
    let mut expected: Vec<String> = Vec::new();
    if let Some(attempts) = e.parse_attempts() {
        for t in attempts.expected_tokens() {
            let s = t.to_string();
            if !s.trim().is_empty() {
                expected.push(format!("`{}`", s.trim()));
            }
        }
        for stack in attempts.call_stacks() {
            let named = stack.deepest.get_rule().and_then(|r| rule_name(*r));
            if let Some(n) = named.or_else(|| stack.parent.and_then(rule_name)) {
                expected.push(n.to_string());
            }
        }
    }
    if expected.is_empty() {
        if let pest::error::ErrorVariant::ParsingError { positives, .. } = &e.variant {
            expected.extend(
                positives
                    .iter()
                    .filter_map(|r| rule_name(*r))
                    .map(String::from),
            );
        }
    }
    // Comments, character ranges and the single characters of the member-skipping
    // rules are noise next to real names.
    let useful = |s: &String| -> bool {
        let inner = s.trim_matches('`');
        if !s.starts_with('`') {
            return true;
        }
        if matches!(inner, "/*" | "//" | "BUILTIN_RULE" | "\"\"\"")
            || (inner.len() > 2 && inner.contains(".."))
        {
            return false;
        }
        inner.chars().count() > 1 || matches!(inner, ";" | ":" | "(" | ")" | "," | "{" | "}")
    };
    let mut named: Vec<String> = expected.iter().filter(|s| useful(s)).cloned().collect();
    // Every designator keyword listed one by one says less than "a pointcut".
    const DESIGNATORS: &[&str] = &[
        "call",
        "execution",
        "get",
        "set",
        "initialization",
        "preinitialization",
        "staticinitialization",
        "handler",
        "adviceexecution",
        "within",
        "withincode",
        "this",
        "target",
        "args",
        "cflow",
        "cflowbelow",
        "if",
        "@annotation",
        "@within",
        "@withincode",
        "@this",
        "@target",
        "@args",
    ];
    let is_designator = |s: &String| DESIGNATORS.contains(&s.trim_matches('`'));
    if named.iter().filter(|s| is_designator(s)).count() >= 3 {
        named.retain(|s| !is_designator(s) && s != "`(`" && s != "a pointcut designator");
        named.push("a pointcut expression".into());
    }
    if named.iter().any(|s| s == "`(` and the formal parameters") {
        named.retain(|s| s != "`(`");
    }
    let (found, len) = found_at(text, pos);
    if named.is_empty() {
        return Diagnostic::error(
            "pointcut::syntax",
            format!("unexpected {found}"),
            Span::new(pos, pos + len),
        )
        .with_label("not expected here");
    }
    let what = join_expected(named);
    Diagnostic::error(
        "pointcut::syntax",
        format!("expected {what}, found {found}"),
        Span::new(pos, pos + len),
    )
    .with_label(format!("expected {what}"))
}

fn custom(span: Span, message: impl Into<String>, label: impl Into<String>) -> Diagnostic {
    Diagnostic::error("pointcut::syntax", message, span).with_label(label)
}

// ------------------------------------------------------------------ unit

fn build_unit(text: &str, file: P<'_>) -> Result<CompilationUnit, Diagnostic> {
    let mut unit = CompilationUnit {
        package: None,
        imports: Vec::new(),
        aspects: Vec::new(),
        java_types: Vec::new(),
    };
    for p in file.into_inner() {
        match p.as_rule() {
            Rule::package_decl => {
                let q = p
                    .into_inner()
                    .find(|x| x.as_rule() == Rule::qualified_name)
                    .expect("package name");
                unit.package = Some(ident(&q));
            }
            Rule::import_decl => {
                let sp = span(&p);
                let mut imp = Import {
                    name: String::new(),
                    on_demand: false,
                    is_static: false,
                    span: sp,
                };
                for x in p.into_inner() {
                    match x.as_rule() {
                        Rule::static_kw => imp.is_static = true,
                        Rule::qualified_name => imp.name = x.as_str().to_string(),
                        Rule::import_star => imp.on_demand = true,
                        _ => {}
                    }
                }
                unit.imports.push(imp);
            }
            Rule::aspect_decl => unit.aspects.push(aspect(text, p)?),
            Rule::java_member => unit.java_types.push(java_text(&p)),
            _ => {}
        }
    }
    Ok(unit)
}

fn modifiers(p: P<'_>, mods: &mut Vec<Ident>, annotations: &mut Vec<JavaText>) {
    for x in p.into_inner() {
        match x.as_rule() {
            Rule::annotation => annotations.push(java_text(&x)),
            Rule::modifier_kw => mods.push(ident(&x)),
            _ => {}
        }
    }
}

fn aspect(text: &str, p: P<'_>) -> Result<Aspect, Diagnostic> {
    let sp = span(&p);
    let mut a = Aspect {
        name: Ident {
            name: String::new(),
            span: sp,
        },
        modifiers: Vec::new(),
        annotations: Vec::new(),
        extends: None,
        implements: Vec::new(),
        per_clause: None,
        members: Vec::new(),
        annotation_style: false,
        span: sp,
    };
    for x in p.into_inner() {
        match x.as_rule() {
            Rule::modifiers => modifiers(x, &mut a.modifiers, &mut a.annotations),
            Rule::ident => a.name = ident(&x),
            Rule::extends_clause => {
                a.extends = x.into_inner().next().map(|t| java_type(&t));
            }
            Rule::implements_clause => {
                a.implements = x.into_inner().map(|t| java_type(&t)).collect();
            }
            Rule::per_clause => {
                let psp = span(&x);
                let kind = match x.into_inner().next().map(|k| k.as_str().to_string()) {
                    Some(k) => match k.as_str() {
                        "perthis" => PerKind::PerThis,
                        "pertarget" => PerKind::PerTarget,
                        "percflow" => PerKind::PerCflow,
                        "percflowbelow" => PerKind::PerCflowBelow,
                        "pertypewithin" => PerKind::PerTypeWithin,
                        _ => PerKind::IsSingleton,
                    },
                    None => PerKind::IsSingleton,
                };
                a.per_clause = Some(PerClause { kind, span: psp });
            }
            Rule::pointcut_decl => a.members.push(Member::Pointcut(pointcut_decl(text, x)?)),
            Rule::advice_decl => a.members.push(Member::Advice(advice(text, x)?)),
            Rule::declare_precedence => {
                let dsp = span(&x);
                let patterns = x
                    .into_inner()
                    .filter(|t| t.as_rule() == Rule::type_pattern)
                    .map(type_pattern)
                    .collect::<Result<Vec<_>, _>>()?;
                a.members.push(Member::DeclarePrecedence(DeclarePrecedence {
                    patterns,
                    span: dsp,
                }));
            }
            Rule::declare_message => {
                let dsp = span(&x);
                let mut is_error = false;
                let mut pc = None;
                let mut message = String::new();
                for y in x.into_inner() {
                    match y.as_rule() {
                        Rule::message_kind => is_error = y.as_str() == "error",
                        Rule::pointcut_expr => pc = Some(pointcut(y)?),
                        Rule::message => {
                            for s in y.into_inner() {
                                let raw = s.as_str();
                                message.push_str(&unescape_java(&raw[1..raw.len() - 1]).0);
                            }
                        }
                        _ => {}
                    }
                }
                a.members.push(Member::DeclareMessage(DeclareMessage {
                    is_error,
                    pointcut: pc.expect("declare pointcut"),
                    message,
                    span: dsp,
                }));
            }
            Rule::declare_unsupported | Rule::declare_unknown => {
                let dsp = span(&x);
                let what = x
                    .into_inner()
                    .find(|y| matches!(y.as_rule(), Rule::declare_what | Rule::declare_other))
                    .map(|y| y.as_str().to_string())
                    .unwrap_or_default();
                let feature = match what.as_str() {
                    "parents" => Feature::DeclareParents,
                    "soft" => Feature::DeclareSoft,
                    w if w.starts_with('@') => Feature::DeclareAnnotation(w.to_string()),
                    w => Feature::DeclareOther(w.to_string()),
                };
                a.members
                    .push(Member::Unsupported(Unsupported { feature, span: dsp }));
            }
            Rule::intertype_decl => a.members.push(Member::Unsupported(Unsupported {
                feature: Feature::InterTypeDeclaration,
                span: span(&x),
            })),
            Rule::nested_aspect => a.members.push(Member::Unsupported(Unsupported {
                feature: Feature::NestedAspect,
                span: span(&x),
            })),
            Rule::java_member => a.members.push(Member::Java(java_text(&x))),
            _ => {}
        }
    }
    Ok(a)
}

fn java_type(p: &P<'_>) -> JavaType {
    let mut t = JavaType {
        name: String::new(),
        type_args: None,
        dims: 0,
        varargs: false,
        span: span(p),
    };
    for x in p.clone().into_inner() {
        match x.as_rule() {
            Rule::primitive_type => t.name = x.as_str().to_string(),
            Rule::class_type => {
                for y in x.into_inner() {
                    match y.as_rule() {
                        Rule::qualified_name => t.name = y.as_str().to_string(),
                        Rule::type_args => t.type_args = Some(y.as_str().to_string()),
                        _ => {}
                    }
                }
            }
            Rule::dims => t.dims = x.as_str().matches('[').count() as u8,
            Rule::varargs => t.varargs = true,
            _ => {}
        }
    }
    t
}

fn formal(p: P<'_>) -> Formal {
    let sp = span(&p);
    let mut ty = None;
    let mut name = None;
    for x in p.into_inner() {
        match x.as_rule() {
            Rule::java_type => ty = Some(java_type(&x)),
            Rule::ident => name = Some(ident(&x)),
            _ => {}
        }
    }
    Formal {
        ty: ty.expect("formal type"),
        name: name.expect("formal name"),
        span: sp,
    }
}

fn formals(p: P<'_>) -> Vec<Formal> {
    p.into_inner()
        .filter(|x| x.as_rule() == Rule::formal)
        .map(formal)
        .collect()
}

fn pointcut_decl(text: &str, p: P<'_>) -> Result<PointcutDecl, Diagnostic> {
    let sp = span(&p);
    let mut d = PointcutDecl {
        name: Ident {
            name: String::new(),
            span: sp,
        },
        modifiers: Vec::new(),
        params: Vec::new(),
        expr: None,
        has_colon: false,
        span: sp,
    };
    let mut after_formals = sp.end;
    let mut ignored = Vec::new();
    for x in p.into_inner() {
        match x.as_rule() {
            Rule::modifiers => modifiers(x, &mut d.modifiers, &mut ignored),
            Rule::ident => d.name = ident(&x),
            Rule::formals => {
                after_formals = span(&x).end;
                d.params = formals(x);
            }
            Rule::pointcut_expr => d.expr = Some(pointcut(x)?),
            _ => {}
        }
    }
    d.has_colon = text[after_formals..sp.end].trim_start().starts_with(':');
    if d.has_colon && d.expr.is_none() {
        d.expr = Some(Pointcut {
            kind: PointcutKind::Empty,
            span: Span::new(sp.end - 1, sp.end - 1),
        });
    }
    Ok(d)
}

fn advice(text: &str, p: P<'_>) -> Result<Advice, Diagnostic> {
    let sp = span(&p);
    let mut kind = AdviceKind::Before;
    let mut keyword_span = sp;
    let mut annotations = Vec::new();
    let mut params = Vec::new();
    let mut throws = Vec::new();
    let mut pc = None;
    let mut body = None;
    for x in p.into_inner() {
        match x.as_rule() {
            Rule::annotation => annotations.push(java_text(&x)),
            Rule::before_spec
            | Rule::after_spec
            | Rule::after_returning_spec
            | Rule::after_throwing_spec
            | Rule::around_spec => {
                let rule = x.as_rule();
                let mut extra: Option<Formal> = None;
                let mut ret = None;
                for y in x.into_inner() {
                    match y.as_rule() {
                        Rule::before_kw | Rule::after_kw | Rule::around_kw => {
                            keyword_span = span(&y)
                        }
                        Rule::formals => params = formals(y),
                        Rule::extra_formal => {
                            extra = y.into_inner().next().map(formal);
                        }
                        Rule::java_type => ret = Some(java_type(&y)),
                        _ => {}
                    }
                }
                kind = match rule {
                    Rule::before_spec => AdviceKind::Before,
                    Rule::after_spec => AdviceKind::After,
                    Rule::after_returning_spec => AdviceKind::AfterReturning(extra),
                    Rule::after_throwing_spec => AdviceKind::AfterThrowing(extra),
                    _ => AdviceKind::Around(ret.expect("around return type")),
                };
            }
            Rule::throws_clause => throws = x.into_inner().map(|t| java_type(&t)).collect(),
            Rule::pointcut_expr => pc = Some(pointcut(x)?),
            Rule::advice_body => {
                let bsp = span(&x);
                let btext = bsp.text(text);
                let (proceed_calls, reflective) = lexical::scan_body(btext, bsp.start);
                body = Some(AdviceBody {
                    text: btext.to_string(),
                    span: bsp,
                    proceed_calls,
                    reflective,
                });
            }
            _ => {}
        }
    }
    Ok(Advice {
        kind,
        keyword_span,
        annotations,
        params,
        throws,
        pointcut: pc.expect("advice pointcut"),
        body: body.expect("advice body"),
        span: sp,
    })
}

/// Unescapes the body of a Java string literal. Returns the text and, for each
/// output byte, the offset in `raw` it came from (plus one final entry for the end).
pub fn unescape_java(raw: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(raw.len());
    let mut map = Vec::with_capacity(raw.len() + 1);
    let b = raw.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let ch: char;
        if b[i] == b'\\' && i + 1 < b.len() {
            let e = b[i + 1];
            i += 2;
            ch = match e {
                b'n' => '\n',
                b't' => '\t',
                b'r' => '\r',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b's' => ' ',
                b'0'..=b'7' => {
                    let mut v = (e - b'0') as u32;
                    let mut n = 1;
                    while n < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                        v = v * 8 + (b[i] - b'0') as u32;
                        i += 1;
                        n += 1;
                    }
                    char::from_u32(v).unwrap_or('?')
                }
                b'u' => {
                    while i < b.len() && b[i] == b'u' {
                        i += 1;
                    }
                    let hex = raw.get(i..i + 4).unwrap_or("");
                    match u32::from_str_radix(hex, 16).ok().and_then(char::from_u32) {
                        Some(c) => {
                            i += 4;
                            c
                        }
                        None => '?',
                    }
                }
                _ => {
                    // Any other escaped character stands for itself (whole, if it
                    // is not ASCII).
                    let c = raw[start + 1..].chars().next().unwrap_or('?');
                    i = start + 1 + c.len_utf8();
                    c
                }
            };
        } else {
            ch = raw[i..].chars().next().unwrap_or('?');
            i += ch.len_utf8();
        }
        let before = out.len();
        out.push(ch);
        for _ in before..out.len() {
            map.push(start);
        }
    }
    map.push(b.len());
    (out, map)
}

// ------------------------------------------------------------------ pointcuts

/// Converts a `pointcut_expr` pair.
fn pointcut(p: P<'_>) -> Result<Pointcut, Diagnostic> {
    let sp = span(&p);
    match p.as_rule() {
        Rule::pointcut_expr => fold_binary(p, Rule::pc_and, |a, b, s| Pointcut {
            kind: PointcutKind::Or(Box::new(a), Box::new(b)),
            span: s,
        }),
        Rule::pc_and => fold_binary_any(p, |a, b, s| Pointcut {
            kind: PointcutKind::And(Box::new(a), Box::new(b)),
            span: s,
        }),
        Rule::pc_not => {
            let inner = pointcut(p.into_inner().next().expect("operand"))?;
            Ok(Pointcut {
                kind: PointcutKind::Not(Box::new(inner)),
                span: sp,
            })
        }
        Rule::pc_paren => {
            let mut inner = pointcut(p.into_inner().next().expect("operand"))?;
            inner.span = sp;
            Ok(inner)
        }
        _ => designator(p),
    }
}

fn fold_binary(
    p: P<'_>,
    operand: Rule,
    make: impl Fn(Pointcut, Pointcut, Span) -> Pointcut,
) -> Result<Pointcut, Diagnostic> {
    let mut acc: Option<Pointcut> = None;
    let whole = span(&p);
    for (n, x) in p
        .into_inner()
        .filter(|x| x.as_rule() == operand)
        .enumerate()
    {
        limit_operands(n, whole)?;
        let rhs = pointcut(x)?;
        acc = Some(match acc {
            None => rhs,
            Some(lhs) => {
                let s = Span::new(lhs.span.start, rhs.span.end);
                make(lhs, rhs, s)
            }
        });
    }
    Ok(acc.expect("at least one operand"))
}

fn fold_binary_any(
    p: P<'_>,
    make: impl Fn(Pointcut, Pointcut, Span) -> Pointcut,
) -> Result<Pointcut, Diagnostic> {
    let mut acc: Option<Pointcut> = None;
    let whole = span(&p);
    for (n, x) in p
        .into_inner()
        .filter(|x| x.as_rule() != Rule::and_op)
        .enumerate()
    {
        limit_operands(n, whole)?;
        let rhs = pointcut(x)?;
        acc = Some(match acc {
            None => rhs,
            Some(lhs) => {
                let s = Span::new(lhs.span.start, rhs.span.end);
                make(lhs, rhs, s)
            }
        });
    }
    Ok(acc.expect("at least one operand"))
}

/// Operands of one `&&`/`||` chain: the passes after parsing recurse over the
/// left-leaning tree, so its depth is bounded.
const MAX_OPERANDS: usize = 256;

fn limit_operands(n: usize, whole: Span) -> Result<(), Diagnostic> {
    if n >= MAX_OPERANDS {
        return Err(custom(
            whole,
            format!("more than {MAX_OPERANDS} operands in one `&&`/`||` chain"),
            "split this expression into named pointcuts",
        ));
    }
    Ok(())
}

fn first_inner(p: P<'_>) -> P<'_> {
    p.into_inner().next().expect("designator argument")
}

fn designator(p: P<'_>) -> Result<Pointcut, Diagnostic> {
    let sp = span(&p);
    let rule = p.as_rule();
    let kind = match rule {
        Rule::call => PointcutKind::Call(member_pattern(first_inner(p))?),
        Rule::execution => PointcutKind::Execution(member_pattern(first_inner(p))?),
        Rule::withincode => PointcutKind::WithinCode(member_pattern(first_inner(p))?),
        Rule::initialization => PointcutKind::Initialization(member_pattern(first_inner(p))?),
        Rule::preinitialization => PointcutKind::PreInitialization(member_pattern(first_inner(p))?),
        Rule::get => PointcutKind::Get(field_pattern(first_inner(p))?),
        Rule::set => PointcutKind::Set(field_pattern(first_inner(p))?),
        Rule::staticinitialization => {
            PointcutKind::StaticInitialization(type_pattern(first_inner(p))?)
        }
        Rule::handler => PointcutKind::Handler(type_pattern(first_inner(p))?),
        Rule::adviceexecution => PointcutKind::AdviceExecution,
        Rule::within => PointcutKind::Within(type_pattern(first_inner(p))?),
        Rule::this_pc => PointcutKind::This(type_pattern(first_inner(p))?),
        Rule::target => PointcutKind::Target(type_pattern(first_inner(p))?),
        Rule::args => PointcutKind::Args(arg_patterns(first_inner(p))?),
        Rule::cflow => PointcutKind::Cflow(Box::new(pointcut(first_inner(p))?)),
        Rule::cflowbelow => PointcutKind::CflowBelow(Box::new(pointcut(first_inner(p))?)),
        Rule::if_pc => {
            let t = first_inner(p);
            let s = span(&t);
            let raw = t.as_str();
            PointcutKind::If(JavaText {
                text: raw[1..raw.len() - 1].to_string(),
                span: Span::new(s.start + 1, s.end - 1),
            })
        }
        Rule::at_annotation => PointcutKind::AtAnnotation(type_pattern(first_inner(p))?),
        Rule::at_within => PointcutKind::AtWithin(type_pattern(first_inner(p))?),
        Rule::at_withincode => PointcutKind::AtWithinCode(type_pattern(first_inner(p))?),
        Rule::at_this => PointcutKind::AtThis(type_pattern(first_inner(p))?),
        Rule::at_target => PointcutKind::AtTarget(type_pattern(first_inner(p))?),
        Rule::at_args => PointcutKind::AtArgs(arg_patterns(first_inner(p))?),
        Rule::at_unknown => {
            let id = first_inner(p);
            let s = span(&id);
            PointcutKind::UnknownDesignator(Ident {
                name: format!("@{}", id.as_str()),
                span: Span::new(s.start.saturating_sub(1), s.end),
            })
        }
        Rule::unknown_designator => {
            let id = first_inner(p);
            PointcutKind::UnknownDesignator(ident(&id))
        }
        Rule::pc_ref => {
            let mut it = p.into_inner();
            let name = ident(&it.next().expect("pointcut name"));
            let args = match it.next() {
                Some(a) => arg_patterns(a)?,
                None => Vec::new(),
            };
            PointcutKind::Reference(PointcutRef { name, args })
        }
        other => {
            return Err(custom(
                sp,
                format!("internal: unexpected rule {other:?} in a pointcut"),
                "here",
            ))
        }
    };
    Ok(Pointcut { kind, span: sp })
}

fn arg_patterns(p: P<'_>) -> Result<Vec<ArgPattern>, Diagnostic> {
    p.into_inner()
        .map(|x| match x.as_rule() {
            Rule::ellipsis => Ok(ArgPattern::Ellipsis(span(&x))),
            _ => type_pattern(x).map(ArgPattern::Type),
        })
        .collect()
}

// ------------------------------------------------------------------ patterns

fn type_pattern(p: P<'_>) -> Result<TypePattern, Diagnostic> {
    let sp = span(&p);
    match p.as_rule() {
        Rule::type_pattern | Rule::tp_and => {
            let or = p.as_rule() == Rule::type_pattern;
            let mut acc: Option<TypePattern> = None;
            for (n, x) in p.into_inner().enumerate() {
                limit_operands(n, sp)?;
                let rhs = type_pattern(x)?;
                acc = Some(match acc {
                    None => rhs,
                    Some(lhs) => {
                        let s = Span::new(lhs.span.start, rhs.span.end);
                        let (l, r) = (Box::new(lhs), Box::new(rhs));
                        TypePattern {
                            kind: if or {
                                TypePatternKind::Or(l, r)
                            } else {
                                TypePatternKind::And(l, r)
                            },
                            span: s,
                        }
                    }
                });
            }
            Ok(acc.expect("operand"))
        }
        Rule::tp_not => {
            let inner = type_pattern(first_inner(p))?;
            Ok(TypePattern {
                kind: TypePatternKind::Not(Box::new(inner)),
                span: sp,
            })
        }
        Rule::return_type => type_pattern(first_inner(p)),
        Rule::tp_paren => {
            let mut it = p.into_inner();
            let mut inner = type_pattern(it.next().expect("operand"))?;
            if let Some(suffix) = it.next() {
                if !suffix.as_str().trim().is_empty() {
                    return Err(custom(
                        span(&suffix),
                        "array dimensions after a parenthesized type pattern are not supported",
                        "write the dimensions on each alternative",
                    ));
                }
            }
            inner.span = sp;
            Ok(inner)
        }
        Rule::annotated_type => {
            let mut anns = Vec::new();
            let mut inner = None;
            for x in p.into_inner() {
                match x.as_rule() {
                    Rule::annotation_pattern => anns.push(annotation_pattern(x)?),
                    _ => inner = Some(type_pattern(x)?),
                }
            }
            Ok(TypePattern {
                kind: TypePatternKind::Annotated(anns, Box::new(inner.expect("annotated type"))),
                span: sp,
            })
        }
        Rule::simple_type_pattern => {
            let mut n = NamedTypePattern {
                name: NamePattern::new(""),
                subtypes: false,
                type_args: Vec::new(),
                dims: 0,
                varargs: false,
                candidates: Vec::new(),
                imported: Vec::new(),
            };
            for x in p.into_inner() {
                match x.as_rule() {
                    Rule::name_pattern => n.name = NamePattern::new(x.as_str()),
                    Rule::plus => n.subtypes = true,
                    Rule::tp_args => {
                        n.type_args = x
                            .into_inner()
                            .map(type_arg_pattern)
                            .collect::<Result<Vec<_>, _>>()?
                    }
                    Rule::tp_suffix => {
                        for y in x.into_inner() {
                            match y.as_rule() {
                                Rule::dims_pattern => {
                                    n.dims = y.as_str().matches('[').count() as u8
                                }
                                Rule::varargs => n.varargs = true,
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            check_name_pattern(&n.name, sp)?;
            Ok(TypePattern {
                kind: TypePatternKind::Named(n),
                span: sp,
            })
        }
        other => Err(custom(
            sp,
            format!("internal: unexpected rule {other:?} in a type pattern"),
            "here",
        )),
    }
}

/// One type argument: a wildcard (`?`, `? extends T`, `? super T`) or a type pattern.
fn type_arg_pattern(p: P<'_>) -> Result<TypeArgPattern, Diagnostic> {
    if p.as_rule() != Rule::tp_wildcard {
        return Ok(TypeArgPattern::Type(type_pattern(p)?));
    }
    let mut it = p.into_inner();
    let bound = match (it.next(), it.next()) {
        (Some(kind), Some(t)) => Some((kind.as_str() == "extends", Box::new(type_pattern(t)?))),
        _ => None,
    };
    Ok(TypeArgPattern::Wildcard { bound })
}

fn check_name_pattern(n: &NamePattern, sp: Span) -> Result<(), Diagnostic> {
    if n.text.ends_with("..") || n.text.starts_with("..") {
        return Err(custom(
            sp,
            format!("`{}` is not a valid name pattern", n.text),
            "`..` must stand between two name parts",
        )
        .with_help("write `com.acme..*` for any type in com.acme or its subpackages"));
    }
    Ok(())
}

fn named_pattern(text: &str, sp: Span, subtypes: bool) -> Result<TypePattern, Diagnostic> {
    let name = NamePattern::new(text);
    check_name_pattern(&name, sp)?;
    Ok(TypePattern {
        kind: TypePatternKind::Named(NamedTypePattern {
            name,
            subtypes,
            type_args: Vec::new(),
            dims: 0,
            varargs: false,
            candidates: Vec::new(),
            imported: Vec::new(),
        }),
        span: sp,
    })
}

fn annotation_pattern(p: P<'_>) -> Result<AnnotationPattern, Diagnostic> {
    let sp = span(&p);
    let mut negated = false;
    let mut ty = None;
    for x in p.into_inner() {
        match x.as_rule() {
            Rule::annotation_not => negated = true,
            Rule::name_pattern => ty = Some(named_pattern(x.as_str(), span(&x), false)?),
            _ => ty = Some(type_pattern(x)?),
        }
    }
    Ok(AnnotationPattern {
        negated,
        ty: ty.expect("annotation type"),
        span: sp,
    })
}

fn sig_prefix(p: P<'_>) -> Result<(Vec<AnnotationPattern>, ModifierPattern), Diagnostic> {
    let mut anns = Vec::new();
    let mut mods = ModifierPattern::default();
    for x in p.into_inner() {
        match x.as_rule() {
            Rule::annotation_pattern => anns.push(annotation_pattern(x)?),
            Rule::modifier_pattern => {
                let msp = span(&x);
                let mut neg = false;
                let mut flag = 0;
                for y in x.into_inner() {
                    match y.as_rule() {
                        Rule::mod_not => neg = true,
                        _ => flag = modifier_flag(y.as_str()).unwrap_or(0),
                    }
                }
                let (same, other) = if neg {
                    (&mut mods.forbidden, mods.required)
                } else {
                    (&mut mods.required, mods.forbidden)
                };
                if other & flag != 0 {
                    return Err(custom(
                        msp,
                        "a modifier cannot be both required and negated",
                        "contradicts an earlier modifier",
                    ));
                }
                *same |= flag;
            }
            _ => {}
        }
    }
    Ok((anns, mods))
}

/// Splits `java.util.List.add` into declaring type `java.util.List` and name `add`.
fn split_member_ref(p: P<'_>) -> Result<(Option<TypePattern>, NamePattern, Span), Diagnostic> {
    let sp = span(&p);
    let parts: Vec<P<'_>> = p.into_inner().collect();
    match parts.as_slice() {
        [decl, name] if decl.as_rule() == Rule::decl_type_paren => {
            let mut it = decl.clone().into_inner();
            let mut tp = type_pattern(it.next().expect("type"))?;
            if it.next().is_some() {
                tp = wrap_subtypes(tp)?;
            }
            Ok((Some(tp), NamePattern::new(name.as_str()), span(name)))
        }
        [decl, name] if decl.as_rule() == Rule::decl_type_negated => Ok((
            Some(negated_decl(decl)?),
            NamePattern::new(name.as_str()),
            span(name),
        )),
        [np, _plus, name] => Ok((
            Some(named_pattern(np.as_str(), span(np), true)?),
            NamePattern::new(name.as_str()),
            span(name),
        )),
        [np] => {
            let text = np.as_str();
            let start = span(np).start;
            match text.rfind('.') {
                None => Ok((None, NamePattern::new(text), span(np))),
                // `com.acme..*(..)`: AspectJ reads the declaring type as
                // `com.acme..*` (any type in com.acme or below).
                Some(i) if i > 1 && text.as_bytes()[i - 1] == b'.' => Ok((
                    Some(named_pattern(
                        &format!("{}*", &text[..i + 1]),
                        Span::new(start, start + i + 1),
                        false,
                    )?),
                    NamePattern::new(&text[i + 1..]),
                    Span::new(start + i + 1, start + text.len()),
                )),
                Some(i) => Ok((
                    Some(named_pattern(
                        &text[..i],
                        Span::new(start, start + i),
                        false,
                    )?),
                    NamePattern::new(&text[i + 1..]),
                    Span::new(start + i + 1, start + text.len()),
                )),
            }
        }
        _ => Err(custom(sp, "internal: malformed member reference", "here")),
    }
}

/// `!Base+` before `.m` or `.new`.
fn negated_decl(decl: &P<'_>) -> Result<TypePattern, Diagnostic> {
    let sp = span(decl);
    let np = decl.clone().into_inner().next().expect("name");
    let inner = named_pattern(np.as_str(), Span::new(sp.start + 1, sp.end), true)?;
    Ok(TypePattern {
        kind: TypePatternKind::Not(Box::new(inner)),
        span: sp,
    })
}

fn wrap_subtypes(tp: TypePattern) -> Result<TypePattern, Diagnostic> {
    match tp.kind {
        TypePatternKind::Named(mut n) => {
            n.subtypes = true;
            Ok(TypePattern {
                kind: TypePatternKind::Named(n),
                span: tp.span,
            })
        }
        _ => Err(custom(
            tp.span,
            "`+` after a compound type pattern is not supported",
            "write `+` on each alternative",
        )),
    }
}

fn member_pattern(p: P<'_>) -> Result<SignaturePattern, Diagnostic> {
    let sp = span(&p);
    let is_ctor = p.as_rule() == Rule::constructor_pattern;
    let mut sig = SignaturePattern {
        kind: if is_ctor {
            SignatureKind::Constructor
        } else {
            SignatureKind::Method
        },
        annotations: Vec::new(),
        modifiers: ModifierPattern::default(),
        return_type: None,
        declaring_type: None,
        name: NamePattern::new("new"),
        name_span: sp,
        params: Vec::new(),
        throws: Vec::new(),
        span: sp,
    };
    for x in p.into_inner() {
        match x.as_rule() {
            Rule::sig_prefix => (sig.annotations, sig.modifiers) = sig_prefix(x)?,
            Rule::return_type => sig.return_type = Some(type_pattern(x)?),
            Rule::member_ref => {
                let (decl, name, nsp) = split_member_ref(x)?;
                sig.declaring_type = decl;
                sig.name = name;
                sig.name_span = nsp;
            }
            Rule::ctor_ref => {
                let csp = span(&x);
                sig.name_span = Span::new(csp.end.saturating_sub(3), csp.end);
                if let Some(decl) = x.into_inner().next() {
                    sig.declaring_type = Some(match decl.as_rule() {
                        Rule::decl_type_paren => {
                            let mut it = decl.into_inner();
                            let tp = type_pattern(it.next().expect("type"))?;
                            if it.next().is_some() {
                                wrap_subtypes(tp)?
                            } else {
                                tp
                            }
                        }
                        Rule::decl_type_negated => negated_decl(&decl)?,
                        _ => {
                            // `Foo.new`, `Foo+.new`, `int[].new` (an array
                            // constructor: matches nothing, as in ajc without
                            // -Xjoinpoints:arrayconstruction).
                            let dsp = span(&decl);
                            let mut it = decl.into_inner();
                            let np = it.next().expect("name");
                            let mut tp = named_pattern(np.as_str(), dsp, false)?;
                            for y in it {
                                if let TypePatternKind::Named(n) = &mut tp.kind {
                                    match y.as_rule() {
                                        Rule::plus => n.subtypes = true,
                                        _ => n.dims = y.as_str().matches('[').count() as u8,
                                    }
                                }
                            }
                            tp
                        }
                    });
                }
            }
            Rule::param_patterns => sig.params = arg_patterns(x)?,
            Rule::throws_pattern => {
                for item in x.into_inner() {
                    let mut negated = false;
                    let mut ty = None;
                    for y in item.into_inner() {
                        match y.as_rule() {
                            Rule::throws_not => negated = true,
                            _ => ty = Some(type_pattern(y)?),
                        }
                    }
                    sig.throws.push(ThrowsPattern {
                        negated,
                        ty: ty.expect("throws type"),
                    });
                }
            }
            _ => {}
        }
    }
    Ok(sig)
}

fn field_pattern(p: P<'_>) -> Result<FieldPattern, Diagnostic> {
    let sp = span(&p);
    let mut annotations = Vec::new();
    let mut modifiers = ModifierPattern::default();
    let mut field_type = None;
    let mut decl = None;
    let mut name = NamePattern::new("*");
    for x in p.into_inner() {
        match x.as_rule() {
            Rule::sig_prefix => (annotations, modifiers) = sig_prefix(x)?,
            Rule::member_ref => {
                let (d, n, _) = split_member_ref(x)?;
                decl = d;
                name = n;
            }
            _ => field_type = Some(type_pattern(x)?),
        }
    }
    Ok(FieldPattern {
        annotations,
        modifiers,
        field_type: field_type.expect("field type"),
        declaring_type: decl,
        name,
        span: sp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_maps_offsets() {
        let (s, map) = unescape_java(r"a\tb\u0041");
        assert_eq!(s, "a\tbA");
        assert_eq!(map, vec![0, 1, 3, 4, 10]);
    }
}
