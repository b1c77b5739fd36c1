//! The typed syntax tree of a `.aj` compilation unit: aspects, named pointcuts,
//! advice, `declare` forms, and pointcut expressions. Patterns live in
//! [`crate::patterns`]. Every node carries the byte [`Span`] it was parsed from.

use crate::patterns::{ArgPattern, FieldPattern, SignaturePattern, TypePattern};

/// A byte range in the source text (`start..end`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset one past the last byte.
    pub end: usize,
}

impl Span {
    /// The span `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the span covers no byte.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The text this span covers in `source` (empty if out of range).
    pub fn text<'s>(&self, source: &'s str) -> &'s str {
        source.get(self.start..self.end).unwrap_or("")
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(s: Span) -> miette::SourceSpan {
        (s.start, s.end - s.start).into()
    }
}

/// An identifier (possibly qualified with dots) and where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident {
    /// The name as written, e.g. `allAllocs` or `java.util.List`.
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

/// A piece of Java source kept verbatim (members, annotations, expressions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaText {
    /// The source text.
    pub text: String,
    /// Where it came from.
    pub span: Span,
}

/// A whole `.aj` file.
#[derive(Debug, Clone, PartialEq)]
pub struct CompilationUnit {
    /// `package a.b.c;`, if any.
    pub package: Option<Ident>,
    /// Import declarations in order.
    pub imports: Vec<Import>,
    /// Top-level aspects in order.
    pub aspects: Vec<Aspect>,
    /// Top-level Java types (classes, interfaces, ...) kept as text.
    pub java_types: Vec<JavaText>,
}

/// An `import` declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// The imported name (`java.util.Map`) or package (`java.util` for `java.util.*`).
    pub name: String,
    /// `import p.*;`
    pub on_demand: bool,
    /// `import static ...;`
    pub is_static: bool,
    /// The whole declaration.
    pub span: Span,
}

/// An `aspect` declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct Aspect {
    /// The aspect's simple name.
    pub name: Ident,
    /// Modifier keywords as written (`public`, `abstract`, `privileged`, ...).
    pub modifiers: Vec<Ident>,
    /// Annotations on the aspect, as text.
    pub annotations: Vec<JavaText>,
    /// `extends T`.
    pub extends: Option<JavaType>,
    /// `implements A, B`.
    pub implements: Vec<JavaType>,
    /// A per-clause (`perthis(..)`, `issingleton()`, ...), if written.
    pub per_clause: Option<PerClause>,
    /// The members in source order.
    pub members: Vec<Member>,
    /// Whether it came from an annotation-style (`@Aspect`) Java class.
    pub annotation_style: bool,
    /// The whole declaration.
    pub span: Span,
}

impl Aspect {
    /// Whether the aspect is declared `abstract`.
    pub fn is_abstract(&self) -> bool {
        self.has_modifier("abstract")
    }

    /// Whether the aspect is declared `privileged`.
    pub fn is_privileged(&self) -> bool {
        self.has_modifier("privileged")
    }

    /// Whether the modifier keyword `m` was written.
    pub fn has_modifier(&self, m: &str) -> bool {
        self.modifiers.iter().any(|x| x.name == m)
    }

    /// The named pointcuts declared in this aspect.
    pub fn pointcuts(&self) -> impl Iterator<Item = &PointcutDecl> {
        self.members.iter().filter_map(|m| match m {
            Member::Pointcut(p) => Some(p),
            _ => None,
        })
    }

    /// The advice declared in this aspect, in source order.
    pub fn advice(&self) -> impl Iterator<Item = &Advice> {
        self.members.iter().filter_map(|m| match m {
            Member::Advice(a) => Some(a),
            _ => None,
        })
    }
}

/// The per-clause kinds of AspectJ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerKind {
    /// `issingleton()`: the default.
    IsSingleton,
    /// `perthis(pc)`.
    PerThis,
    /// `pertarget(pc)`.
    PerTarget,
    /// `percflow(pc)`.
    PerCflow,
    /// `percflowbelow(pc)`.
    PerCflowBelow,
    /// `pertypewithin(T)`.
    PerTypeWithin,
}

impl PerKind {
    /// The keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            PerKind::IsSingleton => "issingleton",
            PerKind::PerThis => "perthis",
            PerKind::PerTarget => "pertarget",
            PerKind::PerCflow => "percflow",
            PerKind::PerCflowBelow => "percflowbelow",
            PerKind::PerTypeWithin => "pertypewithin",
        }
    }
}

/// A per-clause as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerClause {
    /// Which one.
    pub kind: PerKind,
    /// The whole clause.
    pub span: Span,
}

/// One member of an aspect.
#[derive(Debug, Clone, PartialEq)]
pub enum Member {
    /// `pointcut name(..): expr;`
    Pointcut(PointcutDecl),
    /// `before(..): pc { .. }` and friends.
    Advice(Advice),
    /// `declare precedence: A, B;`
    DeclarePrecedence(DeclarePrecedence),
    /// `declare warning|error: pc: "msg";`
    DeclareMessage(DeclareMessage),
    /// An ordinary Java member (field, method, constructor, nested type, initializer).
    Java(JavaText),
    /// An AspectJ feature outside the subset, kept so that checking can name it.
    Unsupported(Unsupported),
}

/// AspectJ features that major recognises but does not implement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Feature {
    /// `int Point.x;`, `void Point.m() {}`, `Point.new() {}`.
    InterTypeDeclaration,
    /// `declare parents: ...`.
    DeclareParents,
    /// `declare soft: ...`.
    DeclareSoft,
    /// `declare @type`, `declare @method`, ... (annotation introduction).
    DeclareAnnotation(String),
    /// Any other `declare X`.
    DeclareOther(String),
    /// An aspect nested inside another aspect.
    NestedAspect,
}

impl Feature {
    /// The message naming the feature.
    pub fn message(&self) -> String {
        match self {
            Feature::InterTypeDeclaration => "inter-type declarations are not supported".into(),
            Feature::DeclareParents => "`declare parents` is not supported".into(),
            Feature::DeclareSoft => "`declare soft` is not supported".into(),
            Feature::DeclareAnnotation(k) => format!("`declare {k}` is not supported"),
            Feature::DeclareOther(k) => format!("`declare {k}` is not part of the aspect language"),
            Feature::NestedAspect => "nested aspects are not supported".into(),
        }
    }
}

/// An unsupported feature and where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// What it is.
    pub feature: Feature,
    /// The whole member.
    pub span: Span,
}

/// A Java type as written in a formal parameter or return type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaType {
    /// The (erased) name: `int`, `Object`, `java.util.Map`.
    pub name: String,
    /// Type arguments as written, e.g. `<String, List<Integer>>` (ignored when matching).
    pub type_args: Option<String>,
    /// Array dimensions.
    pub dims: u8,
    /// `T...`
    pub varargs: bool,
    /// Where it was written.
    pub span: Span,
}

impl JavaType {
    /// Whether this is a primitive type or `void`.
    pub fn is_primitive(&self) -> bool {
        self.dims == 0 && !self.varargs && crate::patterns::is_primitive(&self.name)
    }
}

/// A formal parameter `Type name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Formal {
    /// Its declared type.
    pub ty: JavaType,
    /// Its name.
    pub name: Ident,
    /// The whole formal.
    pub span: Span,
}

/// A named pointcut declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct PointcutDecl {
    /// The pointcut's name.
    pub name: Ident,
    /// Modifier keywords (`public`, `abstract`, ...).
    pub modifiers: Vec<Ident>,
    /// The formal parameters.
    pub params: Vec<Formal>,
    /// The expression; `None` for an abstract pointcut.
    pub expr: Option<Pointcut>,
    /// Whether `: expr` was written at all (an empty expression matches nothing).
    pub has_colon: bool,
    /// The whole declaration.
    pub span: Span,
}

impl PointcutDecl {
    /// Whether declared `abstract`.
    pub fn is_abstract(&self) -> bool {
        self.modifiers.iter().any(|m| m.name == "abstract")
    }
}

/// The kind of an advice, with its extra formal and around's return type.
#[derive(Debug, Clone, PartialEq)]
pub enum AdviceKind {
    /// `before(..)`
    Before,
    /// `after(..)` (after finally)
    After,
    /// `after(..) returning [(T x)]`
    AfterReturning(Option<Formal>),
    /// `after(..) throwing [(T x)]`
    AfterThrowing(Option<Formal>),
    /// `T around(..)`
    Around(JavaType),
}

impl AdviceKind {
    /// A short name: `before`, `after`, `after returning`, `after throwing`, `around`.
    pub fn name(&self) -> &'static str {
        match self {
            AdviceKind::Before => "before",
            AdviceKind::After => "after",
            AdviceKind::AfterReturning(_) => "after returning",
            AdviceKind::AfterThrowing(_) => "after throwing",
            AdviceKind::Around(_) => "around",
        }
    }
}

/// Which reflective join-point variables an advice body mentions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReflectiveUse {
    /// `thisJoinPoint`
    pub this_join_point: bool,
    /// `thisJoinPointStaticPart`
    pub this_join_point_static_part: bool,
    /// `thisEnclosingJoinPointStaticPart`
    pub this_enclosing_join_point_static_part: bool,
    /// `thisCallingContext` (major's extension: the current node of the
    /// per-thread calling-context tree, see ARCHITECTURE.md)
    pub this_calling_context: bool,
}

/// A `proceed(..)` call found in an around body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProceedCall {
    /// The number of arguments passed.
    pub args: usize,
    /// From `proceed` to the closing parenthesis.
    pub span: Span,
}

/// An advice body: Java source, with what the lexical scan learned about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdviceBody {
    /// The text including the braces.
    pub text: String,
    /// Where it is.
    pub span: Span,
    /// `proceed(..)` calls, in order.
    pub proceed_calls: Vec<ProceedCall>,
    /// Reflective variables used.
    pub reflective: ReflectiveUse,
}

/// An advice declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct Advice {
    /// Kind, with extra formal / return type.
    pub kind: AdviceKind,
    /// Where the kind keyword is (`before`, `after`, `around`).
    pub keyword_span: Span,
    /// Annotations written before the advice, as text.
    pub annotations: Vec<JavaText>,
    /// The formal parameters.
    pub params: Vec<Formal>,
    /// `throws` clause.
    pub throws: Vec<JavaType>,
    /// The pointcut.
    pub pointcut: Pointcut,
    /// The body.
    pub body: AdviceBody,
    /// The whole declaration.
    pub span: Span,
}

impl Advice {
    /// Every formal that the pointcut must bind: the parameters plus the
    /// `returning`/`throwing` formal (bound by the advice kind itself).
    pub fn all_formals(&self) -> impl Iterator<Item = &Formal> {
        let extra = match &self.kind {
            AdviceKind::AfterReturning(f) | AdviceKind::AfterThrowing(f) => f.as_ref(),
            _ => None,
        };
        self.params.iter().chain(extra)
    }
}

/// `declare precedence: A, B, *;`
#[derive(Debug, Clone, PartialEq)]
pub struct DeclarePrecedence {
    /// The type patterns, highest precedence first.
    pub patterns: Vec<TypePattern>,
    /// The whole declaration.
    pub span: Span,
}

/// `declare warning: pc: "msg";` or `declare error: ...`.
#[derive(Debug, Clone, PartialEq)]
pub struct DeclareMessage {
    /// `declare error` (otherwise warning).
    pub is_error: bool,
    /// The (static) pointcut.
    pub pointcut: Pointcut,
    /// The message, unescaped and concatenated.
    pub message: String,
    /// The whole declaration.
    pub span: Span,
}

/// A pointcut expression node.
#[derive(Debug, Clone, PartialEq)]
pub struct Pointcut {
    /// What it is.
    pub kind: PointcutKind,
    /// Where it was written.
    pub span: Span,
}

/// The kinds of pointcut expression.
#[derive(Debug, Clone, PartialEq)]
pub enum PointcutKind {
    /// `a && b`
    And(Box<Pointcut>, Box<Pointcut>),
    /// `a || b`
    Or(Box<Pointcut>, Box<Pointcut>),
    /// `!a`
    Not(Box<Pointcut>),
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
    /// `this(T or x)`
    This(TypePattern),
    /// `target(T or x)`
    Target(TypePattern),
    /// `args(..)`
    Args(Vec<ArgPattern>),
    /// `cflow(pc)`
    Cflow(Box<Pointcut>),
    /// `cflowbelow(pc)`
    CflowBelow(Box<Pointcut>),
    /// `if(expr)`: the Java expression as text, without the parentheses.
    If(JavaText),
    /// `@annotation(A or a)`
    AtAnnotation(TypePattern),
    /// `@within(A or a)`
    AtWithin(TypePattern),
    /// `@withincode(A or a)`
    AtWithinCode(TypePattern),
    /// `@this(A or a)`
    AtThis(TypePattern),
    /// `@target(A or a)`
    AtTarget(TypePattern),
    /// `@args(..)`
    AtArgs(Vec<ArgPattern>),
    /// A reference to a named pointcut, `name(args)` or `Aspect.name(args)`.
    Reference(PointcutRef),
    /// `something(..)` or `@something(..)` that is no designator and whose
    /// arguments are no pointcut arguments: rejected when checking.
    UnknownDesignator(Ident),
    /// The empty pointcut (`pointcut p(): ;`), which matches nothing.
    Empty,
}

/// A reference to a named pointcut.
#[derive(Debug, Clone, PartialEq)]
pub struct PointcutRef {
    /// `name` or `Type.name`.
    pub name: Ident,
    /// The arguments: type patterns or formal names, `..`.
    pub args: Vec<ArgPattern>,
}
