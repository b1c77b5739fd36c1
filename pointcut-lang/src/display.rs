//! A canonical, explicit text form of the AST: every operator parenthesised, every
//! signature part named. Used by snapshot tests and debugging output
//! (`major aspects --dump`), so that a diff shows how an expression was understood.

use std::fmt::{self, Display, Formatter, Write as _};

use crate::ast::*;
use crate::patterns::*;

impl Display for TypePattern {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            TypePatternKind::Named(n) => {
                f.write_str(&n.name.text)?;
                if n.subtypes {
                    f.write_str("+")?;
                }
                if !n.type_args.is_empty() {
                    f.write_str("<")?;
                    list(f, &n.type_args, ", ")?;
                    f.write_str(">")?;
                }
                for _ in 0..n.dims {
                    f.write_str("[]")?;
                }
                if n.varargs {
                    f.write_str("...")?;
                }
                Ok(())
            }
            TypePatternKind::Not(t) => write!(f, "!{t}"),
            TypePatternKind::And(a, b) => write!(f, "({a} && {b})"),
            TypePatternKind::Or(a, b) => write!(f, "({a} || {b})"),
            TypePatternKind::Annotated(anns, t) => {
                f.write_str("(")?;
                for a in anns {
                    write!(f, "{a} ")?;
                }
                write!(f, "{t})")
            }
        }
    }
}

impl Display for AnnotationPattern {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.negated {
            f.write_str("!")?;
        }
        write!(f, "@{}", self.ty)
    }
}

impl Display for ArgPattern {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ArgPattern::Ellipsis(_) => f.write_str(".."),
            ArgPattern::Type(t) => t.fmt(f),
        }
    }
}

impl Display for TypeArgPattern {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            TypeArgPattern::Type(t) => t.fmt(f),
            TypeArgPattern::Wildcard { bound: None } => f.write_str("?"),
            TypeArgPattern::Wildcard {
                bound: Some((upper, t)),
            } => write!(f, "? {} {t}", if *upper { "extends" } else { "super" }),
        }
    }
}

fn list<T: Display>(f: &mut Formatter<'_>, items: &[T], sep: &str) -> fmt::Result {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        x.fmt(f)?;
    }
    Ok(())
}

fn prefix(
    f: &mut Formatter<'_>,
    anns: &[AnnotationPattern],
    mods: &ModifierPattern,
) -> fmt::Result {
    if !anns.is_empty() {
        f.write_str(" annotations=[")?;
        list(f, anns, " ")?;
        f.write_str("]")?;
    }
    let kws = mods.keywords();
    if !kws.is_empty() {
        write!(f, " modifiers=[{}]", kws.join(" "))?;
    }
    Ok(())
}

impl Display for SignaturePattern {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self.kind {
            SignatureKind::Method => "method",
            SignatureKind::Constructor => "constructor",
        })?;
        f.write_str("{")?;
        prefix(f, &self.annotations, &self.modifiers)?;
        if let Some(r) = &self.return_type {
            write!(f, " returns={r}")?;
        }
        if let Some(d) = &self.declaring_type {
            write!(f, " declaring={d}")?;
        }
        if self.kind == SignatureKind::Method {
            write!(f, " name={}", self.name.text)?;
        }
        f.write_str(" params=(")?;
        list(f, &self.params, ", ")?;
        f.write_str(")")?;
        if !self.throws.is_empty() {
            f.write_str(" throws=[")?;
            for (i, t) in self.throws.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                if t.negated {
                    f.write_str("!")?;
                }
                t.ty.fmt(f)?;
            }
            f.write_str("]")?;
        }
        f.write_str(" }")
    }
}

impl Display for FieldPattern {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("field{")?;
        prefix(f, &self.annotations, &self.modifiers)?;
        write!(f, " type={}", self.field_type)?;
        if let Some(d) = &self.declaring_type {
            write!(f, " declaring={d}")?;
        }
        write!(f, " name={} }}", self.name.text)
    }
}

impl Display for Pointcut {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        use PointcutKind as K;
        match &self.kind {
            K::And(a, b) => write!(f, "(&& {a} {b})"),
            K::Or(a, b) => write!(f, "(|| {a} {b})"),
            K::Not(a) => write!(f, "(! {a})"),
            K::Call(s) => write!(f, "call({s})"),
            K::Execution(s) => write!(f, "execution({s})"),
            K::Get(s) => write!(f, "get({s})"),
            K::Set(s) => write!(f, "set({s})"),
            K::Initialization(s) => write!(f, "initialization({s})"),
            K::PreInitialization(s) => write!(f, "preinitialization({s})"),
            K::StaticInitialization(t) => write!(f, "staticinitialization({t})"),
            K::Handler(t) => write!(f, "handler({t})"),
            K::AdviceExecution => f.write_str("adviceexecution()"),
            K::Within(t) => write!(f, "within({t})"),
            K::WithinCode(s) => write!(f, "withincode({s})"),
            K::This(t) => write!(f, "this({t})"),
            K::Target(t) => write!(f, "target({t})"),
            K::Args(a) => {
                f.write_str("args(")?;
                list(f, a, ", ")?;
                f.write_str(")")
            }
            K::Cflow(p) => write!(f, "cflow({p})"),
            K::CflowBelow(p) => write!(f, "cflowbelow({p})"),
            K::If(e) => write!(f, "if({})", e.text.trim()),
            K::AtAnnotation(t) => write!(f, "@annotation({t})"),
            K::AtWithin(t) => write!(f, "@within({t})"),
            K::AtWithinCode(t) => write!(f, "@withincode({t})"),
            K::AtThis(t) => write!(f, "@this({t})"),
            K::AtTarget(t) => write!(f, "@target({t})"),
            K::AtArgs(a) => {
                f.write_str("@args(")?;
                list(f, a, ", ")?;
                f.write_str(")")
            }
            K::Reference(r) => {
                write!(f, "ref {}(", r.name.name)?;
                list(f, &r.args, ", ")?;
                f.write_str(")")
            }
            K::UnknownDesignator(i) => write!(f, "unknown {}(..)", i.name),
            K::Empty => f.write_str("<empty>"),
        }
    }
}

impl Display for JavaType {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if let Some(a) = &self.type_args {
            f.write_str(a)?;
        }
        for _ in 0..self.dims {
            f.write_str("[]")?;
        }
        if self.varargs {
            f.write_str("...")?;
        }
        Ok(())
    }
}

impl Display for Formal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.ty, self.name.name)
    }
}

/// A Java type as written, with type arguments and dimensions.
pub fn type_text(t: &JavaType) -> String {
    t.to_string()
}

fn formals(fs: &[Formal]) -> String {
    fs.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("").trim()
}

/// A line-oriented dump of a compilation unit: every aspect member with what the
/// parser understood, and with line numbers for text kept verbatim.
pub fn dump_unit(unit: &CompilationUnit, source: &str) -> String {
    let line = |s: Span| crate::diagnostics::line_col(source, s.start).0;
    let lines = |s: Span| {
        let a = line(s);
        let b = crate::diagnostics::line_col(source, s.end.saturating_sub(1)).0;
        if a == b {
            format!("line {a}")
        } else {
            format!("lines {a}-{b}")
        }
    };
    let mut out = String::new();
    if let Some(p) = &unit.package {
        let _ = writeln!(out, "package {}", p.name);
    }
    for i in &unit.imports {
        let _ = writeln!(
            out,
            "import {}{}{}",
            if i.is_static { "static " } else { "" },
            i.name,
            if i.on_demand { ".*" } else { "" }
        );
    }
    for t in &unit.java_types {
        let _ = writeln!(
            out,
            "java type ({}): {}",
            lines(t.span),
            first_line(&t.text)
        );
    }
    for a in &unit.aspects {
        let _ = write!(out, "aspect {}", a.name.name);
        let mods: Vec<&str> = a.modifiers.iter().map(|m| m.name.as_str()).collect();
        if !mods.is_empty() {
            let _ = write!(out, " modifiers=[{}]", mods.join(" "));
        }
        if let Some(e) = &a.extends {
            let _ = write!(out, " extends={e}");
        }
        if !a.implements.is_empty() {
            let names: Vec<String> = a.implements.iter().map(|t| t.to_string()).collect();
            let _ = write!(out, " implements=[{}]", names.join(", "));
        }
        if let Some(p) = &a.per_clause {
            let _ = write!(out, " per={}", p.kind.keyword());
        }
        for an in &a.annotations {
            let _ = write!(out, " {}", an.text);
        }
        let _ = writeln!(out, " ({})", lines(a.span));
        for m in &a.members {
            let _ = match m {
                Member::Pointcut(p) => writeln!(
                    out,
                    "  pointcut {}({}){}{}",
                    p.name.name,
                    formals(&p.params),
                    if p.is_abstract() { " abstract" } else { "" },
                    match &p.expr {
                        Some(e) => format!(": {e}"),
                        None => String::new(),
                    }
                ),
                Member::Advice(ad) => {
                    let extra = match &ad.kind {
                        AdviceKind::AfterReturning(Some(x))
                        | AdviceKind::AfterThrowing(Some(x)) => {
                            format!(" ({x})")
                        }
                        AdviceKind::Around(t) => format!(" returns {t}"),
                        _ => String::new(),
                    };
                    let mut notes = Vec::new();
                    if !ad.body.proceed_calls.is_empty() {
                        let n: Vec<String> = ad
                            .body
                            .proceed_calls
                            .iter()
                            .map(|c| c.args.to_string())
                            .collect();
                        notes.push(format!("proceed/{}", n.join(",")));
                    }
                    let r = ad.body.reflective;
                    if r.this_join_point {
                        notes.push("thisJoinPoint".into());
                    }
                    if r.this_join_point_static_part {
                        notes.push("thisJoinPointStaticPart".into());
                    }
                    if r.this_enclosing_join_point_static_part {
                        notes.push("thisEnclosingJoinPointStaticPart".into());
                    }
                    if r.this_calling_context {
                        notes.push("thisCallingContext".into());
                    }
                    if !ad.throws.is_empty() {
                        let t: Vec<String> = ad.throws.iter().map(|t| t.to_string()).collect();
                        notes.push(format!("throws {}", t.join(", ")));
                    }
                    for an in &ad.annotations {
                        notes.push(an.text.clone());
                    }
                    writeln!(
                        out,
                        "  {}({}){extra}: {}\n    body {}{}",
                        ad.kind.name(),
                        formals(&ad.params),
                        ad.pointcut,
                        lines(ad.body.span),
                        if notes.is_empty() {
                            String::new()
                        } else {
                            format!(" [{}]", notes.join("; "))
                        }
                    )
                }
                Member::DeclarePrecedence(d) => {
                    let ps: Vec<String> = d.patterns.iter().map(|p| p.to_string()).collect();
                    writeln!(out, "  declare precedence: {}", ps.join(", "))
                }
                Member::DeclareMessage(d) => writeln!(
                    out,
                    "  declare {}: {}: {:?}",
                    if d.is_error { "error" } else { "warning" },
                    d.pointcut,
                    d.message
                ),
                Member::Java(j) => {
                    writeln!(out, "  java ({}): {}", lines(j.span), first_line(&j.text))
                }
                Member::Unsupported(u) => {
                    writeln!(
                        out,
                        "  unsupported ({}): {}",
                        lines(u.span),
                        u.feature.message()
                    )
                }
            };
        }
    }
    out
}

use crate::resolve::{ArgCtx, Ctx, Pc, PcKind};

impl Display for Ctx {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Ctx::Type(t) => write!(f, "{t}{}", resolved_names(t)),
            Ctx::Bind { slot, .. } => write!(f, "${slot}"),
        }
    }
}

impl Display for ArgCtx {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ArgCtx::Ellipsis => f.write_str(".."),
            ArgCtx::Ctx(c) => c.fmt(f),
        }
    }
}

/// `=java/lang/String` for an exact name resolved to its first candidate.
fn resolved_names(t: &TypePattern) -> String {
    match &t.kind {
        TypePatternKind::Named(n) if !n.candidates.is_empty() && !is_primitive(&n.name.text) => {
            format!("={}", n.candidates[0])
        }
        _ => String::new(),
    }
}

impl Display for Pc {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            PcKind::And(a, b) => write!(f, "(&& {a} {b})"),
            PcKind::Or(a, b) => write!(f, "(|| {a} {b})"),
            PcKind::Not(a) => write!(f, "(! {a})"),
            PcKind::Call(s) => write!(f, "call({s})"),
            PcKind::Execution(s) => write!(f, "execution({s})"),
            PcKind::Get(s) => write!(f, "get({s})"),
            PcKind::Set(s) => write!(f, "set({s})"),
            PcKind::Initialization(s) => write!(f, "initialization({s})"),
            PcKind::PreInitialization(s) => write!(f, "preinitialization({s})"),
            PcKind::StaticInitialization(t) => write!(f, "staticinitialization({t})"),
            PcKind::Handler(t) => write!(f, "handler({t})"),
            PcKind::AdviceExecution => f.write_str("adviceexecution()"),
            PcKind::Within(t) => write!(f, "within({t}{})", resolved_names(t)),
            PcKind::WithinCode(s) => write!(f, "withincode({s})"),
            PcKind::This(c) => write!(f, "this({c})"),
            PcKind::Target(c) => write!(f, "target({c})"),
            PcKind::Args(a) => {
                f.write_str("args(")?;
                list(f, a, ", ")?;
                f.write_str(")")
            }
            PcKind::AtAnnotation(c) => write!(f, "@annotation({c})"),
            PcKind::AtWithin(c) => write!(f, "@within({c})"),
            PcKind::AtWithinCode(c) => write!(f, "@withincode({c})"),
            PcKind::AtThis(c) => write!(f, "@this({c})"),
            PcKind::AtTarget(c) => write!(f, "@target({c})"),
            PcKind::AtArgs(a) => {
                f.write_str("@args(")?;
                list(f, a, ", ")?;
                f.write_str(")")
            }
            PcKind::Cflow(p) => write!(f, "cflow({p})"),
            PcKind::CflowBelow(p) => write!(f, "cflowbelow({p})"),
            PcKind::If { expr, names } => {
                write!(f, "if({expr})")?;
                if !names.is_empty() {
                    let n: Vec<String> = names.iter().map(|(n, s)| format!("{n}=${s}")).collect();
                    write!(f, "[{}]", n.join(" "))?;
                }
                Ok(())
            }
            PcKind::Abstract { name, binds } => {
                let b: Vec<String> = binds.iter().map(|(s, _)| format!("${s}")).collect();
                write!(f, "abstract {name}({})", b.join(", "))
            }
            PcKind::Never => f.write_str("<never>"),
        }
    }
}

/// A dump of a checked program: each aspect's effective advice with resolved
/// pointcuts (`$n` is formal number n, `=a/b/C` the resolved class of a name).
pub fn dump_program(p: &crate::check::Program) -> String {
    let mut out = String::new();
    for a in &p.aspects {
        let _ = writeln!(
            out,
            "aspect {}{}{}",
            a.name,
            if a.is_abstract { " abstract" } else { "" },
            if a.annotation_style { " @Aspect" } else { "" }
        );
        for ad in &a.advice {
            let _ = writeln!(
                out,
                "  {} #{} of {} ({}): {}",
                ad.kind.name(),
                ad.ordinal,
                ad.declared_in,
                formals(&ad.formals),
                ad.pointcut
            );
        }
        for d in &a.declares {
            let _ = writeln!(
                out,
                "  declare {}: {}: {:?}",
                if d.is_error { "error" } else { "warning" },
                d.pointcut,
                d.message
            );
        }
        for pr in &a.precedence {
            let ps: Vec<String> = pr
                .iter()
                .map(|t| format!("{t}{}", resolved_names(t)))
                .collect();
            let _ = writeln!(out, "  precedence: {}", ps.join(", "));
        }
    }
    for w in &p.warnings {
        out.push_str(&w.render());
    }
    out
}
