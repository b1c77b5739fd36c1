//! Errors of the `major` command, with where they happened.

use std::path::PathBuf;

use major_archive::ArchiveError;

/// An error tied to one archive entry.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum MajorError {
    /// The archive itself could not be read or written.
    #[error(transparent)]
    #[diagnostic(code(major::archive))]
    Archive(#[from] ArchiveError),
    /// A class in an archive could not be processed.
    #[error("{archive}!{entry}: {source}")]
    #[diagnostic(code(major::class))]
    Class {
        /// The archive.
        archive: PathBuf,
        /// The entry inside it.
        entry: String,
        /// What the class-file engine reported (names class, method, offset).
        #[source]
        source: major_classfile::Error,
    },
    /// The aspects did not parse or check.
    #[error("the aspects have errors:\n{0}")]
    #[diagnostic(code(major::aspects))]
    Aspects(String),
    /// The aspects did not compile.
    #[error(transparent)]
    #[diagnostic(transparent)]
    AspectCompile(Box<crate::aspects::compile::AspectCompileError>),
    /// `declare error` (or conflicting precedence) matched join points:
    /// nothing was written. Each hit with the class it is in.
    #[error(
        "errors at join points (declare error, conflicting precedence); nothing written:\n{}",
        .0.iter()
            .map(|(_, d)| format!("{} [error] {}", d.location, d.message))
            .collect::<Vec<_>>()
            .join("\n")
    )]
    #[diagnostic(code(major::declare_error))]
    JoinPointErrors(Vec<(String, crate::weave::DeclareHit)>),
    /// Anything else, with a message.
    #[error("{0}")]
    #[diagnostic(code(major::usage))]
    Usage(String),
}

impl MajorError {
    /// A class error for `entry` of `archive`.
    pub fn class(archive: &std::path::Path, entry: &str, source: major_classfile::Error) -> Self {
        MajorError::Class {
            archive: archive.to_path_buf(),
            entry: entry.to_string(),
            source,
        }
    }
}

/// What the weave of one class found, kept for the machine-readable report
/// ([`crate::report_json`]): every class the weave changed, and every class
/// where something was left unwoven or a `declare` matched. Built from the
/// same [`ClassOutcome`](crate::weave::ClassOutcome) whose counts the text
/// report sums.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassRecord {
    /// The class's internal name (`com/google/common/base/Joiner`).
    pub name: String,
    /// The input it came from (an index into `WeaveReport::inputs`); `None`
    /// for a compiled aspect class.
    pub input: Option<usize>,
    /// The release of a multi-release jar's versioned class.
    pub release: Option<u32>,
    /// Whether the class changed.
    pub woven: bool,
    /// The extra class the weave made beside it (static parts), internal name.
    pub extra_class: Option<String>,
    /// Advised shadows per join-point kind.
    pub shadows: std::collections::BTreeMap<&'static str, usize>,
    /// Per advice (by [`AdviceRecord::id`]), the shadows it matched here
    /// (woven, or left unwoven as an intrinsic's or empty finalizer's
    /// execution); advice matching nothing in the class is left out.
    pub advice: Vec<(usize, usize)>,
    /// The same per advice and join-point kind (advice id, kind name →
    /// shadows).
    pub advice_kinds: std::collections::BTreeMap<(usize, &'static str), usize>,
    /// Methods left unwoven, each with the reason.
    pub skipped_methods: Vec<String>,
    /// `@IntrinsicCandidate` methods whose execution advice matched, left
    /// unwoven.
    pub intrinsics: usize,
    /// Empty `finalize()` methods whose execution advice matched, left unwoven.
    pub empty_finalizers: usize,
    /// Advice left out at some join points of the class, with the reason.
    pub notes: Vec<String>,
    /// `declare warning` / `declare error` matches in the class.
    pub declares: Vec<crate::weave::DeclareHit>,
}

impl ClassRecord {
    /// The record of one class's outcome (`woven`: whether it changed;
    /// `extra_class`: the internal name of the extra class made beside it),
    /// or `None` when there is nothing to say about it (unchanged, nothing
    /// skipped, no declare matched).
    pub fn of(
        name: &str,
        input: Option<usize>,
        release: Option<u32>,
        woven: bool,
        extra_class: Option<&str>,
        o: &crate::weave::ClassOutcome,
    ) -> Option<ClassRecord> {
        let quiet = !woven
            && o.skipped_methods.is_empty()
            && o.intrinsics == 0
            && o.empty_finalizers == 0
            && o.notes.is_empty()
            && o.declares.is_empty();
        if quiet {
            return None;
        }
        Some(ClassRecord {
            name: name.to_string(),
            input,
            release,
            woven,
            extra_class: extra_class.map(str::to_string),
            shadows: o.advised.clone(),
            advice: o
                .advice_hits
                .iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(|(id, n)| (id, *n))
                .collect(),
            advice_kinds: o.advice_kinds.clone(),
            skipped_methods: o.skipped_methods.iter().map(|e| e.to_string()).collect(),
            intrinsics: o.intrinsics,
            empty_finalizers: o.empty_finalizers,
            notes: o.notes.clone(),
            declares: o.declares.clone(),
        })
    }
}

/// One advice of the weave, described as the text report describes it
/// (kind, aspect, file:line), with the shadows it was woven into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdviceRecord {
    /// Its number in the weave (the index the [`ClassRecord::advice`] counts use).
    pub id: usize,
    /// `before`, `after`, `after returning`, `after throwing`, `around`.
    pub kind: &'static str,
    /// The concrete aspect whose instance runs it (binary name, `p.Tracer`).
    pub aspect: String,
    /// The aspect that declares it (an abstract ancestor for inherited advice).
    pub declared_in: String,
    /// The source file of the declaration, as the aspect was given.
    pub file: String,
    /// The line of the declaration (1-based).
    pub line: usize,
    /// The description the text report uses (`before advice in p.Tracer (Tracer.aj:12)`).
    pub description: String,
    /// The join-point kinds its pointcut can match at all.
    pub could_match: Vec<&'static str>,
    /// The shadows it matched, over all classes: woven, or left unwoven as
    /// the execution of an `@IntrinsicCandidate` method or an empty
    /// `finalize()` (those are counted apart too). Zero: unmatched.
    pub shadows: usize,
}

/// Every join-point kind, in the order the report lists them.
pub const SHADOW_KINDS: [major_pointcut_lang::matcher::ShadowKind; 11] = {
    use major_pointcut_lang::matcher::ShadowKind as K;
    [
        K::MethodCall,
        K::ConstructorCall,
        K::MethodExecution,
        K::ConstructorExecution,
        K::FieldGet,
        K::FieldSet,
        K::StaticInitialization,
        K::Initialization,
        K::PreInitialization,
        K::ExceptionHandler,
        K::AdviceExecution,
    ]
};

impl AdviceRecord {
    /// The record of `a` (an advice, not a cflow entry) of `program`, woven
    /// into `shadows` shadows.
    pub fn of(
        program: &major_pointcut_lang::Program,
        a: &crate::weave::plan::PlannedAdvice<'_>,
        shadows: usize,
    ) -> AdviceRecord {
        let r = a.resolved;
        let f = &program.files[r.file];
        let line = f.text()[..r.span.start.min(f.text().len())]
            .matches('\n')
            .count()
            + 1;
        AdviceRecord {
            id: a.id,
            kind: r.kind.name(),
            aspect: a.aspect_class.replace('/', "."),
            declared_in: r.declared_in.clone(),
            file: f.name().to_string(),
            line,
            description: crate::weave::describe(program, r),
            could_match: SHADOW_KINDS
                .iter()
                .filter(|k| a.pointcut.could_match(**k))
                .map(|k| crate::weave::kind_name(*k))
                .collect(),
            shadows,
        }
    }
}
