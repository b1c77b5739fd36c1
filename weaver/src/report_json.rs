//! The machine-readable report of a weave: `major weave --report json[=FILE]`.
//!
//! Built from the [`WeaveReport`] the text summary is printed from (its
//! counts, its per-class [`ClassRecord`]s and per-advice [`AdviceRecord`]s):
//! nothing is counted twice. The schema is `weaver/report.schema.json`
//! ([`SCHEMA`]), documented in the README ("The JSON report"); its version is
//! [`SCHEMA_VERSION`], raised whenever a field changes meaning or goes away
//! (new optional fields keep it).
//!
//! Everything but the `timings` object is deterministic: the same command on
//! the same inputs gives the same bytes whatever the thread count. Paths are
//! as the command line gave them (inputs, aspects, the output); written
//! outputs are given relative to the output directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::report::{AdviceRecord, ClassRecord, MajorError};
use crate::weave::DeclareHit;
use crate::weave_run::WeaveReport;

/// The version of the report's schema.
pub const SCHEMA_VERSION: u32 = 1;

/// The JSON Schema of the report (draft 2020-12).
pub const SCHEMA: &str = include_str!("../report.schema.json");

/// What the report is about beyond the weave itself.
#[derive(Debug, Clone, Default)]
pub struct ReportContext {
    /// The output (`-o`), as given.
    pub output: PathBuf,
    /// The aspect files, as given.
    pub aspects: Vec<PathBuf>,
    /// With `--jdk`: the woven JDK.
    pub jdk: Option<JdkContext>,
    /// What the run wrote, relative to `output`, when that is not what the
    /// weave wrote (a woven JDK is assembled from a staging directory):
    /// replaces [`WeaveReport::written`].
    pub written: Option<Vec<String>>,
}

/// The woven JDK a `--jdk` weave made.
#[derive(Debug, Clone, Serialize)]
pub struct JdkContext {
    /// `image` or `patch`.
    pub form: String,
    /// The JDK's feature version.
    pub version: u32,
    /// The modules woven.
    pub modules: Vec<String>,
}

#[derive(Serialize)]
struct Tool {
    name: &'static str,
    version: &'static str,
}

const TOOL: Tool = Tool {
    name: "major",
    version: env!("CARGO_PKG_VERSION"),
};

#[derive(Serialize)]
struct Summary {
    classes: usize,
    woven: usize,
    advised_shadows: usize,
    shadows: BTreeMap<&'static str, usize>,
    advice: usize,
    unmatched_advice: usize,
    declare_warnings: usize,
    skipped_methods: usize,
    intrinsics: usize,
    empty_finalizers: usize,
    added_classes: usize,
}

#[derive(Serialize)]
struct Release {
    release: u32,
    classes: usize,
    woven: usize,
}

#[derive(Serialize)]
struct Advice<'a> {
    id: usize,
    kind: &'static str,
    aspect: &'a str,
    declared_in: &'a str,
    file: &'a str,
    line: usize,
    description: &'a str,
    could_match: &'a [&'static str],
    shadows: usize,
    shadows_by_kind: BTreeMap<&'static str, usize>,
}

impl<'a> Advice<'a> {
    /// The entry of `a`, its shadows per kind summed over `classes`.
    fn of(a: &'a AdviceRecord, classes: &[ClassRecord]) -> Self {
        let mut shadows_by_kind = BTreeMap::new();
        for c in classes {
            for (&(id, kind), &n) in c.advice_kinds.range((a.id, "")..) {
                if id != a.id {
                    break;
                }
                *shadows_by_kind.entry(kind).or_insert(0) += n;
            }
        }
        Advice {
            id: a.id,
            kind: a.kind,
            aspect: &a.aspect,
            declared_in: &a.declared_in,
            file: &a.file,
            line: a.line,
            description: &a.description,
            could_match: &a.could_match,
            shadows: a.shadows,
            shadows_by_kind,
        }
    }
}

#[derive(Serialize)]
struct AdviceCount {
    advice: usize,
    shadows: usize,
    shadows_by_kind: BTreeMap<&'static str, usize>,
}

#[derive(Serialize)]
struct Declare<'a> {
    kind: &'static str,
    message: &'a str,
    location: &'a str,
    file: &'a str,
    line: Option<u32>,
    class: &'a str,
    method: &'a str,
}

impl<'a> Declare<'a> {
    fn of(class: &'a str, d: &'a DeclareHit) -> Self {
        // `File.java:12`; a class without a SourceFile is named instead.
        let file = match d.location.rsplit_once(':') {
            Some((f, _)) => f,
            None => d.location.as_str(),
        };
        Declare {
            kind: if d.is_error { "error" } else { "warning" },
            message: &d.message,
            location: &d.location,
            file,
            line: d.line,
            class,
            method: &d.method,
        }
    }
}

#[derive(Serialize)]
struct Class<'a> {
    name: &'a str,
    input: Option<usize>,
    release: Option<u32>,
    woven: bool,
    extra_class: Option<&'a str>,
    shadows: &'a BTreeMap<&'static str, usize>,
    advice: Vec<AdviceCount>,
    skipped_methods: &'a [String],
    intrinsics: usize,
    empty_finalizers: usize,
    notes: &'a [String],
    declares: Vec<Declare<'a>>,
}

impl<'a> From<&'a ClassRecord> for Class<'a> {
    fn from(c: &'a ClassRecord) -> Self {
        Class {
            name: &c.name,
            input: c.input,
            release: c.release,
            woven: c.woven,
            extra_class: c.extra_class.as_deref(),
            shadows: &c.shadows,
            advice: c
                .advice
                .iter()
                .map(|&(advice, shadows)| AdviceCount {
                    advice,
                    shadows,
                    shadows_by_kind: c
                        .advice_kinds
                        .iter()
                        .filter(|((a, _), _)| *a == advice)
                        .map(|(&(_, kind), &n)| (kind, n))
                        .collect(),
                })
                .collect(),
            skipped_methods: &c.skipped_methods,
            intrinsics: c.intrinsics,
            empty_finalizers: c.empty_finalizers,
            notes: &c.notes,
            declares: c.declares.iter().map(|d| Declare::of(&c.name, d)).collect(),
        }
    }
}

#[derive(Serialize)]
struct Unsupported<'a> {
    advice: &'a str,
    reason: &'a str,
}

#[derive(Serialize)]
struct SkippedMethod<'a> {
    class: &'a str,
    reason: &'a str,
}

#[derive(Serialize)]
struct Unwoven<'a> {
    skipped_methods: Vec<SkippedMethod<'a>>,
    intrinsic_classes: Vec<&'a str>,
    empty_finalizer_classes: Vec<&'a str>,
    notes: &'a [String],
}

#[derive(Serialize)]
struct Phase {
    phase: &'static str,
    ms: f64,
}

#[derive(Serialize)]
struct Timings {
    phases: Vec<Phase>,
    total_ms: f64,
}

fn ms(d: std::time::Duration) -> f64 {
    // Microsecond resolution: enough, and shorter to read.
    (d.as_secs_f64() * 1e6).round() / 1e3
}

#[derive(Serialize)]
struct Report<'a> {
    schema_version: u32,
    tool: Tool,
    status: &'static str,
    output: String,
    aspects: Vec<String>,
    inputs: Vec<String>,
    written: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    jdk: Option<&'a JdkContext>,
    summary: Summary,
    releases: Vec<Release>,
    advice: Vec<Advice<'a>>,
    unmatched_advice: Vec<usize>,
    unsupported_advice: Vec<Unsupported<'a>>,
    declares: Vec<Declare<'a>>,
    classes: Vec<Class<'a>>,
    unwoven: Unwoven<'a>,
    added_classes: &'a [String],
    base_packages_added: &'a [String],
    warnings: Vec<&'a str>,
    timings: Timings,
}

#[derive(Serialize)]
struct Failure<'a> {
    schema_version: u32,
    tool: Tool,
    status: &'static str,
    output: String,
    aspects: Vec<String>,
    error: String,
    declares: Vec<Declare<'a>>,
}

fn shown(p: &Path) -> String {
    p.display().to_string()
}

/// `path` relative to `base` when it lies inside it (`.` for `base` itself).
fn relative_to(path: &Path, base: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(r) if r.as_os_str().is_empty() => ".".to_string(),
        Ok(r) => shown(r),
        Err(_) => shown(path),
    }
}

/// The JSON report of a weave that went through.
pub fn render(r: &WeaveReport, cx: &ReportContext) -> String {
    let records = &r.class_records;
    let names = |f: fn(&ClassRecord) -> bool| -> Vec<&str> {
        records
            .iter()
            .filter(|c| f(c))
            .map(|c| c.name.as_str())
            .collect()
    };
    let report = Report {
        schema_version: SCHEMA_VERSION,
        tool: TOOL,
        status: "ok",
        output: shown(&cx.output),
        aspects: cx.aspects.iter().map(|p| shown(p)).collect(),
        inputs: r.inputs.iter().map(|p| shown(p)).collect(),
        written: match &cx.written {
            Some(w) => w.clone(),
            None => r
                .written
                .iter()
                .map(|p| relative_to(p, &cx.output))
                .collect(),
        },
        jdk: cx.jdk.as_ref(),
        summary: Summary {
            classes: r.classes,
            woven: r.woven,
            advised_shadows: r.advised.values().sum(),
            shadows: r.advised.clone(),
            advice: r.advice.len(),
            unmatched_advice: r.unmatched.len(),
            declare_warnings: r.declare_warnings.len(),
            skipped_methods: r.skipped_methods.len(),
            intrinsics: r.intrinsics,
            empty_finalizers: r.empty_finalizers,
            added_classes: r.added_classes.len(),
        },
        releases: r
            .releases
            .iter()
            .map(|(&release, &(classes, woven))| Release {
                release,
                classes,
                woven,
            })
            .collect(),
        advice: r.advice.iter().map(|a| Advice::of(a, records)).collect(),
        unmatched_advice: r
            .advice
            .iter()
            .filter(|a| a.shadows == 0)
            .map(|a| a.id)
            .collect(),
        unsupported_advice: r
            .unsupported
            .iter()
            .map(|(advice, reason)| Unsupported { advice, reason })
            .collect(),
        declares: records
            .iter()
            .flat_map(|c| c.declares.iter().map(|d| Declare::of(&c.name, d)))
            .collect(),
        classes: records.iter().map(Class::from).collect(),
        unwoven: Unwoven {
            skipped_methods: records
                .iter()
                .flat_map(|c| {
                    c.skipped_methods.iter().map(|m| SkippedMethod {
                        class: &c.name,
                        reason: m,
                    })
                })
                .collect(),
            intrinsic_classes: names(|c| c.intrinsics > 0),
            empty_finalizer_classes: names(|c| c.empty_finalizers > 0),
            notes: &r.notes,
        },
        added_classes: &r.added_classes,
        base_packages_added: &r.base_packages_added,
        warnings: r
            .warnings
            .iter()
            .chain(&r.aspect_warnings)
            .map(String::as_str)
            .collect(),
        timings: Timings {
            phases: r
                .timings
                .iter()
                .map(|&(phase, d)| Phase { phase, ms: ms(d) })
                .collect(),
            total_ms: ms(r.timings.iter().map(|(_, d)| *d).sum()),
        },
    };
    let mut text = serde_json::to_string_pretty(&report).expect("the report serializes");
    text.push('\n');
    text
}

/// The JSON report of a weave that failed: the error, and the `declare
/// error` matches when those failed it.
pub fn render_failure(e: &MajorError, cx: &ReportContext) -> String {
    let declares = match e {
        MajorError::JoinPointErrors(hits) => hits.iter().map(|(c, d)| Declare::of(c, d)).collect(),
        _ => Vec::new(),
    };
    let failure = Failure {
        schema_version: SCHEMA_VERSION,
        tool: TOOL,
        status: "failed",
        output: shown(&cx.output),
        aspects: cx.aspects.iter().map(|p| shown(p)).collect(),
        error: e.to_string(),
        declares,
    };
    let mut text = serde_json::to_string_pretty(&failure).expect("the report serializes");
    text.push('\n');
    text
}

/// Where `--report json[=FILE]` sends the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportTarget {
    /// Standard output (`--report json`).
    Stdout,
    /// A file (`--report json=FILE`), written whole.
    File(PathBuf),
}

impl ReportTarget {
    /// Parses the value of `--report`: `json` or `json=FILE`.
    pub fn parse(value: &str) -> Result<ReportTarget, String> {
        match value.split_once('=') {
            None if value == "json" => Ok(ReportTarget::Stdout),
            Some(("json", "")) => Err("--report json=FILE: the file name is empty".into()),
            Some(("json", "-")) => Ok(ReportTarget::Stdout),
            Some(("json", file)) => Ok(ReportTarget::File(PathBuf::from(file))),
            _ => Err(format!(
                "--report {value}: the only format is json (`--report json` on standard \
                 output, `--report json=FILE` into FILE)"
            )),
        }
    }

    /// Writes `text` there (a file through a temporary sibling, renamed;
    /// standard output into `stdout`).
    pub fn write(&self, text: &str, stdout: &mut dyn std::io::Write) -> Result<(), MajorError> {
        match self {
            ReportTarget::Stdout => stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
                .map_err(|e| MajorError::Usage(format!("cannot write the report: {e}"))),
            ReportTarget::File(path) => {
                let fail =
                    |e: std::io::Error| MajorError::Usage(format!("{}: {e}", path.display()));
                // A sibling first (made with the umask's permissions, as any
                // file the user writes), renamed over the target: a reader
                // never sees half a report.
                let name = path.file_name().ok_or_else(|| {
                    MajorError::Usage(format!("--report json={}: not a file", path.display()))
                })?;
                let mut tmp_name = std::ffi::OsString::from(".");
                tmp_name.push(name);
                tmp_name.push(format!(".{}.tmp", std::process::id()));
                let tmp = path.with_file_name(tmp_name);
                let written = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, path));
                if let Err(e) = written {
                    let _ = std::fs::remove_file(&tmp);
                    return Err(fail(e));
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse() {
        assert_eq!(ReportTarget::parse("json"), Ok(ReportTarget::Stdout));
        assert_eq!(ReportTarget::parse("json=-"), Ok(ReportTarget::Stdout));
        assert_eq!(
            ReportTarget::parse("json=r/w.json"),
            Ok(ReportTarget::File(PathBuf::from("r/w.json")))
        );
        assert!(ReportTarget::parse("json=").is_err());
        assert!(ReportTarget::parse("xml")
            .unwrap_err()
            .contains("only format is json"));
    }

    #[test]
    fn declare_locations_split() {
        let d = DeclareHit {
            is_error: false,
            message: "m".into(),
            location: "Foo.java:12".into(),
            method: "m()V".into(),
            line: Some(12),
        };
        let j = Declare::of("p/Foo", &d);
        assert_eq!(
            (j.file, j.line, j.kind, j.method),
            ("Foo.java", Some(12), "warning", "m()V")
        );
        let d = DeclareHit {
            location: "p/Foo".into(),
            line: None,
            ..d
        };
        let j = Declare::of("p/Foo", &d);
        assert_eq!((j.file, j.line), ("p/Foo", None));
    }

    #[test]
    fn written_paths_are_relative_to_the_output() {
        let out = Path::new("/w/out");
        assert_eq!(relative_to(Path::new("/w/out/a.jar"), out), "a.jar");
        assert_eq!(relative_to(out, out), ".");
        assert_eq!(relative_to(Path::new("/else/b.jar"), out), "/else/b.jar");
    }
}
