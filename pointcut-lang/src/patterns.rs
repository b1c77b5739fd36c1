//! Pattern syntax: type patterns, name patterns with `*` and `..`, signature
//! patterns for methods and constructors, field patterns, annotation and modifier
//! patterns. These are the parsed forms; [`crate::matcher`] compiles them.

use crate::ast::Span;

/// The JVM access flag that each modifier keyword stands for.
pub const MODIFIER_FLAGS: &[(&str, u16)] = &[
    ("public", 0x0001),
    ("private", 0x0002),
    ("protected", 0x0004),
    ("static", 0x0008),
    ("final", 0x0010),
    ("synchronized", 0x0020),
    ("volatile", 0x0040),
    ("transient", 0x0080),
    ("native", 0x0100),
    ("abstract", 0x0400),
    ("strictfp", 0x0800),
];

/// The access flag of a modifier keyword.
pub fn modifier_flag(keyword: &str) -> Option<u16> {
    MODIFIER_FLAGS
        .iter()
        .find(|(k, _)| *k == keyword)
        .map(|(_, f)| *f)
}

/// Whether `name` is a primitive type keyword or `void`.
pub fn is_primitive(name: &str) -> bool {
    matches!(
        name,
        "boolean" | "byte" | "char" | "short" | "int" | "long" | "float" | "double" | "void"
    )
}

/// A dotted name pattern: `java.util.*Map`, `com.acme..*`, `*`, `String`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamePattern {
    /// As written.
    pub text: String,
}

impl NamePattern {
    /// A pattern from its text.
    pub fn new(text: impl Into<String>) -> NamePattern {
        NamePattern { text: text.into() }
    }

    /// `*` alone: matches every name.
    pub fn is_any(&self) -> bool {
        self.text == "*"
    }

    /// No `*` and no `..`: an exact (possibly qualified) name.
    pub fn is_exact(&self) -> bool {
        !self.text.contains('*') && !self.text.contains("..")
    }

    /// A single identifier with no dot and no wildcard (a candidate formal name).
    pub fn is_simple_identifier(&self) -> bool {
        self.is_exact() && !self.text.contains('.')
    }
}

/// A type pattern node.
#[derive(Debug, Clone, PartialEq)]
pub struct TypePattern {
    /// What it is.
    pub kind: TypePatternKind,
    /// Where it was written.
    pub span: Span,
}

/// The kinds of type pattern.
#[derive(Debug, Clone, PartialEq)]
pub enum TypePatternKind {
    /// A (wildcard) name with `+`, type arguments, array dimensions.
    Named(NamedTypePattern),
    /// `!T`
    Not(Box<TypePattern>),
    /// `A && B`
    And(Box<TypePattern>, Box<TypePattern>),
    /// `A || B`
    Or(Box<TypePattern>, Box<TypePattern>),
    /// `@Ann T`: a type carrying annotations.
    Annotated(Vec<AnnotationPattern>, Box<TypePattern>),
}

impl TypePattern {
    /// The simple identifier this pattern consists of, if it is one (`x` in `args(x)`).
    pub fn as_identifier(&self) -> Option<&str> {
        match &self.kind {
            TypePatternKind::Named(n)
                if n.name.is_simple_identifier()
                    && !n.subtypes
                    && n.dims == 0
                    && !n.varargs
                    && n.type_args.is_empty() =>
            {
                Some(&n.name.text)
            }
            _ => None,
        }
    }

    /// Whether this is exactly `*`.
    pub fn is_any(&self) -> bool {
        matches!(&self.kind, TypePatternKind::Named(n) if n.name.is_any() && n.dims == 0 && !n.varargs)
    }
}

/// A named type pattern: `java.util.*Map+`, `int[]`, `List<String>`, `String...`.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedTypePattern {
    /// The name part.
    pub name: NamePattern,
    /// `+`: the type or any subtype.
    pub subtypes: bool,
    /// Type arguments: `List<String>` matches only that parameterization
    /// (read from generic signatures); without them a name matches the raw
    /// type and every parameterization.
    pub type_args: Vec<TypeArgPattern>,
    /// Array dimensions.
    pub dims: u8,
    /// `...` (a varargs parameter: one more dimension).
    pub varargs: bool,
    /// For an exact name, the JVM internal names it may denote after resolution
    /// through the aspect's package and imports, most likely first (filled by
    /// [`crate::resolve`]; empty straight after parsing).
    pub candidates: Vec<String>,
    /// For a wildcard name without dots (`*Exception`), what besides the default
    /// package it matches by simple name, as in AspectJ: the packages of the
    /// aspect, of its on-demand imports and `java.lang` (internal names ending
    /// in `/`), and its single-type imports (internal names). Filled by
    /// [`crate::resolve`].
    pub imported: Vec<String>,
}

/// One type argument of a parameterized type pattern.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeArgPattern {
    /// A type pattern (`String`, `*`, `List<*>`).
    Type(TypePattern),
    /// `?`, `? extends T` (`upper` true) or `? super T`.
    Wildcard {
        /// The bound, with whether it is an upper (`extends`) bound.
        bound: Option<(bool, Box<TypePattern>)>,
    },
}

impl TypeArgPattern {
    /// The type pattern inside: the argument itself or a wildcard's bound.
    pub fn type_pattern(&self) -> Option<&TypePattern> {
        match self {
            TypeArgPattern::Type(t) => Some(t),
            TypeArgPattern::Wildcard { bound } => bound.as_ref().map(|(_, t)| &**t),
        }
    }

    /// The same argument with its type pattern changed by `f`.
    pub fn map(&self, f: impl FnOnce(&TypePattern) -> TypePattern) -> TypeArgPattern {
        match self {
            TypeArgPattern::Type(t) => TypeArgPattern::Type(f(t)),
            TypeArgPattern::Wildcard { bound } => TypeArgPattern::Wildcard {
                bound: bound.as_ref().map(|(upper, t)| (*upper, Box::new(f(t)))),
            },
        }
    }

    /// The type pattern inside, mutably.
    pub fn type_pattern_mut(&mut self) -> Option<&mut TypePattern> {
        match self {
            TypeArgPattern::Type(t) => Some(t),
            TypeArgPattern::Wildcard { bound } => bound.as_mut().map(|(_, t)| &mut **t),
        }
    }
}

/// An annotation pattern `@Foo`, `!@Foo`, `@(Foo || Bar)`.
#[derive(Debug, Clone, PartialEq)]
pub struct AnnotationPattern {
    /// `!@Foo`
    pub negated: bool,
    /// The annotation type.
    pub ty: TypePattern,
    /// Where it was written.
    pub span: Span,
}

/// Modifier keywords that must be present or absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ModifierPattern {
    /// Access flags that must all be set.
    pub required: u16,
    /// Access flags that must all be clear.
    pub forbidden: u16,
}

impl ModifierPattern {
    /// Whether `access` satisfies the pattern.
    pub fn matches(&self, access: u16) -> bool {
        access & self.required == self.required && access & self.forbidden == 0
    }

    /// The keywords, as written in canonical order (`public !static`).
    pub fn keywords(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (k, f) in MODIFIER_FLAGS {
            if self.required & f != 0 {
                out.push((*k).to_string());
            }
            if self.forbidden & f != 0 {
                out.push(format!("!{k}"));
            }
        }
        out
    }
}

/// An element of a parameter or `args` list.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgPattern {
    /// `..`: any number of arguments.
    Ellipsis(Span),
    /// A type pattern (or, in `args`, a formal name).
    Type(TypePattern),
}

impl ArgPattern {
    /// Where it was written.
    pub fn span(&self) -> Span {
        match self {
            ArgPattern::Ellipsis(s) => *s,
            ArgPattern::Type(t) => t.span,
        }
    }
}

/// One element of a `throws` pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct ThrowsPattern {
    /// `!T`: no declared exception may match.
    pub negated: bool,
    /// The exception type pattern.
    pub ty: TypePattern,
}

/// Method or constructor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureKind {
    /// `ret Decl.name(params)`
    Method,
    /// `Decl.new(params)`
    Constructor,
}

/// A method or constructor signature pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct SignaturePattern {
    /// Method or constructor.
    pub kind: SignatureKind,
    /// Annotations the member must (not) carry.
    pub annotations: Vec<AnnotationPattern>,
    /// Modifiers the member must (not) have.
    pub modifiers: ModifierPattern,
    /// Return type pattern (methods only).
    pub return_type: Option<TypePattern>,
    /// Declaring type pattern, if written.
    pub declaring_type: Option<TypePattern>,
    /// Member name pattern (`new` for constructors).
    pub name: NamePattern,
    /// Where the member name was written.
    pub name_span: Span,
    /// Parameter patterns.
    pub params: Vec<ArgPattern>,
    /// `throws` patterns.
    pub throws: Vec<ThrowsPattern>,
    /// The whole pattern.
    pub span: Span,
}

/// A field signature pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldPattern {
    /// Annotations the field must (not) carry.
    pub annotations: Vec<AnnotationPattern>,
    /// Modifiers the field must (not) have.
    pub modifiers: ModifierPattern,
    /// The field's type.
    pub field_type: TypePattern,
    /// Declaring type pattern, if written.
    pub declaring_type: Option<TypePattern>,
    /// Field name pattern.
    pub name: NamePattern,
    /// The whole pattern.
    pub span: Span,
}

/// Matching a single name segment against a glob with `*` (never crossing a dot).
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p = pattern.as_bytes();
    let t = text.as_bytes();
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == b'*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("*", "anything"));
        assert!(glob_match("*", ""));
        assert!(glob_match("*Map", "HashMap"));
        assert!(!glob_match("*Map", "HashMapX"));
        assert!(glob_match("get*", "getX"));
        assert!(glob_match("g*t*r", "getter"));
        assert!(!glob_match("g*t*r", "gets"));
        assert!(glob_match("a*b*c", "aXbYbZc"));
    }

    #[test]
    fn modifiers() {
        let m = ModifierPattern {
            required: 0x0001,
            forbidden: 0x0008,
        };
        assert!(m.matches(0x0001));
        assert!(!m.matches(0x0009));
        assert!(!m.matches(0x0002));
        assert_eq!(m.keywords(), vec!["public", "!static"]);
    }
}
