//! The semantic pass: resolves every advice and named pointcut, checks bindings
//! (each formal bound exactly once on every `||` branch, never under `!`), bound
//! types, `proceed` arity, static-only `declare` pointcuts, abstract pointcuts, and
//! rejects AspectJ features outside the subset by name. Produces a [`Program`].

use crate::ast::*;
use crate::diagnostics::{Diagnostic, SourceFile};
use crate::patterns::TypePattern;
use crate::resolve::{ArgCtx, Ctx, Index, Pc, PcKind, Resolver, Scope};

/// Everything the weaver needs from a set of aspect files.
#[derive(Debug, Clone)]
pub struct Program {
    /// The source files, indexed by the `file` fields below.
    pub files: Vec<SourceFile>,
    /// Every aspect, abstract ones included (they carry no advice of their own).
    pub aspects: Vec<ResolvedAspect>,
    /// Warnings (the program is usable).
    pub warnings: Vec<Diagnostic>,
}

impl Program {
    /// The concrete aspects, which are the ones woven.
    pub fn concrete_aspects(&self) -> impl Iterator<Item = &ResolvedAspect> {
        self.aspects.iter().filter(|a| !a.is_abstract)
    }
}

/// An aspect after checking.
#[derive(Debug, Clone)]
pub struct ResolvedAspect {
    /// Qualified dotted name (`com.acme.Tracer`).
    pub name: String,
    /// JVM internal name (`com/acme/Tracer`).
    pub internal_name: String,
    /// Source file index.
    pub file: usize,
    /// Abstract aspects are not woven.
    pub is_abstract: bool,
    /// Whether it is an annotation-style (`@Aspect`) class.
    pub annotation_style: bool,
    /// The names its file's type names resolve through.
    pub scope: Scope,
    /// Effective advice (own and inherited from abstract super-aspects), most
    /// derived aspect first, each in declaration order. Empty for abstract aspects.
    pub advice: Vec<ResolvedAdvice>,
    /// `declare warning` / `declare error`.
    pub declares: Vec<ResolvedDeclare>,
    /// `declare precedence` lists, type names resolved.
    pub precedence: Vec<Vec<TypePattern>>,
}

/// An advice with its pointcut resolved.
#[derive(Debug, Clone)]
pub struct ResolvedAdvice {
    /// The aspect that declares it (an ancestor for inherited advice).
    pub declared_in: String,
    /// Its position among the advice of `declared_in`.
    pub ordinal: usize,
    /// Source file of the declaration.
    pub file: usize,
    /// Kind (with the returning/throwing formal or around's return type).
    pub kind: AdviceKind,
    /// Binding slots: the parameters, then the returning/throwing formal if any.
    pub formals: Vec<Formal>,
    /// Parameters of named pointcuts referenced with `*` whose `if(..)`
    /// reads them: bound to the slots after the formals (`formals.len() +
    /// i`), read by those `if` tests alone.
    pub hidden: Vec<Formal>,
    /// The resolved pointcut; `Ctx::Bind { slot }` refers to `formals[slot]`,
    /// or past them to `hidden[slot - formals.len()]`.
    pub pointcut: Pc,
    /// The body.
    pub body: AdviceBody,
    /// The whole declaration.
    pub span: Span,
}

/// A `declare warning|error` after resolution.
#[derive(Debug, Clone)]
pub struct ResolvedDeclare {
    /// `declare error`.
    pub is_error: bool,
    /// The message.
    pub message: String,
    /// The static pointcut.
    pub pointcut: Pc,
    /// Source file.
    pub file: usize,
    /// The declaration.
    pub span: Span,
}

type Diags = Vec<(usize, Diagnostic)>;
/// Slots bound so far: slot, where, file.
type Bound = Vec<(usize, Span, usize)>;
type AddFn<'x> = dyn FnMut(&mut Bound, usize, Span, usize, &mut Diags) + 'x;

/// Checks parsed units (each with the index of its file in `files`).
pub fn check(files: Vec<SourceFile>, units: &[(usize, CompilationUnit)]) -> (Program, Diags) {
    let mut diags: Diags = Vec::new();
    let index = Index::new(units, &mut diags);
    let mut aspects = Vec::new();
    for i in 0..index.aspects.len() {
        aspects.push(check_aspect(&index, i, &mut diags));
    }
    dedupe(&mut diags);
    (
        Program {
            files,
            aspects,
            warnings: Vec::new(),
        },
        diags,
    )
}

fn dedupe(diags: &mut Diags) {
    let mut seen = std::collections::HashSet::new();
    diags.retain(|(f, d)| seen.insert((*f, d.span, d.message.clone())));
}

fn check_aspect(index: &Index<'_>, i: usize, diags: &mut Diags) -> ResolvedAspect {
    let entry = &index.aspects[i];
    let a = entry.aspect;
    let file = entry.file;
    if let Some(p) = &a.per_clause {
        if p.kind != PerKind::IsSingleton {
            diags.push((
                file,
                Diagnostic::error(
                    "pointcut::unsupported",
                    format!("the per-clause `{}` is not supported", p.kind.keyword()),
                    p.span,
                )
                .with_label("only singleton aspects are supported")
                .with_help(
                    "remove the per-clause; keep per-object state in a map inside the aspect",
                ),
            ));
        }
    }
    check_pointcut_decls(index, i, diags);
    let mut own_advice = Vec::new();
    let mut declares = Vec::new();
    let mut precedence = Vec::new();
    let mut ordinal = 0;
    for m in &a.members {
        match m {
            Member::Unsupported(u) => {
                let help = match u.feature {
                    Feature::InterTypeDeclaration => {
                        "keep the state or behaviour in the aspect (e.g. a weak map keyed by the object)"
                    }
                    Feature::DeclareParents => "implement the interface in the target type itself",
                    Feature::NestedAspect => "declare the aspect at the top level of a file",
                    _ => "remove this declaration",
                };
                diags.push((
                    file,
                    Diagnostic::error("pointcut::unsupported", u.feature.message(), u.span)
                        .with_label("outside the supported subset of AspectJ")
                        .with_help(help),
                ));
            }
            Member::Advice(ad) => {
                let r = resolve_advice(index, i, i, ad, ordinal, a.is_abstract(), diags);
                check_advice_body(ad, file, diags);
                ordinal += 1;
                own_advice.push(r);
            }
            Member::DeclareMessage(d) => {
                let mut res = Resolver::new(index, i, a.is_abstract(), diags);
                let pc = res.resolve_top(&d.pointcut, i, &[]);
                check_static(&pc, if d.is_error { "error" } else { "warning" }, diags);
                declares.push(ResolvedDeclare {
                    is_error: d.is_error,
                    message: d.message.clone(),
                    pointcut: pc,
                    file,
                    span: d.span,
                });
            }
            Member::DeclarePrecedence(d) => precedence.push(
                d.patterns
                    .iter()
                    .map(|p| entry.scope.resolve_type_pattern(p))
                    .collect(),
            ),
            Member::Pointcut(_) | Member::Java(_) => {}
        }
    }
    let mut advice = Vec::new();
    if !a.is_abstract() {
        check_abstract_defined(index, i, diags);
        advice.extend(own_advice);
        for anc in index.chain(i).into_iter().skip(1) {
            let ae = &index.aspects[anc];
            for (k, ad) in ae.aspect.advice().enumerate() {
                advice.push(resolve_advice(index, i, anc, ad, k, false, diags));
            }
        }
    }
    ResolvedAspect {
        name: entry.qname.clone(),
        internal_name: entry.qname.replace('.', "/"),
        file,
        is_abstract: a.is_abstract(),
        annotation_style: a.annotation_style,
        scope: entry.scope.clone(),
        advice,
        declares,
        precedence,
    }
}

fn check_pointcut_decls(index: &Index<'_>, i: usize, diags: &mut Diags) {
    let entry = &index.aspects[i];
    let a = entry.aspect;
    let file = entry.file;
    let decls: Vec<&PointcutDecl> = a.pointcuts().collect();
    for (k, p) in decls.iter().enumerate() {
        if let Some(prev) = decls[..k].iter().find(|q| q.name.name == p.name.name) {
            diags.push((
                file,
                Diagnostic::error(
                    "pointcut::duplicate",
                    format!("pointcut `{}` is declared twice", p.name.name),
                    p.name.span,
                )
                .with_label("second declaration")
                .with_secondary(prev.name.span, "first declared here"),
            ));
        }
        if p.is_abstract() {
            if p.has_colon {
                diags.push((
                    file,
                    Diagnostic::error(
                        "pointcut::abstract-body",
                        format!(
                            "abstract pointcut `{}` cannot have an expression",
                            p.name.name
                        ),
                        p.span,
                    )
                    .with_label("remove `abstract` or the expression"),
                ));
            }
            if !a.is_abstract() {
                diags.push((
                    file,
                    Diagnostic::error(
                        "pointcut::abstract-in-concrete",
                        format!(
                            "abstract pointcut `{}` in the concrete aspect `{}`",
                            p.name.name, a.name.name
                        ),
                        p.name.span,
                    )
                    .with_label("abstract pointcuts need an abstract aspect")
                    .with_secondary(a.name.span, "declare this aspect `abstract`"),
                ));
            }
            continue;
        }
        let Some(expr) = &p.expr else {
            diags.push((
                file,
                Diagnostic::error(
                    "pointcut::missing-expression",
                    format!("pointcut `{}` has no expression", p.name.name),
                    Span::new(p.span.end.saturating_sub(1), p.span.end),
                )
                .with_label("expected `:` and a pointcut expression before `;`")
                .with_help(
                    "declare it `abstract` (in an abstract aspect) or give it an expression",
                ),
            ));
            continue;
        };
        let formals: Vec<&Formal> = p.params.iter().collect();
        let mut res = Resolver::new(index, i, true, diags);
        let pc = res.resolve_top(expr, i, &formals);
        check_bindings(
            &pc,
            &formals,
            &vec![false; formals.len()],
            file,
            diags,
            false,
        );
    }
}

fn check_abstract_defined(index: &Index<'_>, i: usize, diags: &mut Diags) {
    let entry = &index.aspects[i];
    for anc in index.chain(i).into_iter().skip(1) {
        for p in index.aspects[anc]
            .aspect
            .pointcuts()
            .filter(|p| p.is_abstract())
        {
            let defined = index
                .find_pointcut(i, &p.name.name)
                .is_some_and(|(_, d)| d.expr.is_some());
            if !defined {
                diags.push((
                    entry.file,
                    Diagnostic::error(
                        "pointcut::abstract-undefined",
                        format!(
                            "aspect `{}` must define the abstract pointcut `{}` of `{}`",
                            entry.aspect.name.name,
                            p.name.name,
                            index.aspects[anc].aspect.name.name
                        ),
                        entry.aspect.name.span,
                    )
                    .with_label("does not define it")
                    .with_help(format!(
                        "add `pointcut {}(..): <expression>;` or declare this aspect `abstract`",
                        p.name.name
                    )),
                ));
            }
        }
    }
}

fn resolve_advice(
    index: &Index<'_>,
    concrete: usize,
    lexical: usize,
    ad: &Advice,
    ordinal: usize,
    allow_abstract: bool,
    diags: &mut Diags,
) -> ResolvedAdvice {
    let entry = &index.aspects[lexical];
    let file = entry.file;
    let formals: Vec<&Formal> = ad.all_formals().collect();
    let mut prebound = vec![false; formals.len()];
    if formals.len() > ad.params.len() {
        prebound[ad.params.len()] = true;
    }
    let annotation_style = entry.aspect.annotation_style;
    // Annotation style: JoinPoint parameters are supplied by the weaver.
    for (k, f) in formals.iter().enumerate() {
        if annotation_style && is_join_point_type(&f.ty.name) {
            prebound[k] = true;
        }
    }
    let mut res = Resolver::new(index, concrete, allow_abstract, diags);
    let pc = res.resolve_top(&ad.pointcut, lexical, &formals);
    let hidden = res.hidden().to_vec();
    check_bindings(&pc, &formals, &prebound, file, diags, true);
    check_bound_types(&pc, &formals, diags);
    if let AdviceKind::AfterThrowing(Some(f)) = &ad.kind {
        if f.ty.is_primitive() {
            diags.push((
                file,
                Diagnostic::error(
                    "pointcut::binding-type",
                    format!(
                        "`after throwing` cannot bind the primitive type `{}`",
                        f.ty.name
                    ),
                    f.ty.span,
                )
                .with_label("expected a Throwable type"),
            ));
        }
    }
    if !annotation_style {
        check_empty_if(&pc, diags);
    }
    check_array_construction(&pc, diags);
    if kinds(&pc) == 0 && !matches!(pc.kind, PcKind::Never) {
        diags.push((
            pc.file,
            Diagnostic::warning(
                "pointcut::never-matches",
                "this pointcut can never match",
                pc.span,
            )
            .with_label("no join point is of all the kinds required here")
            .with_help("`&&` of two kinded designators (e.g. `call` and `execution`) needs `||`"),
        ));
    }
    ResolvedAdvice {
        declared_in: entry.qname.clone(),
        ordinal,
        file,
        kind: ad.kind.clone(),
        formals: formals.into_iter().cloned().collect(),
        hidden,
        pointcut: pc,
        body: ad.body.clone(),
        span: ad.span,
    }
}

impl ResolvedAdvice {
    /// The number of binding slots: the formals, then the slots only
    /// `if(..)` tests read ([`ResolvedAdvice::hidden`]).
    pub fn slot_count(&self) -> usize {
        self.formals.len() + self.hidden.len()
    }
}

fn is_join_point_type(name: &str) -> bool {
    matches!(
        name,
        "JoinPoint"
            | "ProceedingJoinPoint"
            | "JoinPoint.StaticPart"
            | "JoinPoint.EnclosingStaticPart"
            | "org.aspectj.lang.JoinPoint"
            | "org.aspectj.lang.ProceedingJoinPoint"
            | "org.aspectj.lang.JoinPoint.StaticPart"
            | "org.aspectj.lang.JoinPoint.EnclosingStaticPart"
    )
}

fn check_advice_body(ad: &Advice, file: usize, diags: &mut Diags) {
    match &ad.kind {
        AdviceKind::Around(_) => {
            let n = ad.params.len();
            for c in &ad.body.proceed_calls {
                if c.args != n {
                    diags.push((
                        file,
                        Diagnostic::error(
                            "pointcut::proceed-arity",
                            format!(
                                "`proceed` takes {n} argument{} here, but {} {} given",
                                if n == 1 { "" } else { "s" },
                                c.args,
                                if c.args == 1 { "was" } else { "were" }
                            ),
                            c.span,
                        )
                        .with_label("wrong number of arguments")
                        .with_secondary(
                            ad.keyword_span,
                            "proceed takes the formals of this around advice",
                        ),
                    ));
                }
            }
        }
        _ => {
            if let Some(c) = ad.body.proceed_calls.first() {
                diags.push((
                    file,
                    Diagnostic::error(
                        "pointcut::proceed-outside-around",
                        format!("`proceed` cannot be called in {} advice", ad.kind.name()),
                        c.span,
                    )
                    .with_label("only around advice can proceed")
                    .with_secondary(ad.keyword_span, "this is not around advice"),
                ));
            }
        }
    }
}

/// The slots a pointcut binds, with where each is bound.
fn bound(pc: &Pc, formals: &[&Formal], diags: &mut Diags) -> Bound {
    let name = |s: usize| {
        formals
            .get(s)
            .map_or("?".to_string(), |f| f.name.name.clone())
    };
    let mut out: Bound = Vec::new();
    let mut add = |out: &mut Bound, slot: usize, span: Span, file: usize, diags: &mut Diags| {
        if let Some(&(_, prev, pfile)) = out.iter().find(|(s, _, _)| *s == slot) {
            let mut d = Diagnostic::error(
                "pointcut::bound-twice",
                format!("formal `{}` is bound twice", name(slot)),
                span,
            )
            .with_label("bound again here");
            if pfile == file {
                d = d.with_secondary(prev, "first bound here");
            }
            diags.push((
                file,
                d.with_help("bind each formal once; test further values with a type instead"),
            ));
        } else {
            out.push((slot, span, file));
        }
    };
    // Slots past the formals are the resolver's, for `if(..)` tests only
    // (`Resolver::hidden`): no formal to bind, wherever they are.
    let ctx = |c: &Ctx, out: &mut Bound, diags: &mut Diags, add: &mut AddFn<'_>| {
        if let Ctx::Bind { slot, span } = c {
            if *slot < formals.len() {
                add(out, *slot, *span, pc.file, diags);
            }
        }
    };
    match &pc.kind {
        PcKind::And(a, b) => {
            let ba = bound(a, formals, diags);
            let bb = bound(b, formals, diags);
            for (s, sp, f) in ba.into_iter().chain(bb) {
                add(&mut out, s, sp, f, diags);
            }
        }
        PcKind::Or(a, b) => {
            let ba = bound(a, formals, diags);
            let bb = bound(b, formals, diags);
            for (x, y) in [(&ba, &bb), (&bb, &ba)] {
                for (s, sp, f) in x.iter() {
                    if !y.iter().any(|(t, _, _)| t == s) {
                        let mut d = Diagnostic::error(
                            "pointcut::unbound-branch",
                            format!("formal `{}` is bound on only one side of `||`", name(*s)),
                            *sp,
                        )
                        .with_label("bound only on this side");
                        if *f == pc.file {
                            d = d.with_secondary(pc.span, "in this `||`");
                        }
                        diags.push((
                            *f,
                            d.with_help("bind the formal on every branch, or move the binding outside the `||`"),
                        ));
                    }
                }
            }
            for (s, sp, f) in ba {
                out.push((s, sp, f));
            }
            for (s, sp, f) in bb {
                if !out.iter().any(|(t, _, _)| *t == s) {
                    out.push((s, sp, f));
                }
            }
        }
        PcKind::Not(a) => {
            for (s, sp, f) in bound(a, formals, diags) {
                let mut d = Diagnostic::error(
                    "pointcut::bound-under-not",
                    format!("formal `{}` cannot be bound under `!`", name(s)),
                    sp,
                )
                .with_label("bound here");
                if f == pc.file {
                    d = d.with_secondary(
                        Span::new(pc.span.start, pc.span.start + 1),
                        "negated here",
                    );
                }
                diags.push((
                    f,
                    d.with_help("a negated pointcut matches when there is no value to bind; use a type here"),
                ));
                // Counted as bound, so that the formal is not also reported unbound.
                out.push((s, sp, f));
            }
        }
        PcKind::Cflow(a) | PcKind::CflowBelow(a) => {
            for (s, sp, f) in bound(a, formals, diags) {
                add(&mut out, s, sp, f, diags);
            }
        }
        PcKind::This(c)
        | PcKind::Target(c)
        | PcKind::AtAnnotation(c)
        | PcKind::AtWithin(c)
        | PcKind::AtWithinCode(c)
        | PcKind::AtThis(c)
        | PcKind::AtTarget(c) => ctx(c, &mut out, diags, &mut add),
        PcKind::Args(list) | PcKind::AtArgs(list) => {
            for x in list {
                if let ArgCtx::Ctx(c) = x {
                    ctx(c, &mut out, diags, &mut add);
                }
            }
        }
        PcKind::Abstract { binds, .. } => {
            for (s, sp) in binds {
                add(&mut out, *s, *sp, pc.file, diags);
            }
        }
        _ => {}
    }
    out
}

/// Every formal bound exactly once (prebound ones: never by the pointcut).
fn check_bindings(
    pc: &Pc,
    formals: &[&Formal],
    prebound: &[bool],
    file: usize,
    diags: &mut Diags,
    advice: bool,
) {
    let b = bound(pc, formals, diags);
    for (k, f) in formals.iter().enumerate() {
        let at = b.iter().find(|(s, _, _)| *s == k);
        match (prebound[k], at) {
            (true, Some((_, sp, bf))) if !is_join_point_type(&f.ty.name) => {
                let mut d = Diagnostic::error(
                    "pointcut::bound-twice",
                    format!(
                        "formal `{}` is bound by the advice kind and by the pointcut",
                        f.name.name
                    ),
                    *sp,
                )
                .with_label("bound again here");
                if *bf == file {
                    d = d.with_secondary(f.span, "bound by `returning`/`throwing`");
                }
                diags.push((*bf, d));
            }
            (false, None) => {
                let what = if advice { "advice" } else { "pointcut" };
                diags.push((
                    file,
                    Diagnostic::error(
                        "pointcut::unbound-formal",
                        format!("formal `{}` is not bound by the pointcut", f.name.name),
                        f.name.span,
                    )
                    .with_label(format!("this {what} parameter is never bound"))
                    .with_help(format!(
                        "bind it with `args({0})`, `this({0})` or `target({0})`, or remove it",
                        f.name.name
                    )),
                ));
            }
            _ => {}
        }
    }
}

fn check_bound_types(pc: &Pc, formals: &[&Formal], diags: &mut Diags) {
    let mut check = |c: &Ctx, what: &str, annotation: bool| {
        if let Ctx::Bind { slot, span } = c {
            if let Some(f) = formals.get(*slot) {
                let bad = if annotation {
                    f.ty.is_primitive() || f.ty.dims > 0
                } else {
                    f.ty.is_primitive()
                };
                if bad {
                    diags.push((
                        pc.file,
                        Diagnostic::error(
                            "pointcut::binding-type",
                            format!(
                                "`{what}` cannot bind `{}`, which has the type `{}`",
                                f.name.name,
                                crate::display::type_text(&f.ty)
                            ),
                            *span,
                        )
                        .with_label(if annotation {
                            "expected an annotation type"
                        } else {
                            "expected a reference type"
                        }),
                    ));
                }
            }
        }
    };
    match &pc.kind {
        PcKind::And(a, b) | PcKind::Or(a, b) => {
            check_bound_types(a, formals, diags);
            check_bound_types(b, formals, diags);
        }
        PcKind::Not(a) | PcKind::Cflow(a) | PcKind::CflowBelow(a) => {
            check_bound_types(a, formals, diags)
        }
        PcKind::This(c) => check(c, "this", false),
        PcKind::Target(c) => check(c, "target", false),
        PcKind::AtAnnotation(c) => check(c, "@annotation", true),
        PcKind::AtWithin(c) => check(c, "@within", true),
        PcKind::AtWithinCode(c) => check(c, "@withincode", true),
        PcKind::AtThis(c) => check(c, "@this", true),
        PcKind::AtTarget(c) => check(c, "@target", true),
        PcKind::AtArgs(list) => {
            for x in list {
                if let ArgCtx::Ctx(c) = x {
                    check(c, "@args", true);
                }
            }
        }
        _ => {}
    }
}

fn check_empty_if(pc: &Pc, diags: &mut Diags) {
    match &pc.kind {
        PcKind::And(a, b) | PcKind::Or(a, b) => {
            check_empty_if(a, diags);
            check_empty_if(b, diags);
        }
        PcKind::Not(a) | PcKind::Cflow(a) | PcKind::CflowBelow(a) => check_empty_if(a, diags),
        PcKind::If { expr, .. } if expr.is_empty() => diags.push((
            pc.file,
            Diagnostic::error(
                "pointcut::empty-if",
                "`if()` needs a boolean expression",
                pc.span,
            )
            .with_label("empty")
            .with_help("`if()` without an expression exists only in annotation-style aspects"),
        )),
        _ => {}
    }
}

/// The join-point kinds a pointcut can match, as a bit set (all bits: any kind).
fn kinds(pc: &Pc) -> u16 {
    use crate::patterns::SignatureKind as S;
    const ALL: u16 = (1 << 11) - 1;
    let sig = |k: S, method: u16, ctor: u16| if k == S::Method { method } else { ctor };
    match &pc.kind {
        PcKind::Call(s) => sig(s.kind, 1, 1 << 1),
        PcKind::Execution(s) => sig(s.kind, 1 << 2, 1 << 3),
        PcKind::Get(_) => 1 << 4,
        PcKind::Set(_) => 1 << 5,
        PcKind::StaticInitialization(_) => 1 << 6,
        PcKind::Initialization(_) => 1 << 7,
        PcKind::PreInitialization(_) => 1 << 8,
        PcKind::Handler(_) => 1 << 9,
        PcKind::AdviceExecution => 1 << 10,
        PcKind::And(a, b) => kinds(a) & kinds(b),
        PcKind::Or(a, b) => kinds(a) | kinds(b),
        PcKind::Never => 0,
        _ => ALL,
    }
}

/// `call(int[].new(..))`: array creation is no join point (ajc 1.9.5 without
/// `-Xjoinpoints:arrayconstruction`), so the designator matches nothing; an
/// exact array type gets ajc's warning.
fn check_array_construction(pc: &Pc, diags: &mut Diags) {
    match &pc.kind {
        PcKind::And(a, b) | PcKind::Or(a, b) => {
            check_array_construction(a, diags);
            check_array_construction(b, diags);
        }
        PcKind::Not(a) | PcKind::Cflow(a) | PcKind::CflowBelow(a) => {
            check_array_construction(a, diags)
        }
        PcKind::Call(s)
        | PcKind::Execution(s)
        | PcKind::Initialization(s)
        | PcKind::PreInitialization(s)
            if s.kind == crate::patterns::SignatureKind::Constructor =>
        {
            if let Some(crate::patterns::TypePattern {
                kind: crate::patterns::TypePatternKind::Named(n),
                ..
            }) = &s.declaring_type
            {
                if n.dims > 0 && n.name.is_exact() {
                    diags.push((
                        pc.file,
                        Diagnostic::warning(
                            "pointcut::array-construction",
                            "There are no join points for array construction unless \
                             -Xjoinpoints:arrayconstruction is specified",
                            pc.span,
                        )
                        .with_label("matches nothing")
                        .with_help(
                            "major, like ajc by default, has no array construction join points",
                        ),
                    ));
                }
            }
        }
        _ => {}
    }
}

/// `declare warning|error` pointcuts must be decidable without running the program.
fn check_static(pc: &Pc, what: &str, diags: &mut Diags) {
    let dynamic = match &pc.kind {
        PcKind::And(a, b) | PcKind::Or(a, b) => {
            check_static(a, what, diags);
            check_static(b, what, diags);
            None
        }
        PcKind::Not(a) => {
            check_static(a, what, diags);
            None
        }
        PcKind::This(_) => Some("this"),
        PcKind::Target(_) => Some("target"),
        PcKind::Args(_) => Some("args"),
        PcKind::Cflow(_) => Some("cflow"),
        PcKind::CflowBelow(_) => Some("cflowbelow"),
        PcKind::If { .. } => Some("if"),
        PcKind::AtThis(_) => Some("@this"),
        PcKind::AtTarget(_) => Some("@target"),
        PcKind::AtArgs(_) => Some("@args"),
        _ => None,
    };
    if let Some(d) = dynamic {
        diags.push((
            pc.file,
            Diagnostic::error(
                "pointcut::declare-dynamic",
                format!("`declare {what}` needs a pointcut decided at weave time, but `{d}` is decided at run time"),
                pc.span,
            )
            .with_label("dynamic")
            .with_help("use only kinded designators, `within` and `withincode`"),
        ));
    }
}

/// ajc's `Xlint:invalidAbsoluteTypeName`: every exact type name in the
/// program's advice and `declare` pointcuts that names no class `world`
/// knows, as a warning "no match for this type name: X" at the name (once per
/// place). Wildcard names are not checked, as in ajc.
pub fn unknown_type_names(
    program: &Program,
    world: &dyn crate::matcher::TypeWorld,
) -> Vec<Diagnostic> {
    let mut found: Vec<(usize, Span, String)> = Vec::new();
    for a in &program.aspects {
        for ad in &a.advice {
            unknown_in_pc(&ad.pointcut, world, &mut found);
        }
        for d in &a.declares {
            unknown_in_pc(&d.pointcut, world, &mut found);
        }
    }
    let mut seen = std::collections::HashSet::new();
    found
        .into_iter()
        .filter(|(f, sp, _)| seen.insert((*f, *sp)))
        .map(|(f, sp, name)| {
            Diagnostic::warning(
                "pointcut::invalid-absolute-type-name",
                format!("no match for this type name: {name} [Xlint:invalidAbsoluteTypeName]"),
                sp,
            )
            .with_label("no class of this name in the inputs, class path or JDK")
            .in_source(&program.files[f])
        })
        .collect()
}

fn unknown_in_pc(
    pc: &Pc,
    world: &dyn crate::matcher::TypeWorld,
    out: &mut Vec<(usize, Span, String)>,
) {
    use crate::patterns::{ArgPattern, SignaturePattern, TypePattern, TypePatternKind};
    let file = pc.file;
    fn tp(
        t: &TypePattern,
        file: usize,
        w: &dyn crate::matcher::TypeWorld,
        out: &mut Vec<(usize, Span, String)>,
    ) {
        match &t.kind {
            TypePatternKind::Named(n) => {
                if n.name.is_exact()
                    && !n.name.is_any()
                    && !crate::patterns::is_primitive(&n.name.text)
                    && !n.candidates.is_empty()
                    && !n.candidates.iter().any(|c| w.exists(c))
                {
                    out.push((file, t.span, n.name.text.clone()));
                }
                for a in n.type_args.iter().filter_map(|a| a.type_pattern()) {
                    tp(a, file, w, out);
                }
            }
            TypePatternKind::Not(a) => tp(a, file, w, out),
            TypePatternKind::And(a, b) | TypePatternKind::Or(a, b) => {
                tp(a, file, w, out);
                tp(b, file, w, out);
            }
            TypePatternKind::Annotated(anns, inner) => {
                for a in anns {
                    tp(&a.ty, file, w, out);
                }
                tp(inner, file, w, out);
            }
        }
    }
    let sig = |s: &SignaturePattern, out: &mut Vec<(usize, Span, String)>| {
        for a in &s.annotations {
            tp(&a.ty, file, world, out);
        }
        for t in s.return_type.iter().chain(&s.declaring_type) {
            tp(t, file, world, out);
        }
        for p in &s.params {
            if let ArgPattern::Type(t) = p {
                tp(t, file, world, out);
            }
        }
        for t in &s.throws {
            tp(&t.ty, file, world, out);
        }
    };
    let ctx = |c: &Ctx, out: &mut Vec<(usize, Span, String)>| {
        if let Ctx::Type(t) = c {
            tp(t, file, world, out);
        }
    };
    match &pc.kind {
        PcKind::And(a, b) | PcKind::Or(a, b) => {
            unknown_in_pc(a, world, out);
            unknown_in_pc(b, world, out);
        }
        PcKind::Not(a) | PcKind::Cflow(a) | PcKind::CflowBelow(a) => unknown_in_pc(a, world, out),
        PcKind::Call(s)
        | PcKind::Execution(s)
        | PcKind::Initialization(s)
        | PcKind::PreInitialization(s)
        | PcKind::WithinCode(s) => sig(s, out),
        PcKind::Get(f) | PcKind::Set(f) => {
            for a in &f.annotations {
                tp(&a.ty, file, world, out);
            }
            tp(&f.field_type, file, world, out);
            if let Some(d) = &f.declaring_type {
                tp(d, file, world, out);
            }
        }
        PcKind::StaticInitialization(t) | PcKind::Handler(t) | PcKind::Within(t) => {
            tp(t, file, world, out)
        }
        PcKind::This(c)
        | PcKind::Target(c)
        | PcKind::AtAnnotation(c)
        | PcKind::AtWithin(c)
        | PcKind::AtWithinCode(c)
        | PcKind::AtThis(c)
        | PcKind::AtTarget(c) => ctx(c, out),
        PcKind::Args(list) | PcKind::AtArgs(list) => {
            for a in list {
                if let ArgCtx::Ctx(c) = a {
                    ctx(c, out);
                }
            }
        }
        _ => {}
    }
}

/// `declare precedence: A, B, A;`: an aspect that two patterns of one list
/// match makes the order circular, an error in ajc ("circularity in declare
/// precedence, 'A' matches two patterns"), reported at the second pattern.
/// `*` is not counted (it stands for the aspects the others do not match).
pub fn precedence_errors(
    program: &Program,
    world: &dyn crate::matcher::TypeWorld,
) -> Vec<Diagnostic> {
    use crate::matcher::CompiledTypePattern;
    let mut out = Vec::new();
    for a in &program.aspects {
        for list in &a.precedence {
            let compiled: Vec<CompiledTypePattern> = list
                .iter()
                .map(|t| CompiledTypePattern::compile(t, world))
                .collect();
            for x in program.aspects.iter().filter(|x| !x.is_abstract) {
                let d = format!("L{};", x.internal_name);
                let hits: Vec<usize> = compiled
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| !p.is_any() && p.matches_descriptor(&d, world))
                    .map(|(i, _)| i)
                    .collect();
                if let [first, second, ..] = hits[..] {
                    let simple = x.name.rsplit('.').next().unwrap_or(&x.name);
                    out.push(
                        Diagnostic::error(
                            "pointcut::circular-precedence",
                            format!(
                                "circularity in declare precedence, '{simple}' matches two patterns"
                            ),
                            list[second].span,
                        )
                        .with_label("matches the aspect again")
                        .with_secondary(list[first].span, "first matched here")
                        .with_help("name each aspect in one place of the list")
                        .in_source(&program.files[a.file]),
                    );
                }
            }
        }
    }
    out
}
