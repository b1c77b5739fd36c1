//! Weaving: finding join-point shadows in method bodies, matching advice against
//! them, and inserting the advice calls.
//!
//! For each method body the weaver enumerates the shadows (the body itself for
//! executions and static initialization; call sites, field accesses and handler
//! entries inside it), asks each advice's compiled pointcut whether it matches
//! (statically: yes, no, or maybe — then with a residual runtime test), and
//! weaves the matching advice in precedence order, innermost first:
//!
//! ```text
//!   [store operands] [before₂ [before₁ [S₀ core E₀] after₁] after₂]   [handlers]
//! ```
//! Each layer widens the protected region, so an outer `after throwing` also sees
//! exceptions thrown by inner advice, as in AspectJ. Handler code goes to the end
//! of the method; the exception-table entries of a call-site shadow go before the
//! method's own entries (they are innermost), those of an execution shadow after.
//!
//! The modules, in the order the data goes through them:
//!
//! - [`plan`] — advice prepared once per program: bindings, residues,
//!   precedence; [`cflow`] — the cflow entries planned with it (and the code
//!   that enters and leaves them); [`world`] — the matcher's view of the class
//!   index.
//! - [`driver`] — [`Weaver`]: the per-class driver (which methods, the
//!   delegating constructors, the synthetic `<clinit>`, writing the class).
//! - [`method`] — [`method::MethodWeave`]: the per-method driver (point
//!   shadows last first, then the execution, then (pre)initialization).
//! - [`shadows`] — the shadows of a body and what each offers (its subject,
//!   its static part, the values at it: [`shadows::Context`]).
//! - [`matching`] — the advice that applies at a shadow, with the residue
//!   (runtime test) left for each.
//! - [`layering`] — nesting the matched advice around a point shadow or a
//!   body; [`advice_call`] — one advice call and its residue test.
//! - [`outline`] — the advice calls of a method that would exceed 64 KiB,
//!   moved into helper methods.
//! - [`around`] — around advice: proceed methods, closures, the
//!   `ProceedingJoinPoint`.
//! - [`join_points`] — `thisJoinPoint` objects and the static parts of
//!   executions; [`statics`] — where static parts live in the class.
//! - [`bypass`] — full coverage: the bypass check and the duplicated body;
//!   [`straight`] — point shadows woven as calls of dispatch methods, with
//!   no guard and no bypass decision;
//!   [`module_descriptors`] — the packages added to `java.base` declared to
//!   the module system;
//!   [`context`] — the calling-context tree behind `thisCallingContext`,
//!   kept in every woven body when an advice uses it;
//!   [`inline`] — delegated constructors inlined for initialization join
//!   points; [`aspect_classes`] — the aspects' own classes; [`emit`] — the
//!   bytecode snippets everything above uses.

pub mod advice_call;
pub mod around;
pub mod aspect_classes;
pub mod bypass;
pub mod cflow;
pub mod context;
pub mod driver;
pub mod emit;
pub mod inline;
pub mod join_points;
pub mod layering;
pub mod matching;
pub mod method;
pub mod module_descriptors;
pub mod outline;
pub mod plan;
pub mod quiet;
pub mod shadows;
pub mod statics;
pub mod straight;
pub mod world;

use major_pointcut_lang::ast::AdviceKind;
use major_pointcut_lang::matcher::ShadowKind;
use major_pointcut_lang::{Program, ResolvedAdvice};

pub use driver::{ClassOutcome, DeclareHit, Weaver};
use plan::PlannedAdvice;

/// The descriptor of `java.lang.Throwable`, the type of the exception temps.
const THROWABLE: &str = "Ljava/lang/Throwable;";

/// The AspectJ kind name of a shadow kind.
pub fn kind_name(k: ShadowKind) -> &'static str {
    match k {
        ShadowKind::MethodCall => "method-call",
        ShadowKind::ConstructorCall => "constructor-call",
        ShadowKind::MethodExecution => "method-execution",
        ShadowKind::ConstructorExecution => "constructor-execution",
        ShadowKind::FieldGet => "field-get",
        ShadowKind::FieldSet => "field-set",
        ShadowKind::StaticInitialization => "staticinitialization",
        ShadowKind::Initialization => "initialization",
        ShadowKind::PreInitialization => "preinitialization",
        ShadowKind::ExceptionHandler => "exception-handler",
        ShadowKind::AdviceExecution => "adviceexecution",
    }
}

/// An advice for notes: `before advice in p.Tracer`.
fn describe_short(a: &PlannedAdvice<'_>) -> String {
    format!(
        "{} advice in {}",
        a.resolved.kind.name(),
        a.resolved.declared_in
    )
}

/// Whether `a` is around advice (not a cflow entry).
fn is_around(a: &PlannedAdvice<'_>) -> bool {
    a.entry.is_none() && matches!(a.resolved.kind, AdviceKind::Around(_))
}

/// A short description of an advice for messages: `before(): Tracer.aj:12`.
pub fn describe(program: &Program, a: &ResolvedAdvice) -> String {
    let f = &program.files[a.file];
    let line = f.text()[..a.span.start.min(f.text().len())]
        .matches('\n')
        .count()
        + 1;
    format!(
        "{} advice in {} ({}:{})",
        a.kind.name(),
        a.declared_in,
        f.name(),
        line
    )
}
