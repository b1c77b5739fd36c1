//! Diagnostics as data: a code, a message, a primary span with its label, further
//! labelled spans and a help text, attached to a named source. They implement
//! [`miette::Diagnostic`] and render with miette's graphical handler.

use std::fmt;
use std::sync::{Arc, OnceLock};

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode};

use crate::ast::Span;

/// A named source text (a `.aj` file, a `.java` file, a pointcut string).
#[derive(Debug, Clone)]
pub struct SourceFile {
    named: Arc<NamedSource<String>>,
}

impl SourceFile {
    /// A source called `name` with contents `text`.
    pub fn new(name: impl AsRef<str>, text: impl Into<String>) -> SourceFile {
        SourceFile {
            named: Arc::new(NamedSource::new(name, text.into())),
        }
    }

    /// The file name.
    pub fn name(&self) -> &str {
        self.named.name()
    }

    /// The text.
    pub fn text(&self) -> &str {
        self.named.inner()
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        line_col(self.text(), offset)
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The aspect cannot be used.
    Error,
    /// Worth knowing; the aspect is still usable.
    Warning,
}

/// One problem found in an aspect, pointing at its source. A small boxed value;
/// its fields are those of [`DiagnosticData`] (through `Deref`).
///
/// Rendered, a source line longer than [`MAX_RENDERED_LINE`] bytes is shown
/// clipped to the parts around the spans on it (miette cannot draw labels
/// past column 65,535).
#[derive(Debug, Clone)]
pub struct Diagnostic(Box<DiagnosticData>, OnceLock<Rendered>);

/// Source lines longer than this many bytes are clipped when rendered.
pub const MAX_RENDERED_LINE: usize = 1000;

/// Bytes kept on each side of a span's start and end in a clipped line.
const CLIP_CONTEXT: usize = 60;

/// What stands for the cut parts of a clipped line.
const ELLIPSIS: &str = "\u{2026}";

/// The source and spans miette draws: the diagnostic's own, or a copy of the
/// source with its long lines clipped and the spans moved to match.
#[derive(Debug, Clone)]
struct Rendered {
    source: Option<Arc<NamedSource<String>>>,
    span: Span,
    secondary: Vec<Span>,
}

/// The contents of a [`Diagnostic`].
#[derive(Debug, Clone)]
pub struct DiagnosticData {
    /// A stable identifier, e.g. `pointcut::syntax`, `pointcut::unbound-formal`.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, in one line.
    pub message: String,
    /// The primary span.
    pub span: Span,
    /// Text under the primary span.
    pub label: String,
    /// Further labelled spans.
    pub secondary: Vec<(Span, String)>,
    /// How to fix it, if known.
    pub help: Option<String>,
    source: Option<SourceFile>,
}

impl std::ops::Deref for Diagnostic {
    type Target = DiagnosticData;
    fn deref(&self) -> &DiagnosticData {
        &self.0
    }
}

impl std::ops::DerefMut for Diagnostic {
    fn deref_mut(&mut self) -> &mut DiagnosticData {
        // The spans or the source may change: render afresh.
        self.1 = OnceLock::new();
        &mut self.0
    }
}

/// The parts of `text` to cut so that no line is longer than
/// [`MAX_RENDERED_LINE`] bytes, keeping [`CLIP_CONTEXT`] bytes around each of
/// `points` (span starts and ends) on a long line: sorted, disjoint byte
/// ranges, each on character boundaries.
fn long_line_cuts(text: &str, points: &[usize]) -> Vec<(usize, usize)> {
    let mut cuts = Vec::new();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let start = line_start;
        let end = start + line.trim_end_matches(['\n', '\r']).len();
        line_start += line.len();
        if end - start <= MAX_RENDERED_LINE {
            continue;
        }
        // The windows kept on this line, merged.
        let mut keep: Vec<(usize, usize)> = points
            .iter()
            .filter(|&&p| p >= start && p <= end)
            .map(|&p| {
                (
                    p.saturating_sub(CLIP_CONTEXT).max(start),
                    (p + CLIP_CONTEXT).min(end),
                )
            })
            .collect();
        if keep.is_empty() {
            keep.push((start, start + CLIP_CONTEXT));
        }
        keep.sort_unstable();
        let mut at = start;
        for (a, b) in keep {
            let a = floor_boundary(text, a.max(at));
            if a > at + ELLIPSIS.len() {
                cuts.push((at, a));
            }
            at = at.max(ceil_boundary(text, b));
        }
        if end > at + ELLIPSIS.len() {
            cuts.push((at, end));
        }
    }
    cuts
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Where byte `offset` of the original text lands once `cuts` are replaced
/// by [`ELLIPSIS`]: an offset inside a cut lands on its ellipsis.
fn moved(cuts: &[(usize, usize)], offset: usize) -> usize {
    let mut removed = 0;
    for &(a, b) in cuts {
        if offset <= a {
            break;
        }
        if offset < b {
            return a - removed;
        }
        removed += (b - a) - ELLIPSIS.len();
    }
    offset - removed
}

impl Diagnostic {
    /// An error with code, message and primary span.
    pub fn error(code: &'static str, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic(
            Box::new(DiagnosticData {
                code,
                severity: Severity::Error,
                message: message.into(),
                span,
                label: String::new(),
                secondary: Vec::new(),
                help: None,
                source: None,
            }),
            OnceLock::new(),
        )
    }

    /// A warning with code, message and primary span.
    pub fn warning(code: &'static str, message: impl Into<String>, span: Span) -> Diagnostic {
        let mut d = Diagnostic::error(code, message, span);
        d.severity = Severity::Warning;
        d
    }

    /// Sets the primary label.
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    /// Adds a secondary labelled span.
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    /// Sets the help text.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Attaches the source the spans refer to (done once per file by the driver).
    pub fn in_source(mut self, source: &SourceFile) -> Diagnostic {
        self.source = Some(source.clone());
        self
    }

    /// Moves every span through `map` (for pointcuts embedded in another text).
    pub fn shifted(mut self, map: &dyn Fn(usize) -> usize) -> Diagnostic {
        let f = |s: Span| Span::new(map(s.start), map(s.end).max(map(s.start)));
        let primary = f(self.span);
        self.span = primary;
        for (s, _) in &mut self.secondary {
            *s = f(*s);
        }
        self
    }

    /// The file name, if a source is attached.
    pub fn file_name(&self) -> Option<&str> {
        self.source.as_ref().map(|s| s.name())
    }

    /// 1-based line and column of the primary span, if a source is attached.
    pub fn line_col(&self) -> Option<(usize, usize)> {
        self.source.as_ref().map(|s| s.line_col(self.span.start))
    }

    /// Whether this is an error (not a warning).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The source and spans to draw: long lines clipped (see [`Diagnostic`]).
    fn rendered(&self) -> &Rendered {
        self.1.get_or_init(|| {
            let mut r = Rendered {
                source: self.source.as_ref().map(|s| s.named.clone()),
                span: self.span,
                secondary: self.secondary.iter().map(|(s, _)| *s).collect(),
            };
            let Some(source) = &self.source else {
                return r;
            };
            let text = source.text();
            let spans = std::iter::once(r.span).chain(r.secondary.iter().copied());
            let points: Vec<usize> = spans.flat_map(|s| [s.start, s.end]).collect();
            let cuts = long_line_cuts(text, &points);
            if cuts.is_empty() {
                return r;
            }
            let mut clipped = String::with_capacity(text.len());
            let mut at = 0;
            for &(a, b) in &cuts {
                clipped.push_str(&text[at..a]);
                clipped.push_str(ELLIPSIS);
                at = b;
            }
            clipped.push_str(&text[at..]);
            let fix = |s: Span| {
                let start = moved(&cuts, s.start.min(text.len()));
                Span::new(start, moved(&cuts, s.end.min(text.len())).max(start))
            };
            r.span = fix(r.span);
            for s in &mut r.secondary {
                *s = fix(*s);
            }
            // Positions miette computes are in the clipped text: say so (the
            // message keeps the real line and column).
            let name = format!("{} (long lines clipped)", source.name());
            r.source = Some(Arc::new(NamedSource::new(name, clipped)));
            r
        })
    }

    /// Renders with miette's graphical handler, without colours, at a fixed width
    /// (stable output for tests and logs).
    pub fn render(&self) -> String {
        let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
            .with_width(100)
            .with_links(false);
        let mut out = String::new();
        if handler.render_report(&mut out, self).is_err() {
            out = format!("{self}\n");
        }
        out
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.file_name(), self.line_col()) {
            (Some(file), Some((l, c))) => write!(f, "{file}:{l}:{c}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Diagnostic {}

impl miette::Diagnostic for Diagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.rendered()
            .source
            .as_ref()
            .map(|s| &**s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let r = self.rendered();
        let primary = LabeledSpan::new_primary_with_span(
            (!self.label.is_empty()).then(|| self.label.clone()),
            r.span,
        );
        let rest =
            self.secondary.iter().zip(&r.secondary).map(|((_, l), s)| {
                LabeledSpan::new_with_span((!l.is_empty()).then(|| l.clone()), *s)
            });
        Some(Box::new(std::iter::once(primary).chain(rest)))
    }
}

/// Every diagnostic of a failed parse or check (at least one is an error). Its
/// `Display` is one `file:line:col: message` line per diagnostic; [`render`]
/// draws them with the source.
///
/// [`render`]: Diagnostics::render
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", summary(.0))]
pub struct Diagnostics(pub Vec<Diagnostic>);

fn summary(ds: &[Diagnostic]) -> String {
    ds.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

impl Diagnostics {
    /// Renders all of them, one after another.
    pub fn render(&self) -> String {
        self.0.iter().map(Diagnostic::render).collect()
    }

    /// Whether any of them is an error.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Diagnostics {
        Diagnostics(vec![d])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        let t = "ab\ncd\n\u{e9}f";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 4), (2, 2));
        assert_eq!(line_col(t, 8), (3, 2));
        assert_eq!(line_col(t, 999), (3, 3));
    }

    #[test]
    fn an_error_far_along_a_long_line_renders_clipped() {
        let mut text = String::from("aspect A {\n");
        text.push_str(&"\u{e9}".repeat(40_000)); // two bytes each: 80,000 bytes
        let at = text.len();
        text.push_str("bad token here;\n}\n");
        let source = SourceFile::new("A.aj", text.clone());
        let d = Diagnostic::error("test::long", "something is wrong", Span::new(at, at + 3))
            .with_label("this")
            .with_secondary(Span::new(11, 13), "line start")
            .in_source(&source);
        let out = d.render();
        assert!(out.contains("something is wrong"), "{out}");
        assert!(out.contains("bad token here"), "{out}");
        assert!(out.contains('\u{2026}'), "{out}");
        assert!(out.len() < 2_000, "{} bytes rendered", out.len());
        // The position in the message is the real one.
        assert_eq!(d.to_string(), "A.aj:2:40001: something is wrong");
        // Labels point at the same text as before.
        let r = d.rendered();
        let clipped = r.source.as_ref().unwrap().inner();
        assert_eq!(&clipped[r.span.start..r.span.end], "bad");
        assert_eq!(&clipped[r.secondary[0].start..r.secondary[0].end], "\u{e9}");
        // A long line without a span on it is cut too.
        let short = Diagnostic::error("test::short", "m", Span::new(0, 6)).in_source(&source);
        let _ = short.render();
        assert!(short.rendered().source.as_ref().unwrap().inner().len() < text.len());
        let plain = SourceFile::new("B.aj", "aspect B {}\n");
        let d = Diagnostic::error("t", "m", Span::new(0, 6)).in_source(&plain);
        assert_eq!(
            d.rendered().source.as_ref().unwrap().inner(),
            "aspect B {}\n"
        );
    }

    #[test]
    fn moved_offsets_follow_the_cuts() {
        let cuts = [(10, 20), (30, 40)];
        assert_eq!(moved(&cuts, 5), 5);
        assert_eq!(moved(&cuts, 10), 10);
        assert_eq!(moved(&cuts, 15), 10);
        assert_eq!(moved(&cuts, 20), 13);
        assert_eq!(moved(&cuts, 35), 23);
        assert_eq!(moved(&cuts, 50), 50 - 14);
    }
}
