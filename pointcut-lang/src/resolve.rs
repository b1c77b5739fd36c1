//! Name resolution: Java type names through the package and imports of the file
//! they were written in, named pointcuts through the aspect hierarchy (abstract
//! pointcuts resolve in the concrete sub-aspect), and formal names to binding
//! slots. The result is a [`Pc`] tree with no references left.

use std::collections::HashMap;

use crate::ast::*;
use crate::diagnostics::Diagnostic;
use crate::patterns::*;

/// The names a file's type names resolve through.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// The package, dotted (`com.acme`), if any.
    pub package: Option<String>,
    /// Single-type imports: simple name to qualified dotted name.
    pub single: Vec<(String, String)>,
    /// On-demand imported packages (`java.util` for `java.util.*`).
    pub on_demand: Vec<String>,
}

fn internal(dotted: &str) -> String {
    dotted.replace('.', "/")
}

/// `a/b/C/D` and the nested-class readings `a/b/C$D`, `a/b$C$D`, ...
fn nested_variants(internal_name: &str, out: &mut Vec<String>) {
    let mut s = internal_name.to_string();
    loop {
        if !out.contains(&s) {
            out.push(s.clone());
        }
        match s.rfind('/') {
            Some(i) => s.replace_range(i..i + 1, "$"),
            None => break,
        }
    }
}

impl Scope {
    /// The scope of a compilation unit.
    pub fn of_unit(unit: &CompilationUnit) -> Scope {
        let mut s = Scope {
            package: unit.package.as_ref().map(|p| p.name.clone()),
            ..Scope::default()
        };
        for i in unit.imports.iter().filter(|i| !i.is_static) {
            if i.on_demand {
                s.on_demand.push(i.name.clone());
            } else {
                let simple = i.name.rsplit('.').next().unwrap_or(&i.name).to_string();
                s.single.push((simple, i.name.clone()));
            }
        }
        s
    }

    /// What a wildcard simple name may match besides the default package (see
    /// [`crate::patterns::NamedTypePattern::imported`]).
    pub fn imported(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .package
            .iter()
            .chain(&self.on_demand)
            .map(|p| format!("{}/", internal(p)))
            .collect();
        if !out.iter().any(|p| p == "java/lang/") {
            out.push("java/lang/".to_string());
        }
        out.extend(self.single.iter().map(|(_, q)| internal(q)));
        out
    }

    /// The internal names an exact (non-wildcard) type name may denote, in Java's
    /// order of precedence: single-type import, same package, on-demand imports and
    /// `java.lang`. A qualified name is also tried as written, and with nested-class
    /// separators.
    pub fn candidates(&self, name: &str) -> Vec<String> {
        let mut out = Vec::new();
        if is_primitive(name) {
            out.push(name.to_string());
            return out;
        }
        let (first, rest) = match name.find('.') {
            Some(i) => (&name[..i], Some(&name[i + 1..])),
            None => (name, None),
        };
        if let Some((_, q)) = self.single.iter().find(|(s, _)| s == first) {
            let base = internal(q);
            // A single-type import shadows everything else.
            match rest {
                Some(r) => out.push(format!("{base}${}", r.replace('.', "$"))),
                None => out.push(base),
            }
            return out;
        }
        if rest.is_some() {
            nested_variants(&internal(name), &mut out);
        }
        let in_pkg = match &self.package {
            Some(p) => internal(&format!("{p}.{name}")),
            None => internal(name),
        };
        if rest.is_some() {
            let pkg_len = self.package.as_ref().map_or(0, |p| p.len() + 1);
            let mut v = Vec::new();
            nested_variants(&in_pkg, &mut v);
            // Only the readings that keep the package intact.
            for c in v
                .into_iter()
                .filter(|c| !c[..pkg_len.min(c.len())].contains('$'))
            {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        } else if !out.contains(&in_pkg) {
            out.push(in_pkg);
        }
        for p in self
            .on_demand
            .iter()
            .map(String::as_str)
            .chain(["java.lang"])
        {
            let c = internal(&format!("{p}.{name}"));
            let c = match rest {
                Some(_) => {
                    let plen = p.len() + 1;
                    format!("{}{}", &c[..plen], c[plen..].replace('/', "$"))
                }
                None => c,
            };
            if !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }

    /// Fills in the candidates of every exact name in a type pattern.
    pub fn resolve_type_pattern(&self, tp: &TypePattern) -> TypePattern {
        let kind = match &tp.kind {
            TypePatternKind::Named(n) => {
                let mut n = n.clone();
                if n.name.is_exact() && !n.name.is_any() {
                    n.candidates = self.candidates(&n.name.text);
                } else if !n.name.is_any() {
                    n.imported = self.imported();
                }
                n.type_args = n
                    .type_args
                    .iter()
                    .map(|a| a.map(|t| self.resolve_type_pattern(t)))
                    .collect();
                TypePatternKind::Named(n)
            }
            TypePatternKind::Not(a) => TypePatternKind::Not(Box::new(self.resolve_type_pattern(a))),
            TypePatternKind::And(a, b) => TypePatternKind::And(
                Box::new(self.resolve_type_pattern(a)),
                Box::new(self.resolve_type_pattern(b)),
            ),
            TypePatternKind::Or(a, b) => TypePatternKind::Or(
                Box::new(self.resolve_type_pattern(a)),
                Box::new(self.resolve_type_pattern(b)),
            ),
            TypePatternKind::Annotated(anns, t) => TypePatternKind::Annotated(
                self.resolve_annotations(anns),
                Box::new(self.resolve_type_pattern(t)),
            ),
        };
        TypePattern {
            kind,
            span: tp.span,
        }
    }

    fn resolve_annotations(&self, anns: &[AnnotationPattern]) -> Vec<AnnotationPattern> {
        anns.iter()
            .map(|a| AnnotationPattern {
                negated: a.negated,
                ty: self.resolve_type_pattern(&a.ty),
                span: a.span,
            })
            .collect()
    }

    fn resolve_args(&self, args: &[ArgPattern]) -> Vec<ArgPattern> {
        args.iter()
            .map(|a| match a {
                ArgPattern::Ellipsis(s) => ArgPattern::Ellipsis(*s),
                ArgPattern::Type(t) => ArgPattern::Type(self.resolve_type_pattern(t)),
            })
            .collect()
    }

    /// Fills in the candidates of every exact name in a signature pattern.
    pub fn resolve_signature(&self, s: &SignaturePattern) -> SignaturePattern {
        SignaturePattern {
            annotations: self.resolve_annotations(&s.annotations),
            return_type: s.return_type.as_ref().map(|t| self.resolve_type_pattern(t)),
            declaring_type: s
                .declaring_type
                .as_ref()
                .map(|t| self.resolve_type_pattern(t)),
            params: self.resolve_args(&s.params),
            throws: s
                .throws
                .iter()
                .map(|t| ThrowsPattern {
                    negated: t.negated,
                    ty: self.resolve_type_pattern(&t.ty),
                })
                .collect(),
            ..s.clone()
        }
    }

    /// Fills in the candidates of every exact name in a field pattern.
    pub fn resolve_field(&self, f: &FieldPattern) -> FieldPattern {
        FieldPattern {
            annotations: self.resolve_annotations(&f.annotations),
            field_type: self.resolve_type_pattern(&f.field_type),
            declaring_type: f
                .declaring_type
                .as_ref()
                .map(|t| self.resolve_type_pattern(t)),
            ..f.clone()
        }
    }
}

/// A context pattern after resolution: a type test, or a binding of a formal.
#[derive(Debug, Clone, PartialEq)]
pub enum Ctx {
    /// A type the value must have (a runtime test where not statically known).
    Type(TypePattern),
    /// Binds the value to formal number `slot`; the value must have the formal's type.
    Bind {
        /// Index of the formal in the advice (parameters, then the returning/throwing one).
        slot: usize,
        /// Where the binding was written.
        span: Span,
    },
}

/// An element of a resolved `args(..)`/`@args(..)`.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgCtx {
    /// `..`
    Ellipsis,
    /// A type test or a binding.
    Ctx(Ctx),
}

/// A resolved pointcut node.
#[derive(Debug, Clone, PartialEq)]
pub struct Pc {
    /// What it is.
    pub kind: PcKind,
    /// Where it was written.
    pub span: Span,
    /// Index of the source file it was written in.
    pub file: usize,
}

/// The kinds of resolved pointcut: like [`PointcutKind`] with references inlined,
/// formals turned into binding slots and type names resolved.
#[derive(Debug, Clone, PartialEq)]
pub enum PcKind {
    /// `a && b`
    And(Box<Pc>, Box<Pc>),
    /// `a || b`
    Or(Box<Pc>, Box<Pc>),
    /// `!a`
    Not(Box<Pc>),
    /// `call(sig)`
    Call(SignaturePattern),
    /// `execution(sig)`
    Execution(SignaturePattern),
    /// `get(field)`
    Get(FieldPattern),
    /// `set(field)`
    Set(FieldPattern),
    /// `initialization(ctor)`
    Initialization(SignaturePattern),
    /// `preinitialization(ctor)`
    PreInitialization(SignaturePattern),
    /// `staticinitialization(T)`
    StaticInitialization(TypePattern),
    /// `handler(T)`
    Handler(TypePattern),
    /// `adviceexecution()`
    AdviceExecution,
    /// `within(T)`
    Within(TypePattern),
    /// `withincode(sig)`
    WithinCode(SignaturePattern),
    /// `this(..)`
    This(Ctx),
    /// `target(..)`
    Target(Ctx),
    /// `args(..)`
    Args(Vec<ArgCtx>),
    /// `@annotation(..)`
    AtAnnotation(Ctx),
    /// `@within(..)`
    AtWithin(Ctx),
    /// `@withincode(..)`
    AtWithinCode(Ctx),
    /// `@this(..)`
    AtThis(Ctx),
    /// `@target(..)`
    AtTarget(Ctx),
    /// `@args(..)`
    AtArgs(Vec<ArgCtx>),
    /// `cflow(pc)`
    Cflow(Box<Pc>),
    /// `cflowbelow(pc)`
    CflowBelow(Box<Pc>),
    /// `if(expr)`, with the names the expression may use mapped to formal slots.
    If {
        /// The Java expression.
        expr: String,
        /// Names visible in the expression and the slots they denote.
        names: Vec<(String, usize)>,
    },
    /// A reference to an abstract pointcut, checked in an abstract aspect (it binds
    /// the slots passed to it).
    Abstract {
        /// The pointcut's name.
        name: String,
        /// The slots bound by its arguments.
        binds: Vec<(usize, Span)>,
    },
    /// Matches nothing (`pointcut p(): ;`).
    Never,
}

/// One aspect of the program and where it came from.
pub(crate) struct AspectEntry<'u> {
    pub file: usize,
    pub aspect: &'u Aspect,
    /// Dotted qualified name.
    pub qname: String,
    pub parent: Option<usize>,
    pub scope: Scope,
}

/// All aspects of all files, with their hierarchy.
pub(crate) struct Index<'u> {
    pub aspects: Vec<AspectEntry<'u>>,
}

impl<'u> Index<'u> {
    pub fn new(
        units: &'u [(usize, CompilationUnit)],
        diags: &mut Vec<(usize, Diagnostic)>,
    ) -> Index<'u> {
        let mut aspects = Vec::new();
        for (file, unit) in units {
            let scope = Scope::of_unit(unit);
            for a in &unit.aspects {
                let qname = match &unit.package {
                    Some(p) => format!("{}.{}", p.name, a.name.name),
                    None => a.name.name.clone(),
                };
                aspects.push(AspectEntry {
                    file: *file,
                    aspect: a,
                    qname,
                    parent: None,
                    scope: scope.clone(),
                });
            }
        }
        let mut idx = Index { aspects };
        for i in 0..idx.aspects.len() {
            if let Some(ext) = &idx.aspects[i].aspect.extends {
                let found = idx.find_aspect(&ext.name, &idx.aspects[i].scope);
                if let Some(p) = found {
                    if !idx.aspects[p].aspect.is_abstract() {
                        let e = &idx.aspects[i];
                        diags.push((
                            e.file,
                            Diagnostic::error(
                                "pointcut::extends-concrete",
                                format!(
                                    "aspect `{}` cannot extend the concrete aspect `{}`",
                                    e.aspect.name.name, idx.aspects[p].aspect.name.name
                                ),
                                ext.span,
                            )
                            .with_label("not abstract")
                            .with_help("only abstract aspects can be extended"),
                        ));
                    } else {
                        idx.aspects[i].parent = Some(p);
                    }
                }
            }
        }
        // Break inheritance cycles so that walking up always ends.
        for i in 0..idx.aspects.len() {
            let mut seen = vec![i];
            let mut cur = idx.aspects[i].parent;
            while let Some(c) = cur {
                if seen.contains(&c) {
                    let e = &idx.aspects[i];
                    diags.push((
                        e.file,
                        Diagnostic::error(
                            "pointcut::cyclic-aspects",
                            format!("aspect `{}` extends itself", e.aspect.name.name),
                            e.aspect.name.span,
                        )
                        .with_label("inheritance cycle"),
                    ));
                    idx.aspects[i].parent = None;
                    break;
                }
                seen.push(c);
                cur = idx.aspects[c].parent;
            }
        }
        idx
    }

    /// Finds an aspect by simple or qualified name as seen from `scope`.
    pub fn find_aspect(&self, name: &str, scope: &Scope) -> Option<usize> {
        let wanted: Vec<String> = scope
            .candidates(name)
            .into_iter()
            .map(|c| c.replace(['/', '$'], "."))
            .collect();
        self.aspects
            .iter()
            .position(|a| wanted.contains(&a.qname))
            .or_else(|| {
                self.aspects
                    .iter()
                    .position(|a| a.qname == name || a.aspect.name.name == name)
            })
    }

    /// Aspect `start` and its ancestors, most derived first.
    pub fn chain(&self, start: usize) -> Vec<usize> {
        let mut out = vec![start];
        let mut cur = self.aspects[start].parent;
        while let Some(c) = cur {
            if out.contains(&c) {
                break;
            }
            out.push(c);
            cur = self.aspects[c].parent;
        }
        out
    }

    /// The most derived declaration of pointcut `name` seen from aspect `from`.
    pub fn find_pointcut(&self, from: usize, name: &str) -> Option<(usize, &'u PointcutDecl)> {
        self.chain(from).into_iter().find_map(|a| {
            self.aspects[a]
                .aspect
                .pointcuts()
                .find(|p| p.name.name == name)
                .map(|p| (a, p))
        })
    }
}

/// Resolves a standalone pointcut (references to named pointcuts are errors).
pub fn resolve_standalone(pc: &Pointcut, scope: &Scope) -> (Pc, Vec<Diagnostic>) {
    let aspect = Aspect {
        name: Ident {
            name: "<pointcut>".into(),
            span: pc.span,
        },
        modifiers: Vec::new(),
        annotations: Vec::new(),
        extends: None,
        implements: Vec::new(),
        per_clause: None,
        members: Vec::new(),
        annotation_style: false,
        span: pc.span,
    };
    let index = Index {
        aspects: vec![AspectEntry {
            file: 0,
            aspect: &aspect,
            qname: "<pointcut>".into(),
            parent: None,
            scope: scope.clone(),
        }],
    };
    let mut diags = Vec::new();
    let resolved = Resolver::new(&index, 0, false, &mut diags).resolve_top(pc, 0, &[]);
    (resolved, diags.into_iter().map(|(_, d)| d).collect())
}

/// What a named pointcut's parameter stands for while its body is inlined.
#[derive(Clone)]
enum Subst {
    Bind(usize),
    Type(TypePattern),
}

/// Inlines references and resolves names in one pointcut expression.
pub(crate) struct Resolver<'a, 'u> {
    pub index: &'a Index<'u>,
    /// The aspect whose pointcuts are looked up first (the concrete aspect).
    pub concrete: usize,
    /// Whether abstract pointcuts may stay unresolved (checking an abstract aspect).
    pub allow_abstract: bool,
    pub diags: &'a mut Vec<(usize, Diagnostic)>,
    stack: Vec<(usize, String)>,
    formal_types: Vec<JavaType>,
    /// Slots past the formals, bound for `if(..)` tests only ([`Resolver::hidden`]).
    hidden: Vec<Formal>,
    /// Nodes produced so far: inlining can grow a tree exponentially
    /// (`p2(): p1() || p1(); p3(): p2() || p2(); ...`), so it is bounded.
    nodes: usize,
}

/// The most nodes one resolved pointcut may have after inlining.
const MAX_NODES: usize = 10_000;
/// How deeply references to named pointcuts may nest.
const MAX_REFERENCE_DEPTH: usize = 64;

/// AspectJ designators that are outside the subset, with a note.
const UNSUPPORTED_DESIGNATORS: &[&str] = &["lock", "unlock", "thisAspectInstance"];

/// Every designator name, for "did you mean" hints.
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

/// Edit distance, for suggestions.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let v = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
            cur.push(v);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn suggest<'s>(name: &str, options: impl Iterator<Item = &'s str>) -> Option<String> {
    options
        .map(|o| (distance(&name.to_lowercase(), &o.to_lowercase()), o))
        .filter(|(d, o)| *d <= 2.max(o.len() / 3))
        .min()
        .map(|(_, o)| o.to_string())
}

impl<'a, 'u> Resolver<'a, 'u> {
    /// The diagnostic for `name(..)` that names no designator or pointcut.
    fn unknown_name(&self, from: usize, name: &str, span: Span, bad_args: bool) -> Diagnostic {
        let simple = name.rsplit('.').next().unwrap_or(name);
        if bad_args && self.index.find_pointcut(from, simple).is_some() {
            return Diagnostic::error(
                "pointcut::syntax",
                format!("malformed arguments to pointcut `{name}`"),
                span,
            )
            .with_label("arguments must be type names or formal names")
            .with_help("pass the formals of the enclosing pointcut or advice, or types");
        }
        let mut d = if UNSUPPORTED_DESIGNATORS.contains(&simple) {
            Diagnostic::error(
                "pointcut::unsupported-designator",
                format!("the designator `{name}` is not supported"),
                span,
            )
            .with_label("outside the supported subset of AspectJ")
        } else {
            Diagnostic::error(
                "pointcut::unknown-pointcut",
                format!("unknown pointcut or designator `{name}`"),
                span,
            )
            .with_label("no designator or named pointcut of this name")
        };
        let known: Vec<String> = self
            .index
            .chain(from)
            .into_iter()
            .flat_map(|a| {
                self.index.aspects[a]
                    .aspect
                    .pointcuts()
                    .map(|p| p.name.name.clone())
            })
            .collect();
        let options = DESIGNATORS
            .iter()
            .copied()
            .chain(known.iter().map(String::as_str));
        if let Some(s) = suggest(simple, options) {
            d = d.with_help(format!("did you mean `{s}`?"));
        }
        d
    }

    pub fn new(
        index: &'a Index<'u>,
        concrete: usize,
        allow_abstract: bool,
        diags: &'a mut Vec<(usize, Diagnostic)>,
    ) -> Self {
        Resolver {
            index,
            concrete,
            allow_abstract,
            diags,
            stack: Vec::new(),
            formal_types: Vec::new(),
            hidden: Vec::new(),
            nodes: 0,
        }
    }

    /// The slots past the formals that the last [`Resolver::resolve_top`]
    /// bound for `if(..)` tests alone: the parameters of named pointcuts
    /// referenced with `*` whose `if(..)` reads them (slot `formals + i`
    /// is the `i`th), with their declared types.
    pub fn hidden(&self) -> &[Formal] {
        &self.hidden
    }

    /// Resolves `pc`, written in aspect `lexical`, with formals `formals` occupying
    /// slots `0..`.
    pub fn resolve_top(&mut self, pc: &Pointcut, lexical: usize, formals: &[&Formal]) -> Pc {
        self.formal_types = formals.iter().map(|f| f.ty.clone()).collect();
        self.hidden.clear();
        let env: HashMap<String, Subst> = formals
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.name.clone(), Subst::Bind(i)))
            .collect();
        self.resolve(pc, lexical, &env)
    }

    fn error(&mut self, file: usize, d: Diagnostic) {
        self.diags.push((file, d));
    }

    fn ctx(&self, tp: &TypePattern, scope: &Scope, env: &HashMap<String, Subst>) -> Ctx {
        if let Some(id) = tp.as_identifier() {
            match env.get(id) {
                Some(Subst::Bind(slot)) => {
                    return Ctx::Bind {
                        slot: *slot,
                        span: tp.span,
                    }
                }
                Some(Subst::Type(t)) => return Ctx::Type(t.clone()),
                None => {}
            }
        }
        Ctx::Type(scope.resolve_type_pattern(tp))
    }

    fn args(
        &self,
        args: &[ArgPattern],
        scope: &Scope,
        env: &HashMap<String, Subst>,
    ) -> Vec<ArgCtx> {
        args.iter()
            .map(|a| match a {
                ArgPattern::Ellipsis(_) => ArgCtx::Ellipsis,
                ArgPattern::Type(t) => ArgCtx::Ctx(self.ctx(t, scope, env)),
            })
            .collect()
    }

    fn resolve(&mut self, pc: &Pointcut, lexical: usize, env: &HashMap<String, Subst>) -> Pc {
        let entry = &self.index.aspects[lexical];
        let file = entry.file;
        self.nodes += 1;
        if self.nodes == MAX_NODES {
            self.error(
                file,
                Diagnostic::error(
                    "pointcut::too-large",
                    format!("this pointcut grows past {MAX_NODES} nodes when named pointcuts are inlined"),
                    pc.span,
                )
                .with_label("inlined here"),
            );
        }
        if self.nodes >= MAX_NODES {
            return Pc {
                kind: PcKind::Never,
                span: pc.span,
                file,
            };
        }
        let scope = entry.scope.clone();
        let mk = |kind| Pc {
            kind,
            span: pc.span,
            file,
        };
        use PointcutKind as K;
        match &pc.kind {
            K::And(a, b) => {
                let (a, b) = (self.resolve(a, lexical, env), self.resolve(b, lexical, env));
                mk(PcKind::And(Box::new(a), Box::new(b)))
            }
            K::Or(a, b) => {
                let (a, b) = (self.resolve(a, lexical, env), self.resolve(b, lexical, env));
                mk(PcKind::Or(Box::new(a), Box::new(b)))
            }
            K::Not(a) => {
                let a = self.resolve(a, lexical, env);
                mk(PcKind::Not(Box::new(a)))
            }
            K::Call(s) => mk(PcKind::Call(scope.resolve_signature(s))),
            K::Execution(s) => mk(PcKind::Execution(scope.resolve_signature(s))),
            K::Get(f) => mk(PcKind::Get(scope.resolve_field(f))),
            K::Set(f) => mk(PcKind::Set(scope.resolve_field(f))),
            K::Initialization(s) => mk(PcKind::Initialization(scope.resolve_signature(s))),
            K::PreInitialization(s) => mk(PcKind::PreInitialization(scope.resolve_signature(s))),
            K::StaticInitialization(t) => {
                mk(PcKind::StaticInitialization(scope.resolve_type_pattern(t)))
            }
            K::Handler(t) => mk(PcKind::Handler(scope.resolve_type_pattern(t))),
            K::AdviceExecution => mk(PcKind::AdviceExecution),
            K::Within(t) => mk(PcKind::Within(scope.resolve_type_pattern(t))),
            K::WithinCode(s) => mk(PcKind::WithinCode(scope.resolve_signature(s))),
            K::This(t) => mk(PcKind::This(self.ctx(t, &scope, env))),
            K::Target(t) => mk(PcKind::Target(self.ctx(t, &scope, env))),
            K::Args(a) => mk(PcKind::Args(self.args(a, &scope, env))),
            K::AtAnnotation(t) => mk(PcKind::AtAnnotation(self.ctx(t, &scope, env))),
            K::AtWithin(t) => mk(PcKind::AtWithin(self.ctx(t, &scope, env))),
            K::AtWithinCode(t) => mk(PcKind::AtWithinCode(self.ctx(t, &scope, env))),
            K::AtThis(t) => mk(PcKind::AtThis(self.ctx(t, &scope, env))),
            K::AtTarget(t) => mk(PcKind::AtTarget(self.ctx(t, &scope, env))),
            K::AtArgs(a) => mk(PcKind::AtArgs(self.args(a, &scope, env))),
            K::Cflow(p) => {
                let p = self.resolve(p, lexical, env);
                mk(PcKind::Cflow(Box::new(p)))
            }
            K::CflowBelow(p) => {
                let p = self.resolve(p, lexical, env);
                mk(PcKind::CflowBelow(Box::new(p)))
            }
            K::If(e) => {
                let mut names: Vec<(String, usize)> = env
                    .iter()
                    .filter_map(|(n, s)| match s {
                        Subst::Bind(i) => Some((n.clone(), *i)),
                        Subst::Type(_) => None,
                    })
                    .collect();
                names.sort();
                mk(PcKind::If {
                    expr: e.text.trim().to_string(),
                    names,
                })
            }
            K::UnknownDesignator(id) => {
                let d = self.unknown_name(lexical, &id.name, id.span, true);
                self.error(file, d);
                mk(PcKind::Never)
            }
            K::Empty => mk(PcKind::Never),
            K::Reference(r) => self.reference(pc, r, lexical, env),
        }
    }

    fn reference(
        &mut self,
        pc: &Pointcut,
        r: &PointcutRef,
        lexical: usize,
        env: &HashMap<String, Subst>,
    ) -> Pc {
        let file = self.index.aspects[lexical].file;
        let never = Pc {
            kind: PcKind::Never,
            span: pc.span,
            file,
        };
        let (owner_name, pc_name) = match r.name.name.rfind('.') {
            Some(i) => (Some(&r.name.name[..i]), &r.name.name[i + 1..]),
            None => (None, r.name.name.as_str()),
        };
        let start = match owner_name {
            None => {
                // Virtual lookup: the concrete aspect first when the reference is
                // written in one of its ancestors.
                if self.index.chain(self.concrete).contains(&lexical) {
                    self.concrete
                } else {
                    lexical
                }
            }
            Some(o) => match self
                .index
                .find_aspect(o, &self.index.aspects[lexical].scope)
            {
                Some(a) => a,
                None => {
                    self.error(
                        file,
                        Diagnostic::error(
                            "pointcut::unknown-aspect",
                            format!("unknown aspect `{o}`"),
                            r.name.span,
                        )
                        .with_label("no aspect of this name is being compiled"),
                    );
                    return never;
                }
            },
        };
        let Some((decl_aspect, decl)) = self.index.find_pointcut(start, pc_name) else {
            let d = self.unknown_name(start, &r.name.name, r.name.span, false);
            self.error(file, d);
            return never;
        };
        if r.args.len() != decl.params.len() {
            self.error(
                file,
                Diagnostic::error(
                    "pointcut::arity",
                    format!(
                        "pointcut `{}` takes {} argument{}, but {} {} given",
                        decl.name.name,
                        decl.params.len(),
                        if decl.params.len() == 1 { "" } else { "s" },
                        r.args.len(),
                        if r.args.len() == 1 { "was" } else { "were" }
                    ),
                    pc.span,
                )
                .with_label("wrong number of arguments")
                .with_secondary_in(
                    self.index.aspects[decl_aspect].file == file,
                    decl.name.span,
                    "declared here",
                ),
            );
            return never;
        }
        // Arguments: formals of the caller bind; anything else is a type test.
        let scope = self.index.aspects[lexical].scope.clone();
        let mut callee_env: HashMap<String, Subst> = HashMap::new();
        let mut binds = Vec::new();
        for (param, arg) in decl.params.iter().zip(&r.args) {
            let subst = match arg {
                ArgPattern::Ellipsis(s) => {
                    self.error(
                        file,
                        Diagnostic::error(
                            "pointcut::syntax",
                            "`..` cannot be passed to a named pointcut",
                            *s,
                        )
                        .with_label("give a type or a formal name"),
                    );
                    Subst::Type(any_type(*s))
                }
                ArgPattern::Type(t) => match t.as_identifier().and_then(|id| env.get(id)) {
                    Some(s) => {
                        if let Subst::Bind(slot) = s {
                            binds.push((*slot, t.span));
                            if let Some(ft) = self.formal_types.get(*slot) {
                                if !compatible(ft, &param.ty) {
                                    let d = Diagnostic::error(
                                        "pointcut::binding-type",
                                        format!(
                                            "`{}` has type `{}`, but pointcut `{}` expects `{}`",
                                            t,
                                            crate::display::type_text(ft),
                                            decl.name.name,
                                            crate::display::type_text(&param.ty)
                                        ),
                                        t.span,
                                    )
                                    .with_label("type mismatch");
                                    self.error(file, d);
                                }
                            }
                        }
                        s.clone()
                    }
                    // `p(*)` where p's `if(..)` reads the parameter: the
                    // value is bound to a slot of its own, past the
                    // formals, that only the `if` reads (AspectJ evaluates
                    // it with the value whatever the reference passes).
                    None if t.is_any()
                        && decl
                            .expr
                            .as_ref()
                            .is_some_and(|e| if_reads(e, &param.name.name)) =>
                    {
                        let slot = self.formal_types.len() + self.hidden.len();
                        self.hidden.push(param.clone());
                        Subst::Bind(slot)
                    }
                    None => Subst::Type(scope.resolve_type_pattern(t)),
                },
            };
            callee_env.insert(param.name.name.clone(), subst);
        }
        let Some(body) = &decl.expr else {
            if !self.allow_abstract {
                // Reported once per concrete aspect by the checker.
                return never;
            }
            return Pc {
                kind: PcKind::Abstract {
                    name: decl.name.name.clone(),
                    binds,
                },
                span: pc.span,
                file,
            };
        };
        let key = (decl_aspect, decl.name.name.clone());
        if self.stack.len() >= MAX_REFERENCE_DEPTH {
            self.error(
                file,
                Diagnostic::error(
                    "pointcut::too-deep",
                    format!("named pointcuts refer to each other more than {MAX_REFERENCE_DEPTH} levels deep"),
                    r.name.span,
                )
                .with_label("too deep here"),
            );
            return never;
        }
        if self.stack.contains(&key) {
            self.error(
                file,
                Diagnostic::error(
                    "pointcut::cycle",
                    format!("pointcut `{}` refers to itself", decl.name.name),
                    r.name.span,
                )
                .with_label("this reference closes a cycle"),
            );
            return never;
        }
        self.stack.push(key);
        let mut inner = self.resolve(body, decl_aspect, &callee_env);
        self.stack.pop();
        // Bindings through a reference are reported at the reference's arguments.
        rebase_bind_spans(&mut inner, &binds, file);
        inner
    }
}

/// Whether an `if(..)` in `pc` may read `name` (written as a word not
/// after a `.`; conservative: a string literal counts too), directly or
/// by passing it on to another named pointcut.
fn if_reads(pc: &Pointcut, name: &str) -> bool {
    use PointcutKind as K;
    match &pc.kind {
        K::And(a, b) | K::Or(a, b) => if_reads(a, name) || if_reads(b, name),
        K::Not(a) | K::Cflow(a) | K::CflowBelow(a) => if_reads(a, name),
        K::If(e) => reads_word(&e.text, name),
        K::Reference(r) => r
            .args
            .iter()
            .any(|a| matches!(a, ArgPattern::Type(t) if t.as_identifier() == Some(name))),
        _ => false,
    }
}

/// Whether `text` has the identifier `name` as a whole word, not after `.`.
fn reads_word(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(name).any(|(at, _)| {
        let (before, after) = (&text[..at], &text[at + name.len()..]);
        !before.ends_with(ident) && !before.trim_end().ends_with('.') && !after.starts_with(ident)
    })
}

fn any_type(span: Span) -> TypePattern {
    TypePattern {
        kind: TypePatternKind::Named(NamedTypePattern {
            name: NamePattern::new("*"),
            subtypes: false,
            type_args: Vec::new(),
            dims: 0,
            varargs: false,
            candidates: Vec::new(),
            imported: Vec::new(),
        }),
        span,
    }
}

/// Points bindings made inside an inlined pointcut at the argument that passed the
/// formal in, so that a diagnostic is shown where the user wrote the formal.
fn rebase_bind_spans(pc: &mut Pc, binds: &[(usize, Span)], file: usize) {
    fn fix(c: &mut Ctx, binds: &[(usize, Span)]) -> bool {
        if let Ctx::Bind { slot, span } = c {
            if let Some((_, s)) = binds.iter().find(|(b, _)| b == slot) {
                *span = *s;
                return true;
            }
        }
        false
    }
    let mut moved = false;
    match &mut pc.kind {
        PcKind::And(a, b) | PcKind::Or(a, b) => {
            rebase_bind_spans(a, binds, file);
            rebase_bind_spans(b, binds, file);
        }
        PcKind::Not(a) | PcKind::Cflow(a) | PcKind::CflowBelow(a) => {
            rebase_bind_spans(a, binds, file)
        }
        PcKind::This(c)
        | PcKind::Target(c)
        | PcKind::AtAnnotation(c)
        | PcKind::AtWithin(c)
        | PcKind::AtWithinCode(c)
        | PcKind::AtThis(c)
        | PcKind::AtTarget(c) => moved = fix(c, binds),
        PcKind::Args(a) | PcKind::AtArgs(a) => {
            for x in a {
                if let ArgCtx::Ctx(c) = x {
                    moved |= fix(c, binds);
                }
            }
        }
        PcKind::Abstract { binds: inner, .. } => {
            for (slot, span) in inner {
                if let Some((_, s)) = binds.iter().find(|(b, _)| b == slot) {
                    *span = *s;
                    moved = true;
                }
            }
        }
        _ => {}
    }
    if moved {
        pc.file = file;
    }
}

/// Whether a formal of type `have` may be passed where a pointcut parameter of type
/// `want` is declared: primitives must agree exactly; reference types are left to
/// javac (no class hierarchy here), except `Object` which takes anything boxed.
fn compatible(have: &JavaType, want: &JavaType) -> bool {
    match (have.is_primitive(), want.is_primitive()) {
        (true, true) => have.name == want.name,
        (false, false) => true,
        (true, false) => matches!(want.name.as_str(), "Object" | "java.lang.Object"),
        (false, true) => false,
    }
}

trait SecondaryIn {
    fn with_secondary_in(self, same_file: bool, span: Span, label: &str) -> Self;
}

impl SecondaryIn for Diagnostic {
    fn with_secondary_in(self, same_file: bool, span: Span, label: &str) -> Self {
        if same_file {
            self.with_secondary(span, label)
        } else {
            self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_follow_java_precedence() {
        let s = Scope {
            package: Some("com.acme".into()),
            single: vec![("List".into(), "java.util.List".into())],
            on_demand: vec!["java.io".into()],
        };
        assert_eq!(s.candidates("List"), vec!["java/util/List"]);
        assert_eq!(
            s.candidates("Foo"),
            vec!["com/acme/Foo", "java/io/Foo", "java/lang/Foo"]
        );
        assert_eq!(s.candidates("int"), vec!["int"]);
        assert_eq!(s.candidates("List.Entry")[0], "java/util/List$Entry");
        assert!(s
            .candidates("java.util.Map.Entry")
            .contains(&"java/util/Map$Entry".to_string()));
    }

    #[test]
    fn suggestions() {
        assert_eq!(
            suggest("exection", DESIGNATORS.iter().copied()).as_deref(),
            Some("execution")
        );
        assert_eq!(suggest("zzzzzz", DESIGNATORS.iter().copied()), None);
    }
}
