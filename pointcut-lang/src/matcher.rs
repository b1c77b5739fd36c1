//! The matching API for the weaver. Patterns are compiled once (names resolved
//! against the [`TypeWorld`], globs split into segments) and then matched against
//! what the weaver reads from class files: internal names (`java/util/HashMap`),
//! JVM descriptors and access flags.
//!
//! - [`CompiledTypePattern`], [`CompiledSignature`], [`CompiledField`]: one pattern
//!   against one type, method/constructor or field.
//! - [`CompiledPointcut`]: a resolved pointcut against a join-point [`Shadow`],
//!   answering [`Fuzzy::Yes`], [`Fuzzy::No`] or [`Fuzzy::Maybe`] (a runtime test
//!   remains: `this`, `target`, `args`, `if`, `cflow`, ...).

use std::collections::HashMap;

use crate::descriptor::{self, GenericArg, GenericType, TypeRef};
use crate::patterns::*;
use crate::resolve::{ArgCtx, Ctx, Pc, PcKind};

/// `ACC_VARARGS`: a method whose last parameter is `T...`.
pub const ACC_VARARGS: u16 = 0x0080;
/// `ACC_INTERFACE`.
pub const ACC_INTERFACE: u16 = 0x0200;

/// What the weaver knows about the classes of the program, from its class-hierarchy
/// index. Names are JVM internal names.
pub trait TypeWorld {
    /// Whether a class of this name exists (used to pick the right reading of an
    /// imported or nested type name).
    fn exists(&self, internal_name: &str) -> bool;

    /// Every proper supertype of a class (super classes and interfaces, transitively).
    fn super_types(&self, internal_name: &str) -> Vec<String>;

    /// Whether `sub` is `sup` or one of its subtypes.
    fn is_subtype(&self, sub: &str, sup: &str) -> bool {
        sub == sup || self.super_types(sub).iter().any(|s| s == sup)
    }

    /// Whether class `owner` itself declares the method `name` `descriptor` (used so
    /// that `execution(* java.util.List.add(..))` also matches `ArrayList.add`).
    fn declares_method(&self, owner: &str, name: &str, descriptor: &str) -> bool;

    /// Whether a class is nested in another (member, local or anonymous class),
    /// as its `InnerClasses` attribute says. Wildcard type patterns see a
    /// nested class's name with `.` for each `$` (`Outer.Inner`), and a
    /// top-level class whose name has a `$` with its `$`, as ajc does. By
    /// default: the part before its last `$` names a class.
    fn is_nested(&self, internal_name: &str) -> bool {
        internal_name
            .rfind('$')
            .is_some_and(|i| i > 0 && self.exists(&internal_name[..i]))
    }

    /// The generic signature (`Signature` attribute) of the method `name`
    /// `descriptor` declared by `owner` or, if it does not declare it, by the
    /// nearest supertype that does; `None` for a method without one (no
    /// generic types in its declaration). Used to match parameterized patterns.
    fn method_signature(&self, _owner: &str, _name: &str, _descriptor: &str) -> Option<String> {
        None
    }

    /// The generic signature (`Signature` attribute) of a class, if any:
    /// its type parameters and the type arguments it gives its supertypes.
    fn class_signature(&self, _internal_name: &str) -> Option<String> {
        None
    }

    /// The methods named `name` that `owner` itself declares: descriptor,
    /// generic signature and access flags. Empty by default (then only
    /// [`TypeWorld::declares_method`] is asked).
    fn methods_named(&self, _owner: &str, _name: &str) -> Vec<(String, Option<String>, u16)> {
        Vec::new()
    }

    /// The annotations (internal names) of a class, for annotated type patterns
    /// applied to types other than the one in a [`ClassView`]. None by default.
    fn class_annotations(&self, _internal_name: &str) -> Vec<String> {
        Vec::new()
    }
}

/// A class as the weaver sees it.
#[derive(Debug, Clone, Copy)]
pub struct ClassView<'a> {
    /// Internal name, `java/util/HashMap`.
    pub name: &'a str,
    /// Access flags (`ACC_PUBLIC`, `ACC_INTERFACE`, ...).
    pub access: u16,
    /// Annotation types, as internal names or descriptors.
    pub annotations: &'a [&'a str],
}

/// A method, constructor (`<init>`), static initializer (`<clinit>`) or field.
#[derive(Debug, Clone, Copy)]
pub struct MemberView<'a> {
    /// Name.
    pub name: &'a str,
    /// JVM descriptor: `(ILjava/lang/String;)V` or, for a field, `I`.
    pub descriptor: &'a str,
    /// Access flags.
    pub access: u16,
    /// Annotation types, as internal names or descriptors.
    pub annotations: &'a [&'a str],
    /// Declared exceptions (internal names); empty for fields.
    pub exceptions: &'a [&'a str],
}

/// A simple [`TypeWorld`] over explicitly listed classes (tests, tools).
#[derive(Debug, Clone, Default)]
pub struct SimpleWorld {
    classes: HashMap<String, SimpleClass>,
    signatures: HashMap<(String, String, String), String>,
    class_signatures: HashMap<String, String>,
}

/// One class of a [`SimpleWorld`]: direct supertypes, methods, annotations.
#[derive(Debug, Clone, Default)]
struct SimpleClass {
    supers: Vec<String>,
    methods: Vec<(String, String)>,
    annotations: Vec<String>,
}

impl SimpleWorld {
    /// An empty world.
    pub fn new() -> SimpleWorld {
        SimpleWorld::default()
    }

    /// Adds a class with its direct supertypes and declared methods (name, descriptor).
    pub fn add(
        &mut self,
        name: &str,
        direct_supers: &[&str],
        methods: &[(&str, &str)],
    ) -> &mut Self {
        self.classes.insert(
            name.to_string(),
            SimpleClass {
                supers: direct_supers.iter().map(|s| s.to_string()).collect(),
                methods: methods
                    .iter()
                    .map(|(n, d)| (n.to_string(), d.to_string()))
                    .collect(),
                annotations: Vec::new(),
            },
        );
        self
    }

    /// Gives the method `name` `descriptor` of `owner` a generic signature.
    pub fn signature(
        &mut self,
        owner: &str,
        name: &str,
        descriptor: &str,
        signature: &str,
    ) -> &mut Self {
        self.signatures.insert(
            (owner.to_string(), name.to_string(), descriptor.to_string()),
            signature.to_string(),
        );
        self
    }

    /// Gives a class a generic signature.
    pub fn class_signature(&mut self, name: &str, signature: &str) -> &mut Self {
        self.class_signatures
            .insert(name.to_string(), signature.to_string());
        self
    }

    /// Sets the annotations of a class already added.
    pub fn annotate(&mut self, name: &str, annotations: &[&str]) -> &mut Self {
        if let Some(c) = self.classes.get_mut(name) {
            c.annotations = annotations.iter().map(|s| s.to_string()).collect();
        }
        self
    }
}

impl TypeWorld for SimpleWorld {
    fn exists(&self, name: &str) -> bool {
        self.classes.contains_key(name)
    }

    fn super_types(&self, name: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut todo = vec![name.to_string()];
        while let Some(n) = todo.pop() {
            if let Some(c) = self.classes.get(&n) {
                for s in &c.supers {
                    if !out.contains(s) && s != name {
                        out.push(s.clone());
                        todo.push(s.clone());
                    }
                }
            }
        }
        if name != "java/lang/Object" && !out.iter().any(|s| s == "java/lang/Object") {
            out.push("java/lang/Object".to_string());
        }
        out
    }

    fn declares_method(&self, owner: &str, name: &str, descriptor: &str) -> bool {
        self.classes
            .get(owner)
            .is_some_and(|c| c.methods.iter().any(|(n, d)| n == name && d == descriptor))
    }

    fn method_signature(&self, owner: &str, name: &str, descriptor: &str) -> Option<String> {
        std::iter::once(owner.to_string())
            .chain(self.super_types(owner))
            .find_map(|c| {
                self.signatures
                    .get(&(c, name.to_string(), descriptor.to_string()))
                    .cloned()
            })
    }

    fn class_signature(&self, name: &str) -> Option<String> {
        self.class_signatures.get(name).cloned()
    }

    fn methods_named(&self, owner: &str, name: &str) -> Vec<(String, Option<String>, u16)> {
        self.classes
            .get(owner)
            .map(|c| {
                c.methods
                    .iter()
                    .filter(|(n, _)| n == name)
                    .map(|(n, d)| {
                        let sig = self
                            .signatures
                            .get(&(owner.to_string(), n.clone(), d.clone()))
                            .cloned();
                        (d.clone(), sig, 0x0001)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn class_annotations(&self, name: &str) -> Vec<String> {
        self.classes
            .get(name)
            .map(|c| c.annotations.clone())
            .unwrap_or_default()
    }
}

// ------------------------------------------------------------------ names

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Seg(String),
    AnyPackages,
}

/// A compiled dotted name glob (`java.util.*Map`, `com..*`).
#[derive(Debug, Clone, PartialEq)]
enum NameMatcher {
    Any,
    Exact(String),
    Glob(Vec<Part>),
}

impl NameMatcher {
    fn compile(text: &str) -> NameMatcher {
        if text == "*" {
            return NameMatcher::Any;
        }
        if !text.contains('*') && !text.contains("..") {
            return NameMatcher::Exact(text.to_string());
        }
        let mut parts = Vec::new();
        for piece in text.split('.') {
            if piece.is_empty() {
                parts.push(Part::AnyPackages);
            } else {
                parts.push(Part::Seg(piece.to_string()));
            }
        }
        NameMatcher::Glob(parts)
    }

    /// Matches a simple name (method or field name): no dots involved.
    fn matches_simple(&self, name: &str) -> bool {
        match self {
            NameMatcher::Any => true,
            NameMatcher::Exact(e) => e == name,
            NameMatcher::Glob(parts) => match parts.as_slice() {
                [Part::Seg(g)] => glob_match(g, name),
                _ => false,
            },
        }
    }

    /// Matches a dotted qualified name split into segments.
    fn matches_segments(&self, segs: &[&str]) -> bool {
        fn go(parts: &[Part], segs: &[&str]) -> bool {
            match parts.split_first() {
                None => segs.is_empty(),
                Some((Part::Seg(g), rest)) => {
                    !segs.is_empty() && glob_match(g, segs[0]) && go(rest, &segs[1..])
                }
                Some((Part::AnyPackages, rest)) => (0..=segs.len()).any(|k| go(rest, &segs[k..])),
            }
        }
        match self {
            NameMatcher::Any => true,
            NameMatcher::Exact(e) => e.split('.').eq(segs.iter().copied()),
            NameMatcher::Glob(parts) => go(parts, segs),
        }
    }
}

/// Whether a wildcard name matches `internal_name` through the aspect's package
/// and imports, as ajc tries it: with the package of an `imported` package
/// (ending in `/`) taken off the front (`*.Inner` in package `app` matches
/// `app.Outer.Inner`), or, for a single-type import, by its simple name.
fn by_import(
    name: &NameMatcher,
    imported: &[String],
    internal_name: &str,
    world: &dyn TypeWorld,
) -> bool {
    imported.iter().any(|p| {
        if p.ends_with('/') {
            internal_name.starts_with(p.as_str()) && {
                let segs = segments(internal_name, world);
                let package_parts = p.matches('/').count();
                name.matches_segments(&segs[package_parts.min(segs.len())..])
            }
        } else {
            p == internal_name
                && segments(internal_name, world)
                    .last()
                    .is_some_and(|simple| name.matches_simple(simple))
        }
    })
}

/// Splits an internal name into the segments a dotted pattern sees: the
/// package parts, then the class name, split at each `$` only for a nested
/// class (`java/util/Map$Entry` → `java`, `util`, `Map`, `Entry`; a top-level
/// `p/A$B` → `p`, `A$B`).
fn segments<'n>(internal_name: &'n str, world: &dyn TypeWorld) -> Vec<&'n str> {
    if internal_name.contains('$') && world.is_nested(internal_name) {
        internal_name.split(['/', '$']).collect()
    } else {
        internal_name.split('/').collect()
    }
}

// ------------------------------------------------------------------ type patterns

#[derive(Debug, Clone)]
enum Tp {
    /// `*` with `dims` (0: any type at all).
    Any {
        dims: u8,
    },
    /// An exact resolved name.
    Exact {
        name: String,
        dims: u8,
        subtypes: bool,
    },
    /// A wildcard name.
    Glob {
        name: NameMatcher,
        dims: u8,
        subtypes: bool,
        /// Packages (`p/`) and single-type imports a simple-name glob also sees.
        imported: Vec<String>,
    },
    Not(Box<Tp>),
    And(Box<Tp>, Box<Tp>),
    Or(Box<Tp>, Box<Tp>),
    Annotated(Vec<CompiledAnnotation>, Box<Tp>),
    /// `List<String>`: the raw pattern and the type arguments. Alone it
    /// matches by erasure; a signature's parameters and return type are
    /// matched with their generic types ([`match_generic`]).
    Parameterized(Box<Tp>, Vec<TpArg>),
}

/// A compiled type argument.
#[derive(Debug, Clone)]
enum TpArg {
    Type(Tp),
    /// `?` (`None`), `? extends T` (`true`), `? super T` (`false`).
    Wildcard(Option<(bool, Tp)>),
}

/// A compiled annotation pattern.
#[derive(Debug, Clone)]
struct CompiledAnnotation {
    negated: bool,
    ty: Tp,
}

/// A type pattern compiled for matching.
#[derive(Debug, Clone)]
pub struct CompiledTypePattern(Tp);

/// The best reading of an exact name: the first candidate the world knows.
fn pick(n: &NamedTypePattern, world: &dyn TypeWorld) -> String {
    if n.candidates.is_empty() {
        return n.name.text.replace('.', "/");
    }
    // A `.` read as `$` (`Outer.Inner` → `Outer$Inner`) names a nested
    // class, never a top-level class with a `$` in its name.
    let written = n.name.text.matches('$').count();
    n.candidates
        .iter()
        .find(|c| {
            is_primitive(c)
                || (world.exists(c) && (c.matches('$').count() <= written || world.is_nested(c)))
        })
        .unwrap_or(&n.candidates[0])
        .clone()
}

fn compile_tp(t: &TypePattern, world: &dyn TypeWorld) -> Tp {
    match &t.kind {
        TypePatternKind::Named(n) if !n.type_args.is_empty() => {
            let mut raw = n.clone();
            raw.type_args.clear();
            let base = compile_tp(
                &TypePattern {
                    kind: TypePatternKind::Named(raw),
                    span: t.span,
                },
                world,
            );
            let args = n
                .type_args
                .iter()
                .map(|a| match a {
                    TypeArgPattern::Type(t) => TpArg::Type(compile_tp(t, world)),
                    TypeArgPattern::Wildcard { bound } => TpArg::Wildcard(
                        bound
                            .as_ref()
                            .map(|(upper, t)| (*upper, compile_tp(t, world))),
                    ),
                })
                .collect();
            Tp::Parameterized(Box::new(base), args)
        }
        TypePatternKind::Named(n) => {
            let dims = n.dims + u8::from(n.varargs);
            if n.name.is_any() {
                Tp::Any { dims }
            } else if n.name.is_exact() {
                Tp::Exact {
                    name: pick(n, world),
                    dims,
                    subtypes: n.subtypes,
                }
            } else {
                Tp::Glob {
                    name: NameMatcher::compile(&n.name.text),
                    dims,
                    subtypes: n.subtypes,
                    imported: n.imported.clone(),
                }
            }
        }
        TypePatternKind::Not(a) => Tp::Not(Box::new(compile_tp(a, world))),
        TypePatternKind::And(a, b) => Tp::And(
            Box::new(compile_tp(a, world)),
            Box::new(compile_tp(b, world)),
        ),
        TypePatternKind::Or(a, b) => Tp::Or(
            Box::new(compile_tp(a, world)),
            Box::new(compile_tp(b, world)),
        ),
        TypePatternKind::Annotated(anns, inner) => Tp::Annotated(
            compile_annotations(anns, world),
            Box::new(compile_tp(inner, world)),
        ),
    }
}

fn compile_annotations(
    anns: &[AnnotationPattern],
    world: &dyn TypeWorld,
) -> Vec<CompiledAnnotation> {
    anns.iter()
        .map(|a| CompiledAnnotation {
            negated: a.negated,
            ty: compile_tp(&a.ty, world),
        })
        .collect()
}

/// The annotations of a type being matched: known from a [`ClassView`], or asked of
/// the world on demand.
#[derive(Clone, Copy)]
enum Annots<'a> {
    Known(&'a [&'a str]),
    Ask,
}

fn annotations_match(anns: &[CompiledAnnotation], have: &[&str], world: &dyn TypeWorld) -> bool {
    anns.iter().all(|a| {
        let any = have.iter().any(|h| {
            match_tp(
                &a.ty,
                TypeRef::class(descriptor::annotation_name(h)),
                Annots::Known(&[]),
                world,
            )
        });
        any != a.negated
    })
}

fn match_tp(tp: &Tp, t: TypeRef<'_>, annots: Annots<'_>, world: &dyn TypeWorld) -> bool {
    match tp {
        Tp::Any { dims } => *dims == 0 || *dims == t.dims,
        Tp::Exact {
            name,
            dims,
            subtypes,
        } => {
            if *dims != t.dims {
                return false;
            }
            if name == t.name {
                return true;
            }
            *subtypes
                && !is_primitive(t.name)
                && (name == "java/lang/Object" || world.is_subtype(t.name, name))
        }
        Tp::Glob {
            name,
            dims,
            subtypes,
            imported,
        } => {
            if *dims != t.dims {
                return false;
            }
            if name.matches_segments(&segments(t.name, world))
                || by_import(name, imported, t.name, world)
            {
                return true;
            }
            *subtypes
                && !is_primitive(t.name)
                && world
                    .super_types(t.name)
                    .iter()
                    .any(|s| name.matches_segments(&segments(s, world)))
        }
        Tp::Parameterized(base, _) => match_tp(base, t, annots, world),
        Tp::Not(a) => !match_tp(a, t, annots, world),
        Tp::And(a, b) => match_tp(a, t, annots, world) && match_tp(b, t, annots, world),
        Tp::Or(a, b) => match_tp(a, t, annots, world) || match_tp(b, t, annots, world),
        Tp::Annotated(anns, inner) => {
            if !match_tp(inner, t, annots, world) {
                return false;
            }
            match annots {
                Annots::Known(have) => annotations_match(anns, have, world),
                Annots::Ask => {
                    let owned = world.class_annotations(t.name);
                    let have: Vec<&str> = owned.iter().map(String::as_str).collect();
                    annotations_match(anns, &have, world)
                }
            }
        }
    }
}

/// Whether a pattern matches a type known with its generic form `g` (from a
/// signature): as [`match_tp`], except that a parameterized pattern matches
/// only the same parameterization (`List<String>` neither a raw `List` nor a
/// `List<? extends Number>`; `List<*>` any parameterized `List`), as in ajc.
fn match_generic(tp: &Tp, g: &GenericType, world: &dyn TypeWorld) -> bool {
    match tp {
        Tp::Parameterized(base, args) => {
            match_tp(base, g.erased(), Annots::Ask, world)
                && !g.type_var
                && g.args.len() == args.len()
                && args
                    .iter()
                    .zip(&g.args)
                    .all(|(p, a)| match_arg(p, a, world))
        }
        Tp::Not(a) => !match_generic(a, g, world),
        Tp::And(a, b) => match_generic(a, g, world) && match_generic(b, g, world),
        Tp::Or(a, b) => match_generic(a, g, world) || match_generic(b, g, world),
        Tp::Annotated(_, inner) => {
            match_tp(tp, g.erased(), Annots::Ask, world) && match_generic(inner, g, world)
        }
        _ => match_tp(tp, g.erased(), Annots::Ask, world),
    }
}

fn match_arg(p: &TpArg, a: &GenericArg, world: &dyn TypeWorld) -> bool {
    match (p, a) {
        (TpArg::Type(Tp::Any { dims: 0 }), _) => true,
        (TpArg::Type(t), GenericArg::Type(g)) => match_generic(t, g, world),
        (TpArg::Wildcard(None), GenericArg::Any) => true,
        (TpArg::Wildcard(Some((true, t))), GenericArg::Extends(g))
        | (TpArg::Wildcard(Some((false, t))), GenericArg::Super(g)) => match_generic(t, g, world),
        _ => false,
    }
}

/// Whether a pattern has type arguments anywhere (then a signature's generic
/// types are needed to match it).
fn has_type_args(tp: &Tp) -> bool {
    match tp {
        Tp::Parameterized(..) => true,
        Tp::Not(a) | Tp::Annotated(_, a) => has_type_args(a),
        Tp::And(a, b) | Tp::Or(a, b) => has_type_args(a) || has_type_args(b),
        _ => false,
    }
}

/// A descriptor type as a generic type without type arguments (a member
/// without a `Signature` attribute).
fn raw_generic(t: TypeRef<'_>) -> GenericType {
    GenericType {
        name: t.name.to_string(),
        type_var: false,
        dims: t.dims,
        args: Vec::new(),
    }
}

impl CompiledTypePattern {
    /// Compiles a (resolved) type pattern.
    pub fn compile(t: &TypePattern, world: &dyn TypeWorld) -> CompiledTypePattern {
        CompiledTypePattern(compile_tp(t, world))
    }

    /// Whether the class matches (with its own annotations).
    pub fn matches_class(&self, class: &ClassView<'_>, world: &dyn TypeWorld) -> bool {
        match_tp(
            &self.0,
            TypeRef::class(class.name),
            Annots::Known(class.annotations),
            world,
        )
    }

    /// Whether a type (internal name or primitive keyword, with dimensions) matches.
    pub fn matches_type(&self, t: TypeRef<'_>, world: &dyn TypeWorld) -> bool {
        match_tp(&self.0, t, Annots::Ask, world)
    }

    /// Whether a type given as a field descriptor (`Ljava/lang/String;`, `[I`) matches.
    pub fn matches_descriptor(&self, d: &str, world: &dyn TypeWorld) -> bool {
        descriptor::field_type(d).is_some_and(|t| self.matches_type(t, world))
    }

    /// Whether this is `*` (matches everything).
    pub fn is_any(&self) -> bool {
        matches!(self.0, Tp::Any { dims: 0 })
    }
}

// ------------------------------------------------------------------ signatures

#[derive(Debug, Clone)]
enum Param {
    Ellipsis,
    Type(Tp),
}

fn compile_params(ps: &[ArgPattern], world: &dyn TypeWorld) -> Vec<Param> {
    ps.iter()
        .map(|p| match p {
            ArgPattern::Ellipsis(_) => Param::Ellipsis,
            ArgPattern::Type(t) => Param::Type(compile_tp(t, world)),
        })
        .collect()
}

fn params_match(ps: &[Param], ts: &[TypeRef<'_>], world: &dyn TypeWorld) -> bool {
    match ps.split_first() {
        None => ts.is_empty(),
        Some((Param::Ellipsis, rest)) => {
            (0..=ts.len()).any(|k| params_match(rest, &ts[k..], world))
        }
        Some((Param::Type(tp), rest)) => {
            !ts.is_empty()
                && match_tp(tp, ts[0], Annots::Ask, world)
                && params_match(rest, &ts[1..], world)
        }
    }
}

fn generic_params_match(ps: &[Param], ts: &[GenericType], world: &dyn TypeWorld) -> bool {
    match ps.split_first() {
        None => ts.is_empty(),
        Some((Param::Ellipsis, rest)) => {
            (0..=ts.len()).any(|k| generic_params_match(rest, &ts[k..], world))
        }
        Some((Param::Type(tp), rest)) => {
            !ts.is_empty()
                && match_generic(tp, &ts[0], world)
                && generic_params_match(rest, &ts[1..], world)
        }
    }
}

/// A method or constructor signature pattern compiled for matching.
#[derive(Debug, Clone)]
pub struct CompiledSignature {
    kind: SignatureKind,
    annotations: Vec<CompiledAnnotation>,
    modifiers: ModifierPattern,
    ret: Option<Tp>,
    decl: Option<Tp>,
    name: NameMatcher,
    params: Vec<Param>,
    /// `Some(true)` when the last parameter pattern is `T...` (only varargs
    /// methods match), `Some(false)` when it is an array `T[]` (varargs methods
    /// do not match, as in AspectJ).
    varargs: Option<bool>,
    throws: Vec<(bool, Tp)>,
    /// Whether the return or a parameter pattern has type arguments.
    generic: bool,
}

impl CompiledSignature {
    /// Compiles a (resolved) signature pattern.
    pub fn compile(s: &SignaturePattern, world: &dyn TypeWorld) -> CompiledSignature {
        CompiledSignature {
            kind: s.kind,
            annotations: compile_annotations(&s.annotations, world),
            modifiers: s.modifiers,
            ret: s.return_type.as_ref().map(|t| compile_tp(t, world)),
            decl: s.declaring_type.as_ref().map(|t| compile_tp(t, world)),
            name: NameMatcher::compile(&s.name.text),
            params: compile_params(&s.params, world),
            varargs: match s.params.last() {
                Some(ArgPattern::Type(TypePattern {
                    kind: TypePatternKind::Named(n),
                    ..
                })) if n.varargs => Some(true),
                Some(ArgPattern::Type(TypePattern {
                    kind: TypePatternKind::Named(n),
                    ..
                })) if n.dims > 0 => Some(false),
                _ => None,
            },
            throws: s
                .throws
                .iter()
                .map(|t| (t.negated, compile_tp(&t.ty, world)))
                .collect(),
            generic: false,
        }
        .with_generic_flag()
    }

    fn with_generic_flag(mut self) -> Self {
        self.generic = self.ret.as_ref().is_some_and(has_type_args)
            || self
                .params
                .iter()
                .any(|p| matches!(p, Param::Type(t) if has_type_args(t)));
        self
    }

    /// Whether `member`, declared in `class`, matches. For methods, the declaring
    /// type pattern may also match a supertype that declares the same method (an
    /// overridden or implemented method has that signature too).
    pub fn matches(
        &self,
        class: &ClassView<'_>,
        member: &MemberView<'_>,
        world: &dyn TypeWorld,
    ) -> bool {
        let is_ctor = member.name == "<init>";
        match self.kind {
            SignatureKind::Constructor if !is_ctor => return false,
            SignatureKind::Method if is_ctor || member.name == "<clinit>" => return false,
            SignatureKind::Method if !self.name.matches_simple(member.name) => return false,
            _ => {}
        }
        if !self.modifiers.matches(member.access) {
            return false;
        }
        if self
            .varargs
            .is_some_and(|v| v != (member.access & ACC_VARARGS != 0))
        {
            return false;
        }
        if !annotations_match(&self.annotations, member.annotations, world) {
            return false;
        }
        for (negated, tp) in &self.throws {
            let any = member
                .exceptions
                .iter()
                .any(|e| match_tp(tp, TypeRef::class(e), Annots::Ask, world));
            if any == *negated {
                return false;
            }
        }
        let own_generic = || {
            world
                .method_signature(class.name, member.name, member.descriptor)
                .and_then(|g| descriptor::method_signature(&g))
        };
        if self.signature_matches(
            class.name,
            Annots::Known(class.annotations),
            member.descriptor,
            &own_generic,
            world,
        ) {
            return true;
        }
        // The signatures of overridden methods: not for constructors, static
        // or private methods.
        if is_ctor || member.access & 0x000A != 0 {
            return false;
        }
        other_signatures(class.name, member.name, member.descriptor, world)
            .iter()
            .any(|(owner, d)| self.signature_matches(owner, Annots::Ask, d, &|| None, world))
    }

    /// Return type, parameters and declaring type against one signature of a
    /// member: declared by `owner`, with descriptor `d` (and, for the
    /// member's own signature, its generic types).
    fn signature_matches(
        &self,
        owner: &str,
        annots: Annots<'_>,
        d: &str,
        generic: &dyn Fn() -> Option<(Vec<GenericType>, GenericType)>,
        world: &dyn TypeWorld,
    ) -> bool {
        // `(..)`: any parameters; the descriptor is only checked, its
        // parameters not listed (most call and execution patterns).
        if !self.generic && matches!(self.params.as_slice(), [Param::Ellipsis]) {
            let Some(ret) = descriptor::method_return(d) else {
                return false;
            };
            if let Some(r) = &self.ret {
                if !match_tp(r, ret, Annots::Ask, world) {
                    return false;
                }
            }
            return self
                .decl
                .as_ref()
                .is_none_or(|t| match_tp(t, TypeRef::class(owner), annots, world));
        }
        let Some((params, ret)) = descriptor::method_types(d) else {
            return false;
        };
        if self.generic {
            // Parameterized patterns see the declaration's generic types.
            let (gparams, gret) = generic()
                .filter(|(g, _)| g.len() == params.len())
                .unwrap_or_else(|| {
                    (
                        params.iter().map(|t| raw_generic(*t)).collect(),
                        raw_generic(ret),
                    )
                });
            if self
                .ret
                .as_ref()
                .is_some_and(|r| !match_generic(r, &gret, world))
            {
                return false;
            }
            if !generic_params_match(&self.params, &gparams, world) {
                return false;
            }
        } else {
            if let Some(r) = &self.ret {
                if !match_tp(r, ret, Annots::Ask, world) {
                    return false;
                }
            }
            if !params_match(&self.params, &params, world) {
                return false;
            }
        }
        self.decl
            .as_ref()
            .is_none_or(|t| match_tp(t, TypeRef::class(owner), annots, world))
    }
}

/// The parameter list of a descriptor: `(I)V` → `(I)`.
fn params_part(d: &str) -> &str {
    d.find(')').map_or(d, |i| &d[..=i])
}

const ACC_BRIDGE: u16 = 0x0040;

/// The other signatures AspectJ gives an instance method `name` `d` seen in
/// class `class` (besides its own): for a method `class` declares, every
/// supertype method it overrides (same parameters erased, or after the
/// supertype's type variables are replaced by the arguments `class` gives
/// them), both erased and parameterized (`Function.apply(Object)` and
/// `Function.apply(Integer)` for `Doubler implements Function<Integer,
/// Integer>`), and a covariant return counts; for an inherited method only
/// the parameterized forms (`IntBox extends Box<Integer>`: `put(4)` is
/// `IntBox.put(Integer)` and `Box.put(Integer)`, not `Box.put(Object)`).
fn other_signatures(
    class: &str,
    name: &str,
    d: &str,
    world: &dyn TypeWorld,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut push = |owner: &str, desc: String| {
        if !out.iter().any(|(o, x)| o == owner && *x == desc) {
            out.push((owner.to_string(), desc));
        }
    };
    let declares = |c: &str| {
        let named = world.methods_named(c, name);
        if named.is_empty() {
            world.declares_method(c, name, d)
        } else {
            named.iter().any(|(x, _, _)| x == d)
        }
    };
    let supers = world.super_types(class);
    let declares_here = declares(class);
    let mut own = d.to_string();
    if !declares_here {
        // Inherited: its parameterized form, declared by `class` too.
        let declaring = supers.iter().find_map(|s| {
            world
                .methods_named(s, name)
                .into_iter()
                .find(|(x, _, _)| x == d)
                .map(|(_, sig, _)| (s, sig))
        });
        if let Some((s, Some(sig))) = declaring {
            if let Some(seen) = crate::generics::seen_from(class, s, &sig, world) {
                own = seen;
                push(class, own.clone());
            }
        }
    }
    for s in &supers {
        let named = world.methods_named(s, name);
        if named.is_empty() {
            if world.declares_method(s, name, d) {
                push(s, d.to_string());
            }
            continue;
        }
        for (e, sig, access) in named {
            if access & (0x000A | ACC_BRIDGE) != 0 {
                continue;
            }
            let seen = sig
                .and_then(|g| crate::generics::seen_from(class, s, &g, world))
                .unwrap_or_else(|| e.clone());
            if declares_here {
                if params_part(&seen) == params_part(d) || params_part(&e) == params_part(d) {
                    push(s, e);
                    push(s, seen);
                }
            } else if e == d || params_part(&seen) == params_part(&own) {
                push(s, seen);
            }
        }
    }
    out
}

/// A field signature pattern compiled for matching.
#[derive(Debug, Clone)]
pub struct CompiledField {
    annotations: Vec<CompiledAnnotation>,
    modifiers: ModifierPattern,
    ty: Tp,
    decl: Option<Tp>,
    name: NameMatcher,
}

impl CompiledField {
    /// Compiles a (resolved) field pattern.
    pub fn compile(f: &FieldPattern, world: &dyn TypeWorld) -> CompiledField {
        CompiledField {
            annotations: compile_annotations(&f.annotations, world),
            modifiers: f.modifiers,
            ty: compile_tp(&f.field_type, world),
            decl: f.declaring_type.as_ref().map(|t| compile_tp(t, world)),
            name: NameMatcher::compile(&f.name.text),
        }
    }

    /// Whether the field `member` of `class` matches.
    pub fn matches(
        &self,
        class: &ClassView<'_>,
        member: &MemberView<'_>,
        world: &dyn TypeWorld,
    ) -> bool {
        self.name.matches_simple(member.name)
            && self.modifiers.matches(member.access)
            && descriptor::field_type(member.descriptor)
                .is_some_and(|t| match_tp(&self.ty, t, Annots::Ask, world))
            && annotations_match(&self.annotations, member.annotations, world)
            && self.decl.as_ref().is_none_or(|d| {
                match_tp(
                    d,
                    TypeRef::class(class.name),
                    Annots::Known(class.annotations),
                    world,
                )
            })
    }
}

// ------------------------------------------------------------------ pointcuts

/// Three-valued static match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fuzzy {
    /// Matches at every execution of the shadow.
    Yes,
    /// Never matches here.
    No,
    /// Matches depending on a runtime test.
    Maybe,
}

impl Fuzzy {
    fn of(b: bool) -> Fuzzy {
        if b {
            Fuzzy::Yes
        } else {
            Fuzzy::No
        }
    }

    fn and(self, o: Fuzzy) -> Fuzzy {
        match (self, o) {
            (Fuzzy::No, _) | (_, Fuzzy::No) => Fuzzy::No,
            (Fuzzy::Yes, Fuzzy::Yes) => Fuzzy::Yes,
            _ => Fuzzy::Maybe,
        }
    }

    fn or(self, o: Fuzzy) -> Fuzzy {
        match (self, o) {
            (Fuzzy::Yes, _) | (_, Fuzzy::Yes) => Fuzzy::Yes,
            (Fuzzy::No, Fuzzy::No) => Fuzzy::No,
            _ => Fuzzy::Maybe,
        }
    }

    fn not(self) -> Fuzzy {
        match self {
            Fuzzy::Yes => Fuzzy::No,
            Fuzzy::No => Fuzzy::Yes,
            Fuzzy::Maybe => Fuzzy::Maybe,
        }
    }
}

/// The kinds of join-point shadow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShadowKind {
    /// An `invoke*` of a method.
    MethodCall,
    /// `new C(..)`: the `invokespecial <init>` after a `new`.
    ConstructorCall,
    /// The body of a method.
    MethodExecution,
    /// The body of a constructor (after the super/this call).
    ConstructorExecution,
    /// `getfield`/`getstatic`.
    FieldGet,
    /// `putfield`/`putstatic`.
    FieldSet,
    /// `<clinit>`.
    StaticInitialization,
    /// Object initialization (constructor from after super() returns).
    Initialization,
    /// Before the super/this constructor call.
    PreInitialization,
    /// An exception handler entry.
    ExceptionHandler,
    /// The body of an advice method.
    AdviceExecution,
}

/// A join-point shadow: where in the code, and what it is about.
#[derive(Debug, Clone, Copy)]
pub struct Shadow<'a> {
    /// What kind.
    pub kind: ShadowKind,
    /// The class whose code contains the shadow.
    pub enclosing_class: ClassView<'a>,
    /// The method or constructor whose code contains it (`<clinit>` for static
    /// initializers).
    pub enclosing_member: MemberView<'a>,
    /// The class declaring the subject: the called method's owner, the field's owner;
    /// for executions and initializations the enclosing class.
    pub subject_class: ClassView<'a>,
    /// The subject: the called method or constructor, the field, the executing member.
    /// For handlers and static initialization, the enclosing member.
    pub subject: MemberView<'a>,
    /// For handlers: the caught type (internal name).
    pub handler_type: Option<&'a str>,
    /// The shadow is in the arguments of a constructor's `super(..)` or
    /// `this(..)` call: the object is not initialized, there is no `this`.
    pub before_super: bool,
}

#[derive(Debug, Clone)]
enum Node {
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Not(Box<Node>),
    Kinded(&'static [ShadowKind], Subject),
    AdviceExecution,
    Within(Tp),
    WithinCode(CompiledSignature),
    AtWithin(Tp),
    AtWithinCode(Tp),
    AtAnnotation(Tp),
    /// `this(T)`: `None` for a binding whose type is unknown.
    This(Option<Tp>),
    /// `target(T)`.
    Target(Option<Tp>),
    /// `args(..)`.
    Args(Vec<Param>),
    /// `@this`/`@target`/`@args`, `if`, `cflow`: decided at run time.
    Dynamic,
    Never,
}

#[derive(Debug, Clone)]
enum Subject {
    Signature(CompiledSignature),
    Field(CompiledField),
    Type(Tp),
}

/// A resolved pointcut compiled for static matching against shadows.
#[derive(Debug, Clone)]
pub struct CompiledPointcut(Node);

fn ctx_annotation(
    c: &Ctx,
    formals_types: &dyn Fn(usize) -> Option<TypePattern>,
    world: &dyn TypeWorld,
) -> Option<Tp> {
    match c {
        Ctx::Type(t) => Some(compile_tp(t, world)),
        Ctx::Bind { slot, .. } => formals_types(*slot).map(|t| compile_tp(&t, world)),
    }
}

impl CompiledPointcut {
    /// Compiles a resolved pointcut. `formal_type` gives, for a binding slot, the
    /// formal's type as a resolved exact type pattern (used by `@annotation(x)`,
    /// whose formal's type is the annotation type); `None` makes it dynamic.
    pub fn compile(
        pc: &Pc,
        formal_type: &dyn Fn(usize) -> Option<TypePattern>,
        world: &dyn TypeWorld,
    ) -> CompiledPointcut {
        CompiledPointcut(compile_node(pc, formal_type, world))
    }

    /// Statically matches a shadow.
    pub fn matches(&self, shadow: &Shadow<'_>, world: &dyn TypeWorld) -> Fuzzy {
        eval(&self.0, shadow, world)
    }

    /// Whether matching a shadow of `kind` may look at more of its subject
    /// than its owner, name and descriptor and whether it is static: the
    /// declaration's modifiers, annotations, thrown types or declaring class
    /// (for a declaring-type pattern other than a plain `*`, which may need the
    /// supertypes). When false, a weaver need not look the subject up.
    pub fn needs_member_details(&self, kind: ShadowKind) -> bool {
        fn plain_any(t: &Option<Tp>) -> bool {
            matches!(t, None | Some(Tp::Any { dims: 0 }))
        }
        fn walk(n: &Node, kind: ShadowKind) -> bool {
            match n {
                Node::And(a, b) | Node::Or(a, b) => walk(a, kind) || walk(b, kind),
                Node::Not(a) => walk(a, kind),
                Node::Kinded(kinds, subject) if kinds.contains(&kind) => match subject {
                    Subject::Signature(s) => {
                        !s.annotations.is_empty()
                            || s.modifiers.required | s.modifiers.forbidden != 0
                            || !s.throws.is_empty()
                            || s.varargs.is_some()
                            || !plain_any(&s.decl)
                    }
                    Subject::Field(f) => {
                        !f.annotations.is_empty()
                            || f.modifiers.required | f.modifiers.forbidden != 0
                            || !plain_any(&f.decl)
                    }
                    Subject::Type(_) => false,
                },
                Node::AtAnnotation(_) => true,
                _ => false,
            }
        }
        walk(&self.0, kind)
    }

    /// Whether a shadow of `kind` could match at all (AspectJ's "could match
    /// kinds"): false only when every way to match needs a kinded designator of
    /// another kind (or the pointcut never matches). Lets a weaver skip the
    /// shadows no pointcut can select before resolving anything about them.
    pub fn could_match(&self, kind: ShadowKind) -> bool {
        fn walk(n: &Node, kind: ShadowKind) -> bool {
            match n {
                Node::And(a, b) => walk(a, kind) && walk(b, kind),
                Node::Or(a, b) => walk(a, kind) || walk(b, kind),
                Node::Kinded(kinds, _) => kinds.contains(&kind),
                Node::AdviceExecution => kind == ShadowKind::AdviceExecution,
                Node::Never => false,
                // `!call(..)` matches every other kind and some calls.
                Node::Not(_)
                | Node::Within(_)
                | Node::WithinCode(_)
                | Node::AtWithin(_)
                | Node::AtWithinCode(_)
                | Node::AtAnnotation(_)
                | Node::This(_)
                | Node::Target(_)
                | Node::Args(_)
                | Node::Dynamic => true,
            }
        }
        walk(&self.0, kind)
    }
}

fn compile_node(pc: &Pc, ft: &dyn Fn(usize) -> Option<TypePattern>, world: &dyn TypeWorld) -> Node {
    use ShadowKind as S;
    let b = |p: &Pc| Box::new(compile_node(p, ft, world));
    match &pc.kind {
        PcKind::And(a, c) => Node::And(b(a), b(c)),
        PcKind::Or(a, c) => Node::Or(b(a), b(c)),
        PcKind::Not(a) => Node::Not(b(a)),
        PcKind::Call(s) => {
            let kinds: &'static [ShadowKind] = match s.kind {
                SignatureKind::Method => &[S::MethodCall],
                SignatureKind::Constructor => &[S::ConstructorCall],
            };
            Node::Kinded(
                kinds,
                Subject::Signature(CompiledSignature::compile(s, world)),
            )
        }
        PcKind::Execution(s) => {
            let kinds: &'static [ShadowKind] = match s.kind {
                SignatureKind::Method => &[S::MethodExecution],
                SignatureKind::Constructor => &[S::ConstructorExecution],
            };
            Node::Kinded(
                kinds,
                Subject::Signature(CompiledSignature::compile(s, world)),
            )
        }
        PcKind::Initialization(s) => Node::Kinded(
            &[S::Initialization],
            Subject::Signature(CompiledSignature::compile(s, world)),
        ),
        PcKind::PreInitialization(s) => Node::Kinded(
            &[S::PreInitialization],
            Subject::Signature(CompiledSignature::compile(s, world)),
        ),
        PcKind::Get(f) => Node::Kinded(
            &[S::FieldGet],
            Subject::Field(CompiledField::compile(f, world)),
        ),
        PcKind::Set(f) => Node::Kinded(
            &[S::FieldSet],
            Subject::Field(CompiledField::compile(f, world)),
        ),
        PcKind::StaticInitialization(t) => Node::Kinded(
            &[S::StaticInitialization],
            Subject::Type(compile_tp(t, world)),
        ),
        PcKind::Handler(t) => {
            Node::Kinded(&[S::ExceptionHandler], Subject::Type(compile_tp(t, world)))
        }
        PcKind::AdviceExecution => Node::AdviceExecution,
        PcKind::Within(t) => Node::Within(compile_tp(t, world)),
        PcKind::WithinCode(s) => Node::WithinCode(CompiledSignature::compile(s, world)),
        PcKind::AtWithin(c) => ctx_annotation(c, ft, world).map_or(Node::Dynamic, Node::AtWithin),
        PcKind::AtWithinCode(c) => {
            ctx_annotation(c, ft, world).map_or(Node::Dynamic, Node::AtWithinCode)
        }
        PcKind::AtAnnotation(c) => {
            ctx_annotation(c, ft, world).map_or(Node::Dynamic, Node::AtAnnotation)
        }
        PcKind::This(c) => Node::This(ctx_annotation(c, ft, world)),
        PcKind::Target(c) => Node::Target(ctx_annotation(c, ft, world)),
        PcKind::Args(list) => Node::Args(
            list.iter()
                .map(|a| match a {
                    ArgCtx::Ellipsis => Param::Ellipsis,
                    ArgCtx::Ctx(c) => match ctx_annotation(c, ft, world) {
                        Some(tp) => Param::Type(tp),
                        None => Param::Type(Tp::Any { dims: 0 }),
                    },
                })
                .collect(),
        ),
        PcKind::AtThis(_)
        | PcKind::AtTarget(_)
        | PcKind::AtArgs(_)
        | PcKind::Cflow(_)
        | PcKind::CflowBelow(_)
        | PcKind::If { .. }
        | PcKind::Abstract { .. } => Node::Dynamic,
        PcKind::Never => Node::Never,
    }
}

fn has_annotation(tp: &Tp, have: &[&str], world: &dyn TypeWorld) -> bool {
    have.iter().any(|h| {
        match_tp(
            tp,
            TypeRef::class(descriptor::annotation_name(h)),
            Annots::Known(&[]),
            world,
        )
    })
}

fn eval(n: &Node, s: &Shadow<'_>, world: &dyn TypeWorld) -> Fuzzy {
    match n {
        Node::And(a, b) => {
            let l = eval(a, s, world);
            if l == Fuzzy::No {
                return Fuzzy::No;
            }
            l.and(eval(b, s, world))
        }
        Node::Or(a, b) => {
            let l = eval(a, s, world);
            if l == Fuzzy::Yes {
                return Fuzzy::Yes;
            }
            l.or(eval(b, s, world))
        }
        Node::Not(a) => eval(a, s, world).not(),
        Node::Kinded(kinds, subject) => {
            if !kinds.contains(&s.kind) {
                return Fuzzy::No;
            }
            Fuzzy::of(match subject {
                Subject::Signature(sig) => sig.matches(&s.subject_class, &s.subject, world),
                Subject::Field(f) => f.matches(&s.subject_class, &s.subject, world),
                Subject::Type(tp) => match s.kind {
                    ShadowKind::ExceptionHandler => s
                        .handler_type
                        .is_some_and(|h| match_tp(tp, TypeRef::class(h), Annots::Ask, world)),
                    _ => match_tp(
                        tp,
                        TypeRef::class(s.enclosing_class.name),
                        Annots::Known(s.enclosing_class.annotations),
                        world,
                    ),
                },
            })
        }
        Node::AdviceExecution => Fuzzy::of(s.kind == ShadowKind::AdviceExecution),
        Node::Within(tp) => Fuzzy::of(within(tp, &s.enclosing_class, world)),
        Node::WithinCode(sig) => {
            Fuzzy::of(sig.matches(&s.enclosing_class, &s.enclosing_member, world))
        }
        Node::AtWithin(tp) => Fuzzy::of(has_annotation(tp, s.enclosing_class.annotations, world)),
        Node::AtWithinCode(tp) => {
            Fuzzy::of(has_annotation(tp, s.enclosing_member.annotations, world))
        }
        Node::AtAnnotation(tp) => Fuzzy::of(has_annotation(tp, s.subject.annotations, world)),
        Node::This(tp) => match this_type(s) {
            None => Fuzzy::No,
            Some(t) => value_test(tp.as_ref(), TypeRef::class(t), world),
        },
        Node::Target(tp) => match target_type(s) {
            None => Fuzzy::No,
            Some(t) => value_test(tp.as_ref(), TypeRef::class(t), world),
        },
        Node::Args(params) => match arg_types(s) {
            None => Fuzzy::Maybe,
            Some(types) => args_test(params, &types, world),
        },
        Node::Dynamic => Fuzzy::Maybe,
        Node::Never => Fuzzy::No,
    }
}

const ACC_STATIC: u16 = 0x0008;

/// The static type of `this` at a shadow, if there is a `this`.
fn this_type<'a>(s: &Shadow<'a>) -> Option<&'a str> {
    let static_code =
        s.enclosing_member.access & ACC_STATIC != 0 || s.enclosing_member.name == "<clinit>";
    match s.kind {
        ShadowKind::PreInitialization | ShadowKind::StaticInitialization => None,
        ShadowKind::MethodExecution
        | ShadowKind::ConstructorExecution
        | ShadowKind::Initialization => {
            (s.subject.access & ACC_STATIC == 0).then_some(s.subject_class.name)
        }
        _ => (!static_code && !s.before_super).then_some(s.enclosing_class.name),
    }
}

/// The static type of the target at a shadow, if there is a target.
fn target_type<'a>(s: &Shadow<'a>) -> Option<&'a str> {
    match s.kind {
        ShadowKind::MethodCall | ShadowKind::FieldGet | ShadowKind::FieldSet => {
            (s.subject.access & ACC_STATIC == 0).then_some(s.subject_class.name)
        }
        ShadowKind::MethodExecution
        | ShadowKind::ConstructorExecution
        | ShadowKind::Initialization => {
            (s.subject.access & ACC_STATIC == 0).then_some(s.subject_class.name)
        }
        _ => None,
    }
}

/// The static types of the arguments at a shadow, if known.
fn arg_types<'a>(s: &Shadow<'a>) -> Option<Vec<TypeRef<'a>>> {
    match s.kind {
        ShadowKind::MethodCall
        | ShadowKind::ConstructorCall
        | ShadowKind::MethodExecution
        | ShadowKind::ConstructorExecution
        | ShadowKind::Initialization
        | ShadowKind::PreInitialization => {
            descriptor::method_types(s.subject.descriptor).map(|(p, _)| p)
        }
        ShadowKind::FieldGet | ShadowKind::StaticInitialization => Some(Vec::new()),
        ShadowKind::FieldSet => descriptor::field_type(s.subject.descriptor).map(|t| vec![t]),
        ShadowKind::ExceptionHandler => s.handler_type.map(|h| vec![TypeRef::class(h)]),
        ShadowKind::AdviceExecution => None,
    }
}

/// A runtime type test of a value whose static type is `t`: certain if the static
/// type already matches, impossible for a primitive that does not, else a test.
fn value_test(tp: Option<&Tp>, t: TypeRef<'_>, world: &dyn TypeWorld) -> Fuzzy {
    let Some(tp) = tp else {
        return Fuzzy::Yes;
    };
    let pattern_primitive = match tp {
        Tp::Exact { name, dims: 0, .. } if is_primitive(name) => Some(name.as_str()),
        _ => None,
    };
    if t.is_primitive() {
        // ajc 1.9.5 decides primitives statically: a primitive pattern matches
        // a primitive value it widens to (`args(long)` on an `int`); a
        // reference pattern matches only if it names the value's box or
        // `Object` (`args(Integer)`, `args(Object)` on an `int`, never
        // `args(Number)`; a `+` makes no difference).
        return Fuzzy::of(match pattern_primitive {
            Some(p) => primitive_widens(t.name, p),
            None => {
                let exact = without_subtypes(tp);
                box_of(t.name).is_some_and(|b| {
                    match_tp(&exact, TypeRef::class(b), Annots::Ask, world)
                        || match_tp(
                            &exact,
                            TypeRef::class("java/lang/Object"),
                            Annots::Ask,
                            world,
                        )
                })
            }
        });
    }
    if match_tp(&subtypes_of(tp), t, Annots::Ask, world) {
        return Fuzzy::Yes;
    }
    // A primitive pattern matches a value of exactly its box type (`args(int)`
    // on an `Integer`), not of a supertype of it (`Object`) nor of another box.
    if let Some(p) = pattern_primitive {
        return Fuzzy::of(t.dims == 0 && box_of(p) == Some(t.name));
    }
    Fuzzy::Maybe
}

/// Whether a primitive value of type `from` matches a primitive type pattern
/// `to` in `args`/`this`/`target` and after-returning bindings (both keywords,
/// `int`): the type itself and the widening conversions, as ajc 1.9.5 decides
/// them, which also lets a `byte` widen to `char`.
pub fn primitive_widens(from: &str, to: &str) -> bool {
    if from == to {
        return is_primitive(from) && from != "void";
    }
    matches!(
        (from, to),
        (
            "byte",
            "char" | "short" | "int" | "long" | "float" | "double"
        ) | ("short" | "char", "int" | "long" | "float" | "double")
            | ("int", "long" | "float" | "double")
            | ("long", "float" | "double")
            | ("float", "double")
    )
}

/// The same pattern without `+` on exact names (ajc tests a primitive's box
/// against the named type itself).
fn without_subtypes(tp: &Tp) -> Tp {
    match tp {
        Tp::Exact { name, dims, .. } => Tp::Exact {
            name: name.clone(),
            dims: *dims,
            subtypes: false,
        },
        Tp::Glob {
            name,
            dims,
            imported,
            ..
        } => Tp::Glob {
            name: name.clone(),
            dims: *dims,
            subtypes: false,
            imported: imported.clone(),
        },
        other => other.clone(),
    }
}

/// The wrapper class of a primitive type (internal name).
pub fn box_of(primitive: &str) -> Option<&'static str> {
    Some(match primitive {
        "boolean" => "java/lang/Boolean",
        "byte" => "java/lang/Byte",
        "char" => "java/lang/Character",
        "short" => "java/lang/Short",
        "int" => "java/lang/Integer",
        "long" => "java/lang/Long",
        "float" => "java/lang/Float",
        "double" => "java/lang/Double",
        _ => return None,
    })
}

/// A type test matches subtypes: `this(Foo)` holds for any object that is a `Foo`.
fn subtypes_of(tp: &Tp) -> Tp {
    match tp {
        Tp::Exact { name, dims, .. } => Tp::Exact {
            name: name.clone(),
            dims: *dims,
            subtypes: true,
        },
        other => other.clone(),
    }
}

fn args_test(params: &[Param], types: &[TypeRef<'_>], world: &dyn TypeWorld) -> Fuzzy {
    match params.split_first() {
        None => Fuzzy::of(types.is_empty()),
        Some((Param::Ellipsis, rest)) => {
            let mut acc = Fuzzy::No;
            for k in 0..=types.len() {
                acc = acc.or(args_test(rest, &types[k..], world));
                if acc == Fuzzy::Yes {
                    break;
                }
            }
            acc
        }
        Some((Param::Type(tp), rest)) => {
            if types.is_empty() {
                return Fuzzy::No;
            }
            let first = if matches!(tp, Tp::Any { dims: 0 }) {
                Fuzzy::Yes
            } else {
                value_test(Some(tp), types[0], world)
            };
            if first == Fuzzy::No {
                return Fuzzy::No;
            }
            first.and(args_test(rest, &types[1..], world))
        }
    }
}

/// `within(T)` also holds in the nested classes of a matching type.
fn within(tp: &Tp, class: &ClassView<'_>, world: &dyn TypeWorld) -> bool {
    if match_tp(
        tp,
        TypeRef::class(class.name),
        Annots::Known(class.annotations),
        world,
    ) {
        return true;
    }
    let mut name = class.name;
    while let Some(i) = name.rfind('$').filter(|_| world.is_nested(name)) {
        name = &name[..i];
        if match_tp(tp, TypeRef::class(name), Annots::Ask, world) {
            return true;
        }
    }
    false
}

/// Compiles every advice of a checked program (convenience for the weaver).
pub fn compile_advice(
    advice: &crate::check::ResolvedAdvice,
    scope: &crate::resolve::Scope,
    world: &dyn TypeWorld,
) -> CompiledPointcut {
    compile_advice_part(advice, &advice.pointcut, scope, world)
}

/// Compiles a part of an advice's pointcut (e.g. the pointcut inside one of its
/// `cflow(..)`), with the advice's formals for binding patterns, like
/// [`compile_advice`].
pub fn compile_advice_part(
    advice: &crate::check::ResolvedAdvice,
    part: &crate::resolve::Pc,
    scope: &crate::resolve::Scope,
    world: &dyn TypeWorld,
) -> CompiledPointcut {
    let formal_type = |slot: usize| -> Option<TypePattern> {
        let f = advice
            .formals
            .get(slot)
            .or_else(|| advice.hidden.get(slot.checked_sub(advice.formals.len())?))?;
        let mut tp = crate::parse::parse_type_pattern(&f.ty.name).ok()?;
        // `int[] a`, `String... rest`: the dimensions are not part of the name.
        if let TypePatternKind::Named(n) = &mut tp.kind {
            n.dims += f.ty.dims + u8::from(f.ty.varargs);
        }
        Some(scope.resolve_type_pattern(&tp))
    };
    CompiledPointcut::compile(part, &formal_type, world)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_globs() {
        let m = NameMatcher::compile("java..*Map");
        assert!(m.matches_segments(&["java", "util", "HashMap"]));
        assert!(m.matches_segments(&["java", "Map"]));
        assert!(!m.matches_segments(&["javax", "Map"]));
        let m = NameMatcher::compile("java.util.*");
        assert!(m.matches_segments(&["java", "util", "List"]));
        assert!(!m.matches_segments(&["java", "util", "concurrent", "Future"]));
        assert!(NameMatcher::compile("*..*").matches_segments(&["a", "b", "c"]));
        assert!(NameMatcher::compile("get*").matches_simple("getX"));
        assert!(!NameMatcher::compile("get*").matches_simple("setX"));
    }
}
