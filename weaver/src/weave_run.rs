//! `major weave`: aspects in, woven archive out.
//!
//! ```text
//! .aj files ─► pointcut-lang (parse, check) ─► aspects::compile (javac) ─┐
//! inputs + classpath + JDK + aspect classes + runtime ─► ClassIndex ──────┤
//!                                                                          ▼
//! input classes ─(rayon)─► Weaver::weave_class ─► OutputArchive (input order,
//!   untouched entries raw-copied; extra classes after their class; aspect and
//!   runtime classes at the end) ─► renamed into place only if all went well
//! ```

use std::collections::HashSet;

use rustc_hash::FxHashSet;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use major_archive::{
    Archive, ArchiveKind, Compression, OutputArchive, OutputKind, PreparedEntry, RuntimeImage,
};
use major_pointcut_lang::SourceFile;
use rayon::prelude::*;

use crate::aspects::cache::{AspectCache, CacheKey};
use crate::aspects::compile::{compile, CompileCache};
use crate::aspects::CompiledAspects;
use crate::index::ClassIndex;
use crate::jdk::Jdk;
use crate::outputs::Plan;
use crate::report::MajorError;
use crate::runtime::{cached_runtime_jar, write_runtime_jar, RUNTIME_CLASSES};
use crate::signed::{signature_files, SignedJars};
use crate::weave::bypass::BypassForm;
use crate::weave::{describe, ClassOutcome, DeclareHit, Weaver};

/// What to weave.
#[derive(Debug, Clone)]
pub struct WeaveOptions {
    /// Aspect files (`.aj`).
    pub aspects: Vec<PathBuf>,
    /// Inputs: jars, class directories.
    pub inputs: Vec<PathBuf>,
    /// The output: a `.jar`/`.zip` or a directory.
    pub output: PathBuf,
    /// More archives for type resolution only.
    pub classpath: Vec<PathBuf>,
    /// The JDK completing the class hierarchy and providing javac.
    pub jdk: Jdk,
    /// Put the runtime classes (org.aspectj.lang, major.runtime) into the output.
    pub bundle_runtime: bool,
    /// The directory caching compiled aspects ([`crate::aspects::cache`]);
    /// `None` compiles with javac every time.
    pub cache: Option<PathBuf>,
    /// Fail when a method needs a class missing from the class path, instead
    /// of leaving it unwoven with a warning.
    pub strict: bool,
    /// Full coverage: the inputs include the class library (`java.base` ...),
    /// woven behind the bootstrap and thread-local bypasses
    /// ([`crate::weave::bypass`]).
    pub full_coverage: bool,
    /// Full coverage: how woven methods bypass their advice.
    pub bypass: BypassForm,
    /// How jars are laid out and treated ([`JarOptions`]).
    pub jars: JarOptions,
    /// Modules to weave from the JDK run-time images among the inputs
    /// (`lib/modules`): each becomes an input of its own, woven into
    /// `<module>.jar` (empty: an image is woven whole).
    pub modules: Vec<String>,
    /// Keep a record per class in the report
    /// ([`WeaveReport::class_records`], what `--report json` lists). Off,
    /// a weave that prints only its summary builds none: an incremental
    /// weave would otherwise rebuild one from the state for every class it
    /// keeps.
    pub class_records: bool,
}

/// How a weave treats jars: where the added classes go when several inputs
/// are woven into a directory, and what becomes of signed jars.
#[derive(Debug, Clone, Default)]
pub struct JarOptions {
    /// With several inputs woven into a directory: the file name of the jar
    /// that receives the aspect, extra and runtime classes (an input's name
    /// puts them into that woven jar); `None`:
    /// [`DEFAULT_RUNTIME_JAR`](crate::outputs::DEFAULT_RUNTIME_JAR).
    pub runtime_jar: Option<String>,
    /// What becomes of a signed jar whose classes change.
    pub signed_jars: SignedJars,
}

/// What a weave did.
#[derive(Debug, Default)]
pub struct WeaveReport {
    /// Class entries read (the versioned classes of multi-release jars are
    /// counted in `releases`).
    pub classes: usize,
    /// Classes changed.
    pub woven: usize,
    /// The versioned classes of multi-release inputs: release → (classes
    /// read, classes changed).
    pub releases: BTreeMap<u32, (usize, usize)>,
    /// Advised shadows per join-point kind.
    pub advised: BTreeMap<&'static str, usize>,
    /// Advice that matched nothing: description.
    pub unmatched: Vec<String>,
    /// Advice that cannot be woven: description and reason.
    pub unsupported: Vec<(String, &'static str)>,
    /// `declare warning` hits.
    pub declare_warnings: Vec<DeclareHit>,
    /// Methods left unwoven (too large, subroutines), with the reason.
    pub skipped_methods: Vec<String>,
    /// Warnings from checking the aspects.
    pub aspect_warnings: Vec<String>,
    /// Advice left out at some join points, with the reason.
    pub notes: Vec<String>,
    /// Empty `finalize()` methods whose execution advice matched, left
    /// unwoven: HotSpot never runs them.
    pub empty_finalizers: usize,
    /// `@IntrinsicCandidate` methods whose execution advice matched, left
    /// unwoven (see [`ClassOutcome::intrinsics`]).
    pub intrinsics: usize,
    /// Other warnings (an aspect cache that cannot be used, signed jars whose
    /// signature was removed).
    pub warnings: Vec<String>,
    /// Wall time of each phase, in order.
    pub timings: Vec<(&'static str, std::time::Duration)>,
    /// The outputs written, in the order of the plan. An output of a module
    /// of a run-time image is a patch holding only the module's changed
    /// classes: one whose classes the weave left unchanged is not written.
    pub written: Vec<PathBuf>,
    /// The classes the weave added to the output (compiled aspects, extra
    /// classes, runtime classes, the bypass class), as entry names.
    pub added_classes: Vec<String>,
    /// Full coverage: the packages of the added classes that `java.base`
    /// did not have (internal form), declared in its module descriptor.
    pub base_packages_added: Vec<String>,
    /// For a weave that keeps incremental state ([`crate::incremental`]):
    /// how much it re-wove, or why it was full.
    pub incremental: Option<crate::incremental::Summary>,
    /// The inputs, as opened (a module of a run-time image as
    /// `<image>/<module>`), in order.
    pub inputs: Vec<PathBuf>,
    /// Per class: what its weave found, for every class changed or with
    /// something left unwoven or a `declare` match, in output order (the
    /// JSON report, [`crate::report_json`]).
    pub class_records: Vec<crate::report::ClassRecord>,
    /// Whether `class_records` is kept ([`WeaveOptions::class_records`]).
    pub(crate) keeps_class_records: bool,
    /// Every advice of the weave (cflow entries left out), with the shadows
    /// it matched; those with none are also in `unmatched`.
    pub advice: Vec<crate::report::AdviceRecord>,
}

/// Weaves; on any error nothing is written.
pub fn run(opts: &WeaveOptions) -> Result<WeaveReport, MajorError> {
    std::thread::scope(|scope| run_in(opts, scope))
}

/// What the thread of the aspects waits for from the weave: the inputs and
/// class path as opened (see [`compile_aspects_with`]), and whether the
/// weave is incremental (the previous weave's state is then read too).
type Opened = (Vec<Option<Arc<Archive>>>, bool);

/// [`run`], with `scope` for the thread of the aspects.
fn run_in<'scope, 'env>(
    opts: &'env WeaveOptions,
    scope: &'scope std::thread::Scope<'scope, 'env>,
) -> Result<WeaveReport, MajorError> {
    let mut clock = Clock::start();
    // The aspects are read, checked and compiled (javac's output taken from
    // the cache) on a thread of their own, started first: what needs no
    // input (the sources parsed, the cache and runtime jar checked) is done
    // while the inputs are opened; the rest waits for them. A run that
    // fails before sending them ends that thread's wait with nothing.
    let (opened_tx, opened_rx) = std::sync::mpsc::channel::<Opened>();
    let aspects = scope.spawn(move || {
        let sources = AspectSources {
            aspects: &opts.aspects,
            classpath: opts.inputs.iter().chain(&opts.classpath).cloned().collect(),
            jdk: &opts.jdk,
            cache: opts.cache.as_deref(),
        };
        let mut incremental = false;
        let compiled = compile_aspects_with(&sources, || {
            let (opened, i) = opened_rx.recv().ok()?;
            incremental = i;
            Some(opened)
        });
        let state = incremental
            .then(|| crate::incremental::StateFile::read(&opts.output))
            .flatten();
        (compiled, state)
    });
    // 0. The inputs and the class path are opened first: a misspelled path
    // is reported as such, not as whatever javac makes of its absence.
    let open = |p: &PathBuf, what: &str| {
        if std::fs::symlink_metadata(p).is_err() {
            return Err(MajorError::Usage(format!(
                "{}: no such {what} (inputs and class-path elements are jars or class directories)",
                p.display()
            )));
        }
        Archive::open(p).map(Arc::new).map_err(MajorError::from)
    };
    // Each selected module of a run-time image is an input of its own.
    let mut inputs: Vec<Arc<Archive>> = Vec::new();
    let mut input_paths: Vec<&Path> = Vec::new();
    for p in &opts.inputs {
        let a = open(p, "input")?;
        if a.kind() != major_archive::ArchiveKind::JImage || opts.modules.is_empty() {
            inputs.push(a);
            input_paths.push(p);
            continue;
        }
        let names: Vec<&str> = opts.modules.iter().map(String::as_str).collect();
        for m in Arc::into_inner(a)
            .expect("the image is opened here only")
            .modules(&names)?
        {
            inputs.push(Arc::new(m));
            input_paths.push(p);
        }
    }
    // Woven library code learns that the VM has booted from VM.initLevel:
    // without java.base's VM among the inputs, no advice would ever run.
    let vm = crate::weave::bypass::VM;
    let has_vm = |a: &Arc<Archive>| a.entries().iter().any(|e| e.class_name() == Some(vm));
    if opts.full_coverage && !inputs.iter().any(has_vm) {
        return Err(MajorError::Usage(format!(
            "--full-coverage: java.base is not among the inputs (no {vm}): the woven \
             code needs java.base woven in the same run (e.g. $JAVA_HOME/jmods/java.base.jmod, \
             or `major weave --jdk`, which weaves the whole JDK)"
        )));
    }
    let classpath: Vec<Arc<Archive>> = opts
        .classpath
        .iter()
        .map(|p| open(p, "class-path element"))
        .collect::<Result<_, _>>()?;
    // 1. The aspects (on their thread), given the inputs and class path
    // open already, not to be listed again.
    let opened: Vec<Option<Arc<Archive>>> = opts
        .inputs
        .iter()
        .map(|p| {
            let k = input_paths.iter().position(|q| q == p)?;
            let a = &inputs[k];
            (a.kind() != major_archive::ArchiveKind::JImage).then(|| a.clone())
        })
        .chain(classpath.iter().cloned().map(Some))
        .collect();
    let multi_release: Vec<bool> = inputs.iter().map(|a| a.is_multi_release()).collect();
    // The index of the inputs needs nothing of the aspects: it is read (the
    // inputs inflated on the pool) while their thread compiles or loads
    // them. With incremental weaving, the inputs' stamps are taken first
    // (the index need not read the entries they tell unchanged), and the
    // thread of the aspects reads the previous weave's state once they are
    // done. Errors keep their order: the aspects', then the run-time
    // image's, then the inputs'.
    let incremental = crate::incremental::eligible(opts, &inputs, &multi_release);
    // (A thread of the aspects that failed already dropped its end: then
    // there is no one to send them to.)
    let _ = opened_tx.send((opened, incremental));
    let stamped = incremental.then(|| crate::incremental::Prefetched::stamps(opts, &inputs));
    let early_index = (|| {
        let mut index = ClassIndex::new();
        for (k, a) in inputs.iter().enumerate() {
            match &stamped {
                Some(s) => index.add_input_known(a.clone(), None, |i| s.known_name(k, i))?,
                None => index.add_input(a.clone(), None)?,
            }
        }
        Ok::<_, MajorError>(index)
    })();
    // An incremental weave into a jar reuses the jar there: it is opened
    // (its central directory read) while the aspects' thread finishes, and
    // checked once the state is read.
    let opened = stamped
        .as_ref()
        .filter(|_| opts.output.is_file())
        .and_then(|_| crate::incremental::OpenedOutput::open(&opts.output));
    let (compiled, prefetched) = match aspects.join() {
        Ok((compiled, state)) => (
            compiled,
            stamped.map(|s| crate::incremental::Prefetched::new(opts, s, state, opened)),
        ),
        Err(panic) => std::panic::resume_unwind(panic),
    };
    let compiled = compiled?;
    let CompiledProgram {
        program,
        aspects,
        warnings,
        runtime_jar: rt,
        cache_dir,
        work,
    } = compiled;
    clock.lap(if aspects.from_cache {
        "aspects (cached)"
    } else {
        "compile aspects"
    });

    // 2. The class hierarchy: one index of the base classes, and one per
    // release that a multi-release input has classes for (its versioned
    // classes replacing the base ones, as a JDK of that release loads them).
    let image = Arc::new(RuntimeImage::open(&opts.jdk.modules())?);
    // Incremental weaving: the inputs' stamps tell which entries the index
    // need not read.
    let session =
        prefetched.map(|read| crate::incremental::Session::new(opts, &program, &aspects, read));
    let releases: BTreeSet<u32> = inputs
        .iter()
        .zip(&multi_release)
        .filter(|(_, mr)| **mr)
        .flat_map(|(a, _)| a.entries().iter().filter_map(|e| e.versioned_class()))
        .map(|(k, _)| k)
        .collect();
    // `early`: the base index with the inputs in already.
    let build_index =
        |release: Option<u32>, early: Option<ClassIndex>| -> Result<ClassIndex, MajorError> {
            let mut index = match early {
                Some(index) => index,
                None => {
                    let mut index = ClassIndex::new();
                    for a in &inputs {
                        index.add_input(a.clone(), release)?;
                    }
                    index
                }
            };
            for a in &classpath {
                index.add_shared(a.clone());
            }
            for (_, bytes) in &aspects.classes {
                index
                    .add_class(bytes)
                    .map_err(|e| MajorError::Usage(format!("compiled aspect class: {e}")))?;
            }
            for (_, bytes) in RUNTIME_CLASSES {
                index
                    .add_class(bytes)
                    .map_err(|e| MajorError::Usage(format!("runtime class: {e}")))?;
            }
            index.add_image(image.clone());
            Ok(index)
        };
    let index = build_index(None, Some(early_index?))?;
    let release_indexes: Vec<(u32, ClassIndex)> = releases
        .iter()
        .map(|&k| Ok((k, build_index(Some(k), None)?)))
        .collect::<Result<_, MajorError>>()?;
    clock.lap("index classes");
    // Incremental weaving: what the weave as a whole looks up is recorded
    // from here on.
    let global_lookups = crate::incremental::deps::Recording::start(session.is_some());

    // 3. Weave every class of every input, in parallel.
    let circular = major_pointcut_lang::check::precedence_errors(
        &program,
        &crate::weave::world::IndexWorld::new(&index),
    );
    if !circular.is_empty() {
        return Err(MajorError::Aspects(
            major_pointcut_lang::Diagnostics(circular).render(),
        ));
    }
    let new_weaver = |ix| {
        let mut w = Weaver::new(&program, &aspects, ix);
        w.strict = opts.strict;
        w.full_coverage = opts.full_coverage;
        w.bypass_form = opts.bypass;
        w
    };
    let mut weaver = new_weaver(&index);
    let extra_classes = weaver
        .extra_classes()
        .map_err(|e| MajorError::Usage(format!("cflow state classes: {e}")))?;
    // The packages of the classes added to the output that gets them: a
    // module-info there that lists its packages must list these too.
    let added_packages: BTreeSet<String> = aspects
        .classes
        .iter()
        .chain(&extra_classes)
        .map(|(n, _)| n.as_str())
        .chain(
            RUNTIME_CLASSES
                .iter()
                .filter(|_| opts.bundle_runtime)
                .map(|(n, _)| *n),
        )
        .filter_map(|n| crate::modules::package_of(n.trim_end_matches(".class")))
        .map(str::to_string)
        .collect();
    // Full coverage: those java.base lacks join its module descriptor.
    let mut base_packages_added = Vec::new();
    if opts.full_coverage {
        let base: HashSet<&str> = inputs
            .iter()
            .filter(|a| has_vm(a))
            .flat_map(|a| a.entries().iter().filter_map(|e| e.class_name()))
            .filter_map(crate::modules::package_of)
            .collect();
        base_packages_added = added_packages
            .iter()
            .filter(|p| !base.contains(p.as_str()))
            .cloned()
            .collect();
        weaver.added_packages = base_packages_added
            .iter()
            .map(|p| p.replace('/', "."))
            .collect();
    }
    let weaver = weaver;
    let release_weavers: Vec<(u32, Weaver<'_>)> = release_indexes
        .iter()
        .map(|(k, ix)| (*k, new_weaver(ix)))
        .collect();
    let weavers = Weavers {
        base: (&weaver, &index),
        releases: release_weavers
            .iter()
            .zip(&release_indexes)
            .map(|((k, w), (_, ix))| (*k, (w, ix)))
            .collect(),
    };
    let mut report = WeaveReport {
        inputs: inputs.iter().map(|a| a.path().to_path_buf()).collect(),
        base_packages_added,
        unsupported: weaver.unsupported.clone(),
        warnings,
        keeps_class_records: opts.class_records,
        ..Default::default()
    };
    clock.lap("match aspects");
    report.aspect_warnings = program
        .warnings
        .iter()
        .chain(&major_pointcut_lang::check::unknown_type_names(
            &program,
            &crate::weave::world::IndexWorld::new(&index),
        ))
        .map(|w| w.render().trim_end().to_string())
        .collect();
    // Classes the aspects became replace input classes of the same name (an
    // `@Aspect` class compiled with the program is rewritten with aspectOf()).
    // (Fx hashing: every entry written is looked up.)
    let replaced: FxHashSet<&str> = aspects
        .classes
        .iter()
        .map(|(n, _)| n.trim_end_matches(".class"))
        .collect();
    // Weaving runs on the rayon pool a chunk of entries at a time; woven classes
    // are compressed there too. A writer thread writes each chunk in input order
    // (untouched entries raw-copied) while the next one is woven. The output is
    // renamed into place only at the end, if all went well.
    let mut recorder = None;
    let mode = session.map(|s| s.decide(&index, global_lookups.finish(), weaver.advice().len()));
    let mut hits = vec![0usize; weaver.advice().len()];
    let mut errors: Vec<(String, DeclareHit)> = Vec::new();
    match mode {
        Some(crate::incremental::Mode::Full(r)) => recorder = Some(*r),
        Some(crate::incremental::Mode::Update(mut update)) => {
            // The output directory is updated in place: only the entries
            // that need it are woven again.
            update.weave_inputs(
                &weaver,
                &index,
                &inputs[0],
                &replaced,
                &added_packages,
                &mut report,
                &mut hits,
                &mut errors,
            )?;
            let aspect_classes =
                weave_aspect_classes(&weaver, &aspects, &mut report, &mut hits, &mut errors)?;
            declare_errors(errors)?;
            advice_outcomes(&weaver, &program, &hits, &mut report);
            clock.lap("weave (incremental)");
            let runtime = RUNTIME_CLASSES.iter().filter(|_| opts.bundle_runtime);
            let added: Vec<(String, Vec<u8>)> = aspect_classes
                .into_iter()
                .chain(extra_classes)
                .chain(runtime.map(|(n, b)| (n.to_string(), b.to_vec())))
                .collect();
            report.added_classes = added.iter().map(|(n, _)| n.clone()).collect();
            report.incremental = Some(update.commit(&index, &added, &mut report)?);
            report.written.push(opts.output.clone());
            clock.lap("update output");
            report.timings = clock.laps;
            return Ok(report);
        }
        None => {}
    }
    let plan = Plan::new(
        &inputs.iter().map(|a| &**a).collect::<Vec<_>>(),
        &opts.output,
        opts.jars.runtime_jar.as_deref(),
    )?
    .with_compression(if opts.full_coverage {
        Compression::Store
    } else {
        Compression::Deflate
    });
    let (mut outs, created_dir) = plan.create()?;
    // A jar woven from a jar has its permission bits (a directory output's
    // class files have those of their input files).
    for (i, path) in input_paths.iter().enumerate() {
        let Some(&o) = plan.of_input.get(i) else {
            continue;
        };
        if plan.targets[o].1 == OutputKind::Zip && path.is_file() {
            if let Some(mode) = OutputArchive::mode_of(path) {
                outs[o].set_mode(mode);
            }
        }
    }
    let total = inputs.iter().map(|a| a.entries().len() as u64).sum();
    // At most a record per entry: reserved once rather than grown (each
    // growth copies the records into fresh pages).
    if report.keeps_class_records {
        report.class_records.reserve(total as usize);
    }
    let mut progress = crate::progress::Progress::start("weaving", total);
    let mut prepared = None;
    let (mut outs, (added, runtime_jar)) = std::thread::scope(|scope| -> Result<_, MajorError> {
        // Entries go to the writer a batch at a time (a chunk's, or one
        // woven entry streamed): the writer, often waiting, is woken once
        // per batch rather than once per entry (an update of guava's jar,
        // its entries nearly all kept: 0.6 ms less in about 10).
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Written>>(2 * CHUNK);
        let writer = scope.spawn(|| {
            let w = Writer::new(outs, &plan, &inputs, &replaced, &added_packages);
            write_inputs(w, opts.jars.signed_jars, rx)
        });
        let woven = (|| -> Result<(), MajorError> {
            if recorder.is_none() {
                // Nothing recorded, nothing reused: no barrier between chunks.
                return weave_streamed(
                    &inputs,
                    |input, i| {
                        let a = &inputs[input];
                        crate::incremental::observe(None, &index, input, a, i, || {
                            weave_entry(
                                &weavers,
                                a,
                                multi_release[input],
                                i,
                                plan.kind_of_input(input),
                                plan.compression,
                            )
                        })
                        .map(|(w, _)| w)
                    },
                    |input, index, w| {
                        let (class, extra) = match w {
                            Some(w) => {
                                tally(&mut report, &mut hits, &mut errors, &w, Some(input));
                                (w.class, w.extra)
                            }
                            None => (None, None),
                        };
                        progress.advance(1);
                        // false: the writer failed, its error is reported
                        tx.send(vec![Written {
                            input,
                            index,
                            class,
                            extra,
                        }])
                        .is_ok()
                    },
                );
            }
            for (input, a) in inputs.iter().enumerate() {
                let n = a.entries().len();
                let kind = plan.kind_of_input(input);
                for start in (0..n).step_by(CHUNK) {
                    let end = (start + CHUNK).min(n);
                    let weave_one = |i: usize| {
                        crate::incremental::observe(recorder.as_ref(), &index, input, a, i, || {
                            weave_entry(
                                &weavers,
                                a,
                                multi_release[input],
                                i,
                                kind,
                                plan.compression,
                            )
                        })
                        .map(Ok)
                    };
                    // Into a jar, an entry the previous weave's output stands
                    // for is not woven again. Where there is a previous weave
                    // to reuse, most entries are kept: that is decided here,
                    // one entry after another, and only the others are woven
                    // in parallel (waking the pool for a chunk of kept
                    // entries cost more than deciding them).
                    let results: Vec<Result<_, MajorError>> = match &recorder {
                        Some(r) if r.reusing() => {
                            let mut decided: Vec<Option<Result<_, MajorError>>> = (start..end)
                                .map(|i| match r.kept(&index, input, a, i, plan.compression) {
                                    Ok(Some(k)) => Some(Ok(Err((k.old, k.class, k.extra)))),
                                    Ok(None) => None,
                                    Err(e) => Some(Err(e)),
                                })
                                .collect();
                            let todo: Vec<usize> = (start..end)
                                .filter(|i| decided[i - start].is_none())
                                .collect();
                            // Mostly none or one: woven here then.
                            let woven = crate::pool::map(&todo, 2, |&i| weave_one(i));
                            for (i, w) in todo.into_iter().zip(woven) {
                                decided[i - start] = Some(w);
                            }
                            decided.into_iter().flatten().collect()
                        }
                        // Nothing to reuse: every entry is woven.
                        _ => (start..end).into_par_iter().map(weave_one).collect(),
                    };
                    let mut batch = Vec::with_capacity(end - start);
                    for (index, r) in (start..end).zip(results) {
                        let (w, seen) = match r? {
                            Ok(woven) => woven,
                            Err((old, class, extra)) => {
                                let e = &a.entries()[index];
                                let name = e.class_name().unwrap_or(&e.name);
                                if let Some(rec) = recorder.as_mut() {
                                    rec.keep(old, name, &mut report, &mut hits, &mut errors);
                                }
                                batch.push(Written {
                                    input,
                                    index,
                                    class,
                                    extra,
                                });
                                continue;
                            }
                        };
                        if let (Some(rec), Some(seen)) = (recorder.as_mut(), seen) {
                            let outputs = output_files(&a.entries()[index], &replaced, w.as_ref());
                            let outcome = w.as_ref().map(|w| (&w.outcome, w.class.is_some()));
                            rec.entry(input, a, index, seen, outcome, outputs);
                        }
                        let (class, extra) = match w {
                            Some(w) => {
                                tally(&mut report, &mut hits, &mut errors, &w, Some(input));
                                (w.class, w.extra)
                            }
                            None => (None, None),
                        };
                        batch.push(Written {
                            input,
                            index,
                            class,
                            extra,
                        });
                    }
                    if tx.send(batch).is_err() {
                        return Ok(()); // the writer failed: its error is reported
                    }
                    progress.advance((end - start) as u64);
                }
            }
            Ok(())
        })();
        drop(tx);
        // The incremental state, but for the classes major adds, while the
        // writer finishes.
        if woven.is_ok() {
            prepared = recorder.take().map(|r| r.prepare(&index));
        }
        // The aspects' own classes are woven too, as ajc does (advice
        // methods are adviceexecution join points; what major generated has
        // none), and the classes major adds are prepared: both while the
        // writer finishes.
        let added = woven.is_ok().then(|| {
            let aspect_classes =
                weave_aspect_classes(&weaver, &aspects, &mut report, &mut hits, &mut errors)?;
            prepare_added(AddedParts {
                opts,
                plan: &plan,
                cache_dir: cache_dir.as_deref(),
                runtime_jar: &rt,
                aspect_classes,
                extra_classes,
                weaver: &weaver,
                index: &index,
            })
        });
        let written = writer.join().expect("the output writer panicked");
        woven?;
        let w = written?;
        report.notes.extend(w.notes);
        report.warnings.extend(w.warnings);
        let added = added.expect("prepared when the weave went through")?;
        Ok((w.outs, added))
    })?;
    drop(progress);
    declare_errors(errors)?;
    advice_outcomes(&weaver, &program, &hits, &mut report);
    clock.lap("weave and write");

    // 4. The classes major adds, after the inputs (prepared above).
    let out_kind = plan.added_kind();
    let out = &mut outs[plan.added];
    for entry in added {
        report.added_classes.push(entry.name().to_string());
        out.write_prepared(entry)?;
    }
    if let Some(jar) = &runtime_jar {
        for (i, e) in jar.entries().iter().enumerate() {
            if e.name.ends_with(".class") {
                report.added_classes.push(e.name.clone());
                out.copy_raw(jar, i)?;
            }
        }
    }
    // The incremental state, for the next weave into the same directory (in
    // it) or jar (beside it, once it is in place).
    let mut beside = None;
    if let Some(p) = prepared {
        let (state, summary, stamps) = p.finish(&report.added_classes);
        if out_kind == OutputKind::Zip {
            beside = Some((state, stamps));
        } else {
            outs[plan.added].write(crate::incremental::state::STATE_FILE, &state)?;
            stamps.save();
        }
        report.incremental = Some(summary);
    }
    // Every output is complete: only now does any of them go into place. A
    // patch of a run-time image's module that the weave left unchanged is
    // empty: not written. (A jar replaced stays open until
    // `crate::later` lets it go: freeing its pages need not delay a
    // resident weaver's answer.)
    let replaced_jar = std::fs::File::open(&opts.output)
        .ok()
        .filter(|f| f.metadata().is_ok_and(|m| m.is_file()));
    for (o, out) in outs.into_iter().enumerate() {
        if o != plan.added && out.is_empty() && plan.is_patch(o) {
            continue;
        }
        report.written.push(out.path().to_path_buf());
        out.finish()?;
    }
    created_dir.keep();
    if let Some((state, stamps)) = beside {
        crate::incremental::write_beside(&opts.output, &state, stamps)?;
    }
    clock.lap("finish output");
    report.timings = clock.laps;
    drop(weavers);
    drop(release_weavers);
    drop(weaver);
    crate::later::drop_later((
        replaced_jar,
        inputs,
        classpath,
        index,
        release_indexes,
        image,
        aspects,
        program,
        work,
    ));
    Ok(report)
}

/// What [`prepare_added`] makes the classes major adds from.
struct AddedParts<'a> {
    opts: &'a WeaveOptions,
    plan: &'a Plan,
    cache_dir: Option<&'a Path>,
    /// The runtime jar in the cache (or written for the run).
    runtime_jar: &'a Path,
    aspect_classes: Vec<(String, Vec<u8>)>,
    extra_classes: Vec<(String, Vec<u8>)>,
    weaver: &'a Weaver<'a>,
    index: &'a ClassIndex,
}

/// The classes major adds to the output that gets them, prepared (the
/// aspects' classes, their cflow state classes, the runtime classes, or for
/// full coverage all of them run with the DIB set), and the cached runtime
/// jar whose compressed classes are copied as they are, when there is one
/// (the same bytes a fresh compression gives).
fn prepare_added(
    parts: AddedParts<'_>,
) -> Result<(Vec<PreparedEntry>, Option<Archive>), MajorError> {
    let AddedParts {
        opts,
        plan,
        cache_dir,
        runtime_jar: rt,
        aspect_classes,
        extra_classes,
        weaver,
        index,
    } = parts;
    let out_kind = plan.added_kind();
    let runtime_jar = match (cache_dir, opts.bundle_runtime, out_kind) {
        (Some(_), true, OutputKind::Zip) if !opts.full_coverage => Archive::open(rt)
            .ok()
            .filter(|a| a.entries().len() == RUNTIME_CLASSES.len() + 1),
        _ => None,
    };
    let runtime: &[(&str, &[u8])] = if opts.bundle_runtime && runtime_jar.is_none() {
        RUNTIME_CLASSES
    } else {
        &[]
    };
    // Full coverage: the aspects, their cflow state classes and the runtime
    // run with the DIB set (the library code they call runs its original
    // code: a cflow counter's ThreadLocal, say), and the bypass class joins
    // the output.
    let bypassed;
    let classes: Vec<(&str, &[u8])> = if opts.full_coverage {
        let runtime_classes = runtime.iter().map(|(n, b)| (n.to_string(), b.to_vec()));
        bypassed = crate::load_time::full_coverage_classes(
            aspect_classes
                .into_iter()
                .chain(extra_classes)
                .chain(runtime_classes),
            &weaver.dispatches(),
            index,
        )?;
        bypassed
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect()
    } else {
        aspect_classes
            .iter()
            .chain(&extra_classes)
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .chain(runtime.iter().copied())
            .collect()
    };
    // A few classes (an update): compressed on this thread.
    let added = crate::pool::map(&classes, 8, |&(name, bytes)| {
        PreparedEntry::new(out_kind, plan.compression, name, bytes)
    });
    Ok((added, runtime_jar))
}

/// The aspect sources of a run and what javac compiles them against.
#[derive(Debug, Clone)]
pub struct AspectSources<'a> {
    /// Aspect files (`.aj`, or `@Aspect` `.java`).
    pub aspects: &'a [PathBuf],
    /// The class path javac sees besides the runtime (the program's classes:
    /// aspects may name its types); the aspect cache checks the classes javac
    /// read from it.
    pub classpath: Vec<PathBuf>,
    /// The JDK whose javac compiles them.
    pub jdk: &'a Jdk,
    /// The aspect cache directory ([`crate::aspects::cache`]).
    pub cache: Option<&'a Path>,
}

/// Aspects parsed, checked and compiled ([`compile_aspects`]).
pub struct CompiledProgram {
    /// The checked program.
    pub program: major_pointcut_lang::Program,
    /// Its classes.
    pub aspects: CompiledAspects,
    /// Warnings (a cache that could not be used).
    pub warnings: Vec<String>,
    /// The runtime jar javac compiled against (in the cache directory, or in
    /// `work`).
    pub runtime_jar: PathBuf,
    /// The cache directory, if it could be used.
    pub cache_dir: Option<PathBuf>,
    /// The temporary directory javac worked in (removed when dropped).
    pub work: tempfile::TempDir,
}

/// Reads, checks and compiles the aspects (javac's output taken from the
/// cache when it holds it): the one way `major weave` and the load-time
/// weaver ([`crate::load_time`]) get their aspects, so that both find the
/// same cache entry.
pub fn compile_aspects(src: &AspectSources<'_>) -> Result<CompiledProgram, MajorError> {
    compile_aspects_with(src, || Some(Vec::new()))
}

/// [`compile_aspects`], where `opened()` gives `src.classpath` already open
/// (`opened()[i]` is `src.classpath[i]`; `None`, or a shorter list: opened
/// if needed), so that the aspect cache does not list a weave's inputs
/// again. It is called once the sources are parsed and the cache checked,
/// right before the cache is looked up; if it gives nothing (the weave
/// failed meanwhile), nothing more is done.
pub fn compile_aspects_with(
    src: &AspectSources<'_>,
    opened: impl FnOnce() -> Option<Vec<Option<Arc<Archive>>>>,
) -> Result<CompiledProgram, MajorError> {
    let mut files = Vec::new();
    for p in src.aspects {
        if !p
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("aj") || e.eq_ignore_ascii_case("java"))
        {
            return Err(MajorError::Usage(format!(
                "{}: an aspect is given as source: a code-style `.aj` file or an \
                 annotation-style (@Aspect) `.java` file; compiled aspects (.class, .jar) \
                 are not accepted",
                p.display()
            )));
        }
        let text = std::fs::read_to_string(p)
            .map_err(|e| MajorError::Usage(format!("{}: {e}", p.display())))?;
        files.push(SourceFile::new(p.display().to_string(), text));
    }
    let program =
        major_pointcut_lang::compile(files).map_err(|d| MajorError::Aspects(d.render()))?;
    let work = tempfile::tempdir()
        .map_err(|e| MajorError::Usage(format!("cannot create a temporary directory: {e}")))?;
    // A cache that cannot be written is not used: the run goes on without it.
    let mut warnings = Vec::new();
    let mut cache_dir = src.cache.map(Path::to_path_buf);
    let mut no_cache = |dir: &Path, why: String| {
        warnings.push(format!(
            "the aspect cache {} cannot be used ({why}): compiling the aspects without it",
            dir.display()
        ));
    };
    if let Some(dir) = src.cache {
        if let Err(e) = AspectCache::new(dir).check_writable() {
            no_cache(dir, e.to_string());
            cache_dir = None;
        }
    }
    // The runtime jar javac compiles against: kept in the cache directory
    // (written once per build of major), else written for this run.
    let mut rt = None;
    if let Some(dir) = cache_dir.clone() {
        match cached_runtime_jar(&dir) {
            Ok(jar) => rt = Some(jar),
            Err(e) => {
                no_cache(&dir, e.to_string());
                cache_dir = None;
            }
        }
    }
    let rt = match rt {
        Some(jar) => jar,
        None => {
            let rt = work.path().join("major-runtime.jar");
            write_runtime_jar(&rt)?;
            rt
        }
    };
    let javac = src.jdk.javac().ok_or_else(|| {
        MajorError::Usage(format!(
            "{}: no javac in this JDK (install a full JDK, e.g. openjdk-17-jdk-headless)",
            src.jdk.home.display()
        ))
    })?;
    // Aspects may name program types: javac sees the inputs and the class path
    // too, as canonical paths (the aspect cache matches javac's `-verbose`
    // lines against them).
    let program_cp: Vec<PathBuf> = src
        .classpath
        .iter()
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
        .collect();
    let cp: Vec<PathBuf> = std::iter::once(rt.clone())
        .chain(program_cp.iter().cloned())
        .collect();
    let cp = PathBuf::from(
        std::env::join_paths(&cp).map_err(|e| MajorError::Usage(format!("class path: {e}")))?,
    );
    let Some(opened) = opened() else {
        return Err(MajorError::Usage(
            "the weave stopped before its inputs were opened".into(),
        ));
    };
    let cache = cache_dir.as_ref().map(|dir| {
        let mut key = CacheKey::new();
        key.bytes("runtime classes", crate::runtime::classes_digest());
        CompileCache {
            cache: AspectCache::new(dir),
            key,
            classpath: program_cp.clone(),
            opened,
        }
    });
    let aspects = compile(&program, &cp, &javac, work.path(), cache.as_ref())
        .map_err(|e| MajorError::AspectCompile(Box::new(e)))?;
    Ok(CompiledProgram {
        program,
        aspects,
        warnings,
        runtime_jar: rt,
        cache_dir,
        work,
    })
}

/// Fails the run if some join point matched a `declare error`.
fn declare_errors(errors: Vec<(String, DeclareHit)>) -> Result<(), MajorError> {
    if errors.is_empty() {
        return Ok(());
    }
    Err(MajorError::JoinPointErrors(errors))
}

/// The advice that matched no shadow into `report.unmatched`, and every
/// advice with its shadows into `report.advice` (`hits`: shadows per
/// advice; cflow entries left out).
fn advice_outcomes(
    weaver: &Weaver<'_>,
    program: &major_pointcut_lang::Program,
    hits: &[usize],
    report: &mut WeaveReport,
) {
    for a in weaver.advice() {
        if a.entry.is_some() {
            continue;
        }
        if hits[a.id] == 0 {
            report.unmatched.push(describe(program, a.resolved));
        }
        report
            .advice
            .push(crate::report::AdviceRecord::of(program, a, hits[a.id]));
    }
}

/// The files of a directory output that entry `e` of a directory input goes
/// to, as the writer writes them: none if an aspect class replaces it, the
/// woven class and its extra class, or the entry itself.
fn output_files(
    e: &major_archive::Entry,
    replaced: &FxHashSet<&str>,
    w: Option<&Woven>,
) -> Vec<String> {
    if e.class_name().is_some_and(|n| replaced.contains(n)) {
        return Vec::new();
    }
    let mut files = vec![e.name.clone()];
    if let Some(x) = w
        .filter(|w| w.class.is_some())
        .and_then(|w| w.extra.as_ref())
    {
        files.push(x.name().to_string());
    }
    files
}

/// Weaves the classes the aspects' compilation produced; they and the extra
/// classes their weaving made (`C$MajorStatics`), in name order, go to the output.
fn weave_aspect_classes(
    weaver: &Weaver<'_>,
    aspects: &CompiledAspects,
    report: &mut WeaveReport,
    hits: &mut [usize],
    errors: &mut Vec<(String, DeclareHit)>,
) -> Result<Vec<(String, Vec<u8>)>, MajorError> {
    let results = crate::pool::map(&aspects.classes, 2, |(name, bytes)| {
        (name, bytes, weaver.weave_aspect_class(bytes))
    });
    // Counted apart: the report's class counts are the inputs'.
    let counts = (report.classes, report.woven);
    let mut out = Vec::new();
    for (name, bytes, r) in results {
        let outcome = r.map_err(|e| {
            MajorError::Usage(format!("weaving the compiled aspect class {name}: {e}"))
        })?;
        // Tallied with its bytes still in the outcome (an aspect class is
        // written with the added classes, not as an input entry).
        let mut w = Woven {
            name: name.trim_end_matches(".class").to_string(),
            outcome,
            class: None,
            extra: None,
            release: None,
        };
        tally(report, hits, errors, &w, None);
        let class = w.outcome.bytes.take().unwrap_or_else(|| bytes.clone());
        let extra = w.outcome.extra.take();
        out.push((name.clone(), class));
        if let Some((n, x)) = extra {
            out.push((format!("{n}.class"), x));
        }
    }
    (report.classes, report.woven) = counts;
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Input entries woven per parallel step; the writer copies one chunk while the
/// next is woven.
const CHUNK: usize = 256;

/// Chunks of [`weave_streamed`] queued on the pool ahead of the first one
/// not yet written.
const CHUNKS_AHEAD: usize = 2;

/// Weaves every entry of `inputs` with `weave` (input, entry) on the rayon
/// pool and hands each result, in input order, to `done` (input, entry,
/// result), which returns false to stop.
///
/// The entries go in chunks of [`CHUNK`] (within an input), each a task
/// that weaves its entries in parallel, with [`CHUNKS_AHEAD`] more chunks
/// queued behind the first one not handed on yet: a core that finds no more
/// work in one chunk takes up the next, instead of idling at the chunk's
/// end until the other core finishes its last classes (a parallel loop per
/// chunk waits for them), and `done` runs on this thread while the pool
/// weaves on. The first error in input order is returned (the chunks queued
/// finish first); a panic in a task is resumed here.
fn weave_streamed<T: Send>(
    inputs: &[Arc<Archive>],
    weave: impl Fn(usize, usize) -> Result<T, MajorError> + Sync,
    mut done: impl FnMut(usize, usize, T) -> bool,
) -> Result<(), MajorError> {
    type Outcome<T> = std::thread::Result<Vec<Result<T, MajorError>>>;
    // (input, first entry, end)
    let chunks: Vec<(usize, usize, usize)> = inputs
        .iter()
        .enumerate()
        .flat_map(|(k, a)| {
            let n = a.entries().len();
            (0..n)
                .step_by(CHUNK)
                .map(move |s| (k, s, (s + CHUNK).min(n)))
        })
        .collect();
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Outcome<T>)>();
    let weave = &weave;
    rayon::in_place_scope(|scope| {
        let spawn = |c: usize| {
            let (input, start, end) = chunks[c];
            let tx = tx.clone();
            scope.spawn(move |_| {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    (start..end)
                        .into_par_iter()
                        .map(|i| weave(input, i))
                        .collect()
                }));
                // The receiver outlives the scope.
                let _ = tx.send((c, r));
            });
        };
        let ahead = CHUNKS_AHEAD + 1;
        // Results by chunk, in a ring: chunk c is at c % ahead while queued.
        let mut slots: Vec<Option<Outcome<T>>> = (0..ahead).map(|_| None).collect();
        let mut next = 0;
        while next < chunks.len().min(ahead) {
            spawn(next);
            next += 1;
        }
        for (c, &(input, start, _)) in chunks.iter().enumerate() {
            while slots[c % ahead].is_none() {
                let (got, r) = rx.recv().expect("a sender is kept here");
                slots[got % ahead] = Some(r);
            }
            let results = match slots[c % ahead].take().expect("received") {
                Ok(r) => r,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            // Its slot is free: the chunk `ahead` further on takes it.
            if next < chunks.len() {
                spawn(next);
                next += 1;
            }
            for (i, r) in (start..).zip(results) {
                if !done(input, i, r?) {
                    return Ok(());
                }
            }
        }
        Ok(())
    })
}

/// One input class after weaving: what the weave found, and the woven class
/// and its extra class ready for the output (`None`: copy the input entry).
struct Woven {
    /// The class's internal name.
    name: String,
    outcome: ClassOutcome,
    /// The release of a multi-release jar's versioned class.
    release: Option<u32>,
    class: Option<PreparedEntry>,
    extra: Option<PreparedEntry>,
}

/// What the writer gets for entry `index` of input `input`: the woven class and
/// its extra class, or nothing (copy the entry).
struct Written {
    input: usize,
    index: usize,
    class: Option<PreparedEntry>,
    extra: Option<PreparedEntry>,
}

/// The weaver of the base classes and those of each release of the
/// multi-release inputs, each with its index.
struct Weavers<'w, 'p> {
    base: (&'w Weaver<'p>, &'w ClassIndex),
    releases: BTreeMap<u32, (&'w Weaver<'p>, &'w ClassIndex)>,
}

/// Weaves entry `i` of `a` if it is a class and prepares the result for an
/// output of `kind`. The versioned classes of a multi-release jar (`mr`) are
/// woven against the classes their release sees, their extra classes put
/// beside them under `META-INF/versions/N/`; those of a jar that is not
/// multi-release (which no JDK loads) are copied as they are.
fn weave_entry(
    weavers: &Weavers<'_, '_>,
    a: &Arc<Archive>,
    mr: bool,
    i: usize,
    kind: OutputKind,
    compression: Compression,
) -> Result<Option<Woven>, MajorError> {
    let e = &a.entries()[i];
    let Some(class) = e.class_name() else {
        return Ok(None);
    };
    let name = class.to_string();
    let (release, (weaver, index)) = match e.versioned_class() {
        Some((k, _)) if mr => match weavers.releases.get(&k) {
            Some(w) => (Some(k), *w),
            None => return Ok(None),
        },
        _ if e.name.starts_with(major_archive::VERSIONS) => return Ok(None),
        _ => (None, weavers.base),
    };
    let bytes = index.input_bytes(a, i)?;
    let mut outcome = weaver
        .weave_class(&bytes)
        .map_err(|err| MajorError::class(a.path(), &e.name, err))?;
    let mirror = matches!(a.kind(), ArchiveKind::Zip | ArchiveKind::Directory);
    let class = match outcome.bytes.take() {
        Some(b) if mirror => Some(PreparedEntry::like(kind, compression, a, i, b)?),
        Some(b) => Some(PreparedEntry::new(
            kind,
            compression,
            &format!("{class}.class"),
            b,
        )),
        None => None,
    };
    let prefix = match release {
        Some(k) => format!("{}{k}/", major_archive::VERSIONS),
        None => String::new(),
    };
    let extra = outcome
        .extra
        .take()
        .map(|(n, x)| PreparedEntry::new(kind, compression, &format!("{prefix}{n}.class"), x));
    Ok(Some(Woven {
        name,
        outcome,
        release,
        class,
        extra,
    }))
}

/// Adds what the weave of one class found to the report, the advice hit counts
/// and the `declare error` matches.
fn tally(
    report: &mut WeaveReport,
    hits: &mut [usize],
    errors: &mut Vec<(String, DeclareHit)>,
    w: &Woven,
    input: Option<usize>,
) {
    let o = &w.outcome;
    // An input class's woven bytes and extra class are prepared entries by
    // now; an aspect class's are still in its outcome.
    let extra = match &w.extra {
        Some(x) => Some(x.name().trim_end_matches(".class")),
        None => o.extra.as_ref().map(|(n, _)| n.as_str()),
    };
    if report.keeps_class_records {
        report.class_records.extend(crate::report::ClassRecord::of(
            &w.name,
            input,
            w.release,
            w.class.is_some() || o.bytes.is_some(),
            extra,
            o,
        ));
    }
    match w.release {
        None => {
            report.classes += 1;
            report.woven += usize::from(w.class.is_some());
            report.empty_finalizers += o.empty_finalizers;
            report.intrinsics += o.intrinsics;
        }
        Some(k) => {
            let r = report.releases.entry(k).or_default();
            r.0 += 1;
            r.1 += usize::from(w.class.is_some());
        }
    }
    for n in &o.notes {
        if !report.notes.contains(n) {
            report.notes.push(n.clone());
        }
    }
    for (k, n) in &o.advised {
        *report.advised.entry(k).or_insert(0) += n;
    }
    for (h, n) in hits.iter_mut().zip(&o.advice_hits) {
        *h += n;
    }
    for d in &o.declares {
        if d.is_error {
            errors.push((w.name.clone(), d.clone()));
        } else {
            report.declare_warnings.push(d.clone());
        }
    }
    report
        .skipped_methods
        .extend(o.skipped_methods.iter().map(|e| e.to_string()));
}

/// The writer: every entry of the inputs, in order, into the output `plan`
/// gives each input, as `rx` delivers them (woven classes prepared, other
/// entries copied raw from zips and directories); entries replaced by aspect
/// classes are left out, with a note. A signed input is held back until all
/// of it is woven: if any of its classes changed, its signature goes (or the
/// run fails, as `signed` says). Returns the writer: its outputs, still to
/// be finished, its notes and warnings.
fn write_inputs(
    mut w: Writer<'_>,
    signed: SignedJars,
    rx: std::sync::mpsc::Receiver<Vec<Written>>,
) -> Result<Writer<'_>, MajorError> {
    let inputs = w.inputs;
    let signatures: Vec<Vec<&str>> = inputs.iter().map(|a| signature_files(a)).collect();
    let mut held: Vec<Written> = Vec::new();
    for job in rx.into_iter().flatten() {
        if held.first().is_some_and(|h| h.input != job.input) {
            w.signed_input(std::mem::take(&mut held), &signatures, signed)?;
        }
        if signatures[job.input].is_empty() {
            w.entry(job, None)?;
        } else {
            held.push(job);
        }
    }
    if !held.is_empty() {
        w.signed_input(held, &signatures, signed)?;
    }
    Ok(w)
}

/// The state of [`write_inputs`].
struct Writer<'a> {
    outs: Vec<OutputArchive>,
    plan: &'a Plan,
    inputs: &'a [Arc<Archive>],
    replaced: &'a FxHashSet<&'a str>,
    /// The packages added to output `plan.added`.
    added_packages: &'a BTreeSet<String>,
    notes: Vec<String>,
    warnings: Vec<String>,
}

impl<'a> Writer<'a> {
    fn new(
        mut outs: Vec<OutputArchive>,
        plan: &'a Plan,
        inputs: &'a [Arc<Archive>],
        replaced: &'a FxHashSet<&'a str>,
        added_packages: &'a BTreeSet<String>,
    ) -> Self {
        for (input, a) in inputs.iter().enumerate() {
            outs[plan.of_input[input]].reserve(a.entries().len());
        }
        Writer {
            outs,
            plan,
            inputs,
            replaced,
            added_packages,
            notes: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Writes one entry; `manifest`: the contents that replace the input's
    /// `META-INF/MANIFEST.MF`.
    fn entry(&mut self, w: Written, manifest: Option<&[u8]>) -> Result<(), MajorError> {
        let a = &self.inputs[w.input];
        let out = &mut self.outs[self.plan.of_input[w.input]];
        let i = w.index;
        let e = &a.entries()[i];
        if !self.replaced.is_empty() && e.class_name().is_some_and(|n| self.replaced.contains(n)) {
            self.notes.push(format!(
                "{}!{}: replaced by the aspect class major compiled",
                a.path().display(),
                e.name
            ));
            return Ok(());
        }
        let mirror = matches!(a.kind(), ArchiveKind::Zip | ArchiveKind::Directory);
        match w.class {
            Some(class) => {
                out.write_prepared(class)?;
                if let Some(x) = w.extra {
                    out.write_prepared(x)?;
                }
            }
            // A module of a run-time image is woven into a patch
            // (`--patch-module`): the JVM takes the classes it lacks from
            // the image, so an unchanged class is not copied (nor the
            // module descriptor, which a patch cannot change).
            None if a.kind() == ArchiveKind::JImage => {}
            None if manifest.is_some() && e.name == MANIFEST => {
                out.write_like(a, i, manifest.unwrap_or_default())?
            }
            None if self.plan.of_input[w.input] == self.plan.added
                && is_module_info(e)
                && !self.added_packages.is_empty() =>
            {
                let bytes = a.read(i)?;
                match crate::modules::add_module_packages(&bytes, self.added_packages)
                    .map_err(|err| MajorError::class(a.path(), &e.name, err))?
                {
                    Some(b) => out.write_like(a, i, &b)?,
                    None if mirror => out.copy_raw(a, i)?,
                    None => out.write_like(a, i, &bytes)?,
                }
            }
            None if mirror => out.copy_raw(a, i)?,
            None => {
                if let Some(n) = e.class_name() {
                    out.copy_raw_as(a, i, &format!("{n}.class"))?;
                }
            }
        }
        Ok(())
    }

    /// Writes all of a signed input, `held`: unchanged if weaving changed
    /// none of its classes, else without its signature (or refused).
    fn signed_input(
        &mut self,
        held: Vec<Written>,
        signatures: &[Vec<&str>],
        mode: SignedJars,
    ) -> Result<(), MajorError> {
        let Some(input) = held.first().map(|h| h.input) else {
            return Ok(());
        };
        let a = self.inputs[input].clone();
        let changed = held.iter().any(|w| {
            w.class.is_some()
                || a.entries()[w.index]
                    .class_name()
                    .is_some_and(|n| self.replaced.contains(n))
        });
        if !changed {
            for w in held {
                self.entry(w, None)?;
            }
            return Ok(());
        }
        let files = signatures[input].join(", ");
        if mode == SignedJars::Refuse {
            return Err(MajorError::Usage(format!(
                "{}: a signed jar ({files}) whose classes the aspects change: its signature \
                 would no longer hold; nothing written (--signed-jars=strip removes the signature)",
                a.path().display()
            )));
        }
        let manifest = match a.find(MANIFEST) {
            Some(i) => crate::signed::strip_digests(&a.read(i)?),
            None => Vec::new(),
        };
        for w in held {
            if crate::signed::is_signature_file(&a.entries()[w.index].name) {
                continue;
            }
            self.entry(w, Some(&manifest))?;
        }
        self.warnings.push(format!(
            "{}: signed jar woven: its signature ({files}) and the entry digests of its \
             manifest were removed, as they no longer match (--signed-jars=refuse refuses instead)",
            a.path().display()
        ));
        Ok(())
    }
}

/// A jar's manifest.
const MANIFEST: &str = "META-INF/MANIFEST.MF";

/// Whether `e` is a module descriptor: `module-info.class` at the root, or
/// in a multi-release jar's versioned section.
fn is_module_info(e: &major_archive::Entry) -> bool {
    e.name.ends_with("module-info.class")
        && (e.name == "module-info.class"
            || e.versioned_class().is_some_and(|(_, n)| n == "module-info"))
}

/// Wall-clock laps of the phases of a run.
struct Clock {
    last: std::time::Instant,
    laps: Vec<(&'static str, std::time::Duration)>,
}

impl Clock {
    fn start() -> Clock {
        Clock {
            last: std::time::Instant::now(),
            laps: Vec::new(),
        }
    }

    fn lap(&mut self, phase: &'static str) {
        let now = std::time::Instant::now();
        self.laps.push((phase, now - self.last));
        self.last = now;
    }
}

/// Renders a weave report like a compiler's summary into `err` (standard
/// error, or what a resident weaver sends its client); with `timings`, the
/// wall time of each phase too. (A failed write is not the weave's failure.)
pub fn print_report(r: &WeaveReport, output: &Path, timings: bool, err: &mut dyn std::io::Write) {
    if timings {
        let total: std::time::Duration = r.timings.iter().map(|(_, d)| *d).sum();
        for (phase, d) in &r.timings {
            let _ = writeln!(err, "time: {phase:<16} {:>8.1} ms", d.as_secs_f64() * 1e3);
        }
        let _ = writeln!(
            err,
            "time: {:<16} {:>8.1} ms",
            "total",
            total.as_secs_f64() * 1e3
        );
    }
    for w in &r.warnings {
        let _ = writeln!(err, "warning: {w}");
    }
    match &r.incremental {
        Some(s) if s.full.is_none() => {
            let _ = writeln!(
                err,
                "incremental: re-wove {} of {} classes, copied {} other changed files, removed {}",
                s.rewoven, s.classes, s.recopied, s.removed
            );
        }
        Some(crate::incremental::Summary {
            full: Some(why), ..
        }) if why != crate::incremental::NO_STATE => {
            let _ = writeln!(err, "note: full weave: {why}");
        }
        _ => {}
    }
    for w in &r.aspect_warnings {
        let _ = writeln!(err, "{w}");
    }
    for d in &r.declare_warnings {
        let _ = writeln!(err, "{} [warning] {}", d.location, d.message);
    }
    for (a, why) in &r.unsupported {
        let _ = writeln!(err, "warning: {a} was not woven: {why}");
    }
    for a in &r.unmatched {
        let _ = writeln!(err, "warning: {a} has not been applied [adviceDidNotMatch]");
    }
    for n in &r.notes {
        let _ = writeln!(err, "warning: not woven: {n}");
    }
    if r.intrinsics > 0 {
        let _ = writeln!(
            err,
            "note: not woven: the execution of {} @IntrinsicCandidate method(s): HotSpot \
             replaces their bodies with its own code where it compiles a call to them, so \
             advice there would run only while the caller is interpreted (advise their \
             call join points instead)",
            r.intrinsics
        );
    }
    if r.empty_finalizers > 0 {
        let _ = writeln!(
            err,
            "note: not woven: the execution of {} empty finalize() method(s): HotSpot does not \
             register objects for finalization when finalize() is just `return`, so that \
             join point never occurs (advice there would make every instance finalizable)",
            r.empty_finalizers
        );
    }
    for m in &r.skipped_methods {
        let _ = writeln!(err, "warning: left unwoven: {m}");
    }
    let kinds = r
        .advised
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let releases = r
        .releases
        .iter()
        .map(|(k, (n, w))| format!(", release {k}: {w} of {n}"))
        .collect::<String>();
    let left = match r.skipped_methods.len() {
        0 => String::new(),
        1 => "; 1 method left unwoven (see the warning)".to_string(),
        n => format!("; {n} methods left unwoven (see the warnings)"),
    };
    let _ = writeln!(
        err,
        "woven {} of {} classes{}{releases} into {}; advised shadows: {}{left}",
        r.woven,
        r.classes,
        if releases.is_empty() {
            ""
        } else {
            " (multi-release base)"
        },
        output.display(),
        if kinds.is_empty() {
            "none".to_string()
        } else {
            kinds
        }
    );
}
