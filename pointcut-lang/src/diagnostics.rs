//! Diagnostics as data: a code, a message, a primary span with its label, further
//! labelled spans and a help text, attached to a named source. They implement
//! [`miette::Diagnostic`] and render with miette's graphical handler.

use std::fmt;
use std::sync::Arc;

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
#[derive(Debug, Clone)]
pub struct Diagnostic(Box<DiagnosticData>);

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
        &mut self.0
    }
}

impl Diagnostic {
    /// An error with code, message and primary span.
    pub fn error(code: &'static str, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic(Box::new(DiagnosticData {
            code,
            severity: Severity::Error,
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            help: None,
            source: None,
        }))
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
        self.source.as_ref().map(|s| &*s.named as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let primary = LabeledSpan::new_primary_with_span(
            (!self.label.is_empty()).then(|| self.label.clone()),
            self.span,
        );
        let rest = self
            .secondary
            .iter()
            .map(|(s, l)| LabeledSpan::new_with_span((!l.is_empty()).then(|| l.clone()), *s));
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
}
