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

use std::collections::BTreeMap;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use major_archive::{Archive, ArchiveKind, OutputArchive, OutputKind, PreparedEntry, RuntimeImage};
use major_pointcut_lang::SourceFile;
use rayon::prelude::*;

use crate::aspects::cache::{AspectCache, CacheKey};
use crate::aspects::compile::{compile, CompileCache};
use crate::aspects::CompiledAspects;
use crate::index::ClassIndex;
use crate::jdk::Jdk;
use crate::report::MajorError;
use crate::runtime::{cached_runtime_jar, write_runtime_jar, RUNTIME_CLASSES};
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
}

/// What a weave did.
#[derive(Debug, Default)]
pub struct WeaveReport {
    /// Class entries read.
    pub classes: usize,
    /// Classes changed.
    pub woven: usize,
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
    /// Wall time of each phase, in order.
    pub timings: Vec<(&'static str, std::time::Duration)>,
}

/// Weaves; on any error nothing is written.
pub fn run(opts: &WeaveOptions) -> Result<WeaveReport, MajorError> {
    let mut clock = Clock::start();
    // 1. The aspects.
    let mut files = Vec::new();
    for p in &opts.aspects {
        let text = std::fs::read_to_string(p)
            .map_err(|e| MajorError::Usage(format!("{}: {e}", p.display())))?;
        files.push(SourceFile::new(p.display().to_string(), text));
    }
    let program =
        major_pointcut_lang::compile(files).map_err(|d| MajorError::Aspects(d.render()))?;
    let work = tempfile::tempdir()
        .map_err(|e| MajorError::Usage(format!("cannot create a temporary directory: {e}")))?;
    // The runtime jar javac compiles against: kept in the cache directory
    // (written once per build of major), else written for this run.
    let rt = match &opts.cache {
        Some(dir) => cached_runtime_jar(dir)?,
        None => {
            let rt = work.path().join("major-runtime.jar");
            write_runtime_jar(&rt)?;
            rt
        }
    };
    let javac = opts.jdk.javac().ok_or_else(|| {
        MajorError::Usage(format!(
            "{}: no javac in this JDK (install a full JDK, e.g. openjdk-17-jdk-headless)",
            opts.jdk.home.display()
        ))
    })?;
    // Aspects may name program types: javac sees the inputs and the class path too.
    let cp: Vec<PathBuf> = std::iter::once(rt.clone())
        .chain(opts.inputs.iter().cloned())
        .chain(opts.classpath.iter().cloned())
        .collect();
    let cp = PathBuf::from(
        std::env::join_paths(&cp).map_err(|e| MajorError::Usage(format!("class path: {e}")))?,
    );
    let cache = opts.cache.as_ref().map(|dir| {
        let mut key = CacheKey::new();
        for (name, bytes) in RUNTIME_CLASSES {
            key.bytes(name, bytes);
        }
        for p in opts.inputs.iter().chain(&opts.classpath) {
            key.path_stamp("classpath", &std::path::absolute(p).unwrap_or(p.clone()));
        }
        CompileCache {
            cache: AspectCache::new(dir),
            key,
        }
    });
    let aspects = compile(&program, &cp, &javac, work.path(), cache.as_ref())
        .map_err(|e| MajorError::AspectCompile(Box::new(e)))?;
    clock.lap(if aspects.from_cache {
        "aspects (cached)"
    } else {
        "compile aspects"
    });

    // 2. The class hierarchy.
    let mut index = ClassIndex::new();
    let inputs: Vec<Arc<Archive>> = opts
        .inputs
        .iter()
        .map(|p| Archive::open(p).map(Arc::new))
        .collect::<Result<_, _>>()?;
    for a in &inputs {
        index.add_shared(a.clone());
    }
    for p in &opts.classpath {
        index.add_shared(Arc::new(Archive::open(p)?));
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
    index.add_image(Arc::new(RuntimeImage::open(&opts.jdk.modules())?));
    clock.lap("index classes");

    // 3. Weave every class of every input, in parallel.
    let mut weaver = Weaver::new(&program, &aspects, &index);
    weaver.strict = opts.strict;
    let mut report = WeaveReport {
        unsupported: weaver.unsupported.clone(),
        ..Default::default()
    };
    clock.lap("match aspects");
    report.aspect_warnings = program.warnings.iter().map(|w| format!("{w:?}")).collect();
    // Classes the aspects became replace input classes of the same name (an
    // `@Aspect` class compiled with the program is rewritten with aspectOf()).
    let replaced: HashSet<&str> = aspects
        .classes
        .iter()
        .map(|(n, _)| n.trim_end_matches(".class"))
        .collect();
    // Weaving runs on the rayon pool a chunk of entries at a time; woven classes
    // are compressed there too. A writer thread writes each chunk in input order
    // (untouched entries raw-copied) while the next one is woven. The output is
    // renamed into place only at the end, if all went well.
    let out_kind = OutputArchive::kind_for(&opts.output);
    let out = OutputArchive::create(&opts.output, out_kind)?;
    let mut hits = vec![0usize; weaver.advice().len()];
    let mut errors: Vec<DeclareHit> = Vec::new();
    let mut out = std::thread::scope(|scope| -> Result<OutputArchive, MajorError> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Written>(2 * CHUNK);
        let writer = scope.spawn(|| write_inputs(out, &inputs, &replaced, rx));
        let woven = (|| -> Result<(), MajorError> {
            for (input, a) in inputs.iter().enumerate() {
                let n = a.entries().len();
                for start in (0..n).step_by(CHUNK) {
                    let end = (start + CHUNK).min(n);
                    let results: Vec<Result<Option<Woven>, MajorError>> = (start..end)
                        .into_par_iter()
                        .map(|i| weave_entry(&weaver, &index, a, i, out_kind))
                        .collect();
                    for (index, r) in (start..end).zip(results) {
                        let (class, extra) = match r? {
                            Some(w) => {
                                tally(&mut report, &mut hits, &mut errors, &w);
                                (w.class, w.extra)
                            }
                            None => (None, None),
                        };
                        let job = Written {
                            input,
                            index,
                            class,
                            extra,
                        };
                        if tx.send(job).is_err() {
                            return Ok(()); // the writer failed: its error is reported
                        }
                    }
                }
            }
            Ok(())
        })();
        drop(tx);
        let written = writer.join().expect("the output writer panicked");
        woven?;
        let (out, notes) = written?;
        report.notes.extend(notes);
        Ok(out)
    })?;
    // The aspects' own classes are woven too, as ajc does (advice methods are
    // adviceexecution join points; what major generated has none).
    let aspect_classes =
        weave_aspect_classes(&weaver, &aspects, &mut report, &mut hits, &mut errors)?;
    if !errors.is_empty() {
        let text = errors
            .iter()
            .map(|d| format!("{} [error] {}", d.location, d.message))
            .collect::<Vec<_>>()
            .join("\n");
        return Err(MajorError::Usage(format!(
            "declare error matched; nothing written:\n{text}"
        )));
    }
    for a in weaver.advice() {
        if a.entry.is_none() && hits[a.id] == 0 {
            report.unmatched.push(describe(&program, a.resolved));
        }
    }
    let extra_classes = weaver
        .extra_classes()
        .map_err(|e| MajorError::Usage(format!("cflow state classes: {e}")))?;
    clock.lap("weave and write");

    // 4. The classes major adds, after the inputs. The runtime classes are
    // copied, already compressed, from the cached runtime jar when there is
    // one (the same bytes a fresh compression gives).
    let runtime_jar = match (&opts.cache, opts.bundle_runtime, out_kind) {
        (Some(_), true, OutputKind::Zip) => Archive::open(&rt)
            .ok()
            .filter(|a| a.entries().len() == RUNTIME_CLASSES.len() + 1),
        _ => None,
    };
    let runtime: &[(&str, &[u8])] = if opts.bundle_runtime && runtime_jar.is_none() {
        RUNTIME_CLASSES
    } else {
        &[]
    };
    let added: Vec<PreparedEntry> = aspect_classes
        .iter()
        .chain(&extra_classes)
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .chain(runtime.iter().copied())
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|(name, bytes)| PreparedEntry::new(out_kind, name, bytes))
        .collect();
    for entry in added {
        out.write_prepared(entry)?;
    }
    if let Some(jar) = &runtime_jar {
        for (i, e) in jar.entries().iter().enumerate() {
            if e.name.ends_with(".class") {
                out.copy_raw(jar, i)?;
            }
        }
    }
    out.finish()?;
    clock.lap("finish output");
    report.timings = clock.laps;
    Ok(report)
}

/// Weaves the classes the aspects' compilation produced; they and the extra
/// classes their weaving made (`C$MajorStatics`), in name order, go to the output.
fn weave_aspect_classes(
    weaver: &Weaver<'_>,
    aspects: &CompiledAspects,
    report: &mut WeaveReport,
    hits: &mut [usize],
    errors: &mut Vec<DeclareHit>,
) -> Result<Vec<(String, Vec<u8>)>, MajorError> {
    let results: Vec<_> = aspects
        .classes
        .par_iter()
        .map(|(name, bytes)| (name, bytes, weaver.weave_aspect_class(bytes)))
        .collect();
    // Counted apart: the report's class counts are the inputs'.
    let counts = (report.classes, report.woven);
    let mut out = Vec::new();
    for (name, bytes, r) in results {
        let mut outcome = r.map_err(|e| {
            MajorError::Usage(format!("weaving the compiled aspect class {name}: {e}"))
        })?;
        let class = outcome.bytes.take().unwrap_or_else(|| bytes.clone());
        let extra = outcome.extra.take();
        tally(
            report,
            hits,
            errors,
            &Woven {
                outcome,
                class: None,
                extra: None,
            },
        );
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

/// One input class after weaving: what the weave found, and the woven class
/// and its extra class ready for the output (`None`: copy the input entry).
struct Woven {
    outcome: ClassOutcome,
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

/// Weaves entry `i` of `a` if it is a class (multi-release variants are copied
/// as they are) and prepares the result for an output of `kind`.
fn weave_entry(
    weaver: &Weaver<'_>,
    index: &ClassIndex,
    a: &Arc<Archive>,
    i: usize,
    kind: OutputKind,
) -> Result<Option<Woven>, MajorError> {
    let e = &a.entries()[i];
    let Some(class) = e.class_name() else {
        return Ok(None);
    };
    if e.name.starts_with("META-INF/versions/") {
        return Ok(None);
    }
    let bytes = index.input_bytes(a, i)?;
    let mut outcome = weaver
        .weave_class(&bytes)
        .map_err(|err| MajorError::class(a.path(), &e.name, err))?;
    let mirror = matches!(a.kind(), ArchiveKind::Zip | ArchiveKind::Directory);
    let class = match outcome.bytes.take() {
        Some(b) if mirror => Some(PreparedEntry::like(kind, a, i, &b)?),
        Some(b) => Some(PreparedEntry::new(kind, &format!("{class}.class"), &b)),
        None => None,
    };
    let extra = outcome
        .extra
        .take()
        .map(|(n, x)| PreparedEntry::new(kind, &format!("{n}.class"), &x));
    Ok(Some(Woven {
        outcome,
        class,
        extra,
    }))
}

/// Adds what the weave of one class found to the report, the advice hit counts
/// and the `declare error` matches.
fn tally(report: &mut WeaveReport, hits: &mut [usize], errors: &mut Vec<DeclareHit>, w: &Woven) {
    let o = &w.outcome;
    report.classes += 1;
    report.woven += usize::from(w.class.is_some());
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
            errors.push(d.clone());
        } else {
            report.declare_warnings.push(d.clone());
        }
    }
    report
        .skipped_methods
        .extend(o.skipped_methods.iter().map(|e| e.to_string()));
}

/// The writer: every entry of the inputs, in order, as `rx` delivers them
/// (woven classes prepared, other entries copied raw from zips and directories);
/// entries replaced by aspect classes are left out, with a note. Returns the
/// output, still to be finished, and the notes.
fn write_inputs(
    mut out: OutputArchive,
    inputs: &[Arc<Archive>],
    replaced: &HashSet<&str>,
    rx: std::sync::mpsc::Receiver<Written>,
) -> Result<(OutputArchive, Vec<String>), MajorError> {
    let mut notes = Vec::new();
    for w in rx {
        let a = &inputs[w.input];
        let i = w.index;
        let e = &a.entries()[i];
        if e.class_name().is_some_and(|n| replaced.contains(n)) {
            notes.push(format!(
                "{}!{}: replaced by the aspect class major compiled",
                a.path().display(),
                e.name
            ));
            continue;
        }
        let mirror = matches!(a.kind(), ArchiveKind::Zip | ArchiveKind::Directory);
        match w.class {
            Some(class) => {
                out.write_prepared(class)?;
                if let Some(x) = w.extra {
                    out.write_prepared(x)?;
                }
            }
            None if mirror => out.copy_raw(a, i)?,
            None => {
                if let Some(n) = e.class_name() {
                    out.write(&format!("{n}.class"), &a.read(i)?)?;
                }
            }
        }
    }
    Ok((out, notes))
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

/// Renders a weave report like a compiler's summary; with `timings`, the wall
/// time of each phase too.
pub fn print_report(r: &WeaveReport, output: &Path, timings: bool) {
    if timings {
        let total: std::time::Duration = r.timings.iter().map(|(_, d)| *d).sum();
        for (phase, d) in &r.timings {
            eprintln!("time: {phase:<16} {:>8.1} ms", d.as_secs_f64() * 1e3);
        }
        eprintln!(
            "time: {:<16} {:>8.1} ms",
            "total",
            total.as_secs_f64() * 1e3
        );
    }
    for w in &r.aspect_warnings {
        eprintln!("{w}");
    }
    for d in &r.declare_warnings {
        eprintln!("{} [warning] {}", d.location, d.message);
    }
    for (a, why) in &r.unsupported {
        eprintln!("warning: {a} was not woven: {why}");
    }
    for a in &r.unmatched {
        eprintln!("warning: {a} has not been applied [adviceDidNotMatch]");
    }
    for n in &r.notes {
        eprintln!("warning: not woven: {n}");
    }
    for m in &r.skipped_methods {
        eprintln!("warning: left unwoven: {m}");
    }
    let kinds = r
        .advised
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let left = match r.skipped_methods.len() {
        0 => String::new(),
        1 => "; 1 method left unwoven (see the warning)".to_string(),
        n => format!("; {n} methods left unwoven (see the warnings)"),
    };
    eprintln!(
        "woven {} of {} classes into {}; advised shadows: {}{left}",
        r.woven,
        r.classes,
        output.display(),
        if kinds.is_empty() {
            "none".to_string()
        } else {
            kinds
        }
    );
}
