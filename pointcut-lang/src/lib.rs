//! The aspect language of major: the pest grammar for `.aj` files (an AspectJ
//! subset), the typed AST, name resolution and checking, and the pattern-matching
//! API the weaver calls.
//!
//! ```text
//! .aj text ─► lexical pre-scan ─► grammar.pest ─► ast (parse.rs)
//! .java (@Aspect) ─► annotation_style.rs ─► same ast, pointcut strings parsed in place
//!        ─► check.rs (resolve.rs: imports, named pointcuts, formals → slots)
//!        ─► Program { aspects, advice with resolved Pc }
//!        ─► matcher.rs: compiled patterns against class/member views (TypeWorld)
//! ```
//!
//! Every failure is a [`Diagnostic`] pointing at the source; nothing panics on bad
//! input.

#![warn(missing_docs)]

pub mod annotation_style;
pub mod ast;
pub mod check;
pub mod descriptor;
pub mod diagnostics;
pub mod display;
pub mod fuzz;
pub mod generics;
pub(crate) mod lexical;
pub mod matcher;
pub mod parse;
pub mod patterns;
pub mod resolve;

pub use check::{Program, ResolvedAdvice, ResolvedAspect};
pub use diagnostics::{Diagnostic, Diagnostics, SourceFile};

/// Parses one code-style `.aj` file.
pub fn parse_aj(source: &SourceFile) -> Result<ast::CompilationUnit, Diagnostics> {
    parse::parse_unit(source.text()).map_err(|d| Diagnostics(vec![d.in_source(source)]))
}

/// Parses a pointcut expression given on its own; spans are offsets into `source`.
pub fn parse_pointcut(source: &SourceFile) -> Result<ast::Pointcut, Diagnostics> {
    parse::parse_pointcut(source.text()).map_err(|d| Diagnostics(vec![d.in_source(source)]))
}

/// Parses one file: `.java` files as annotation-style aspects, anything else as
/// code-style `.aj`.
pub fn parse_file(source: &SourceFile) -> Result<ast::CompilationUnit, Diagnostics> {
    if source.name().ends_with(".java") {
        annotation_style::parse_java(source.text())
            .map_err(|ds| Diagnostics(ds.into_iter().map(|d| d.in_source(source)).collect()))
    } else {
        parse_aj(source)
    }
}

/// Parses and checks a set of aspect files together (so that aspects may extend
/// and refer to each other across files). Errors from every file are returned.
pub fn compile(files: Vec<SourceFile>) -> Result<Program, Diagnostics> {
    let mut units = Vec::new();
    let mut errors = Vec::new();
    for (i, f) in files.iter().enumerate() {
        match parse_file(f) {
            Ok(u) => units.push((i, u)),
            Err(ds) => errors.extend(ds.0),
        }
    }
    if !errors.is_empty() {
        return Err(Diagnostics(errors));
    }
    let (mut program, diags) = check::check(files, &units);
    let (errs, warns): (Vec<_>, Vec<_>) = diags
        .into_iter()
        .map(|(f, d)| d.in_source(&program.files[f]))
        .partition(Diagnostic::is_error);
    if !errs.is_empty() {
        return Err(Diagnostics(errs));
    }
    program.warnings = warns;
    Ok(program)
}

/// Parses and resolves a pointcut given on its own (no named pointcuts, no formals)
/// with type names resolved through `scope`: for tools and tests.
pub fn resolve_pointcut(
    source: &SourceFile,
    scope: &resolve::Scope,
) -> Result<resolve::Pc, Diagnostics> {
    let pc = parse_pointcut(source)?;
    let (resolved, diags) = resolve::resolve_standalone(&pc, scope);
    let errs: Vec<Diagnostic> = diags
        .into_iter()
        .filter(Diagnostic::is_error)
        .map(|d| d.in_source(source))
        .collect();
    if errs.is_empty() {
        Ok(resolved)
    } else {
        Err(Diagnostics(errs))
    }
}

/// Parses and checks a single file.
pub fn compile_one(source: SourceFile) -> Result<Program, Diagnostics> {
    compile(vec![source])
}
