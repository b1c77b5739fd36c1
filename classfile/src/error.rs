//! The one error type of the class-file engine: a kind, a message, the byte offset
//! it refers to, and as much context (class, method) as the caller could add.

use std::fmt;

/// What went wrong, so that callers can match on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input ended before a structure it declares.
    Truncated,
    /// The file does not start with `0xCAFEBABE`.
    BadMagic,
    /// A constant-pool index is zero, past the pool, or names the second slot of a
    /// long/double.
    BadCpIndex,
    /// A constant-pool entry has an unknown tag, or a reference expects another tag.
    WrongTag,
    /// An attribute (or a table inside one) claims more bytes than it has.
    AttributeOverrun,
    /// Malformed bytes that fit none of the kinds above (bad opcode, bad UTF-8,
    /// branch into the middle of an instruction, trailing bytes ...).
    Malformed,
    /// The encoded method body would exceed the JVM's 65535-byte limit.
    CodeTooLarge,
    /// Frame computation needed a class that the hierarchy does not know.
    UnknownClass,
    /// The code is legal but outside what this engine handles (e.g. `jsr` in a
    /// class file that needs frames).
    Unsupported,
}

/// An error of the class-file engine. Small (one pointer) so that `Result`s stay cheap.
pub struct Error(Box<Inner>);

#[derive(Debug, Clone)]
struct Inner {
    kind: ErrorKind,
    message: String,
    offset: Option<usize>,
    class: Option<String>,
    method: Option<String>,
}

/// Result alias of the class-file engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind` at byte `offset` (in the class file or, for code
    /// errors, in the method's bytecode).
    pub fn new(
        kind: ErrorKind,
        offset: impl Into<Option<usize>>,
        message: impl Into<String>,
    ) -> Self {
        Error(Box::new(Inner {
            kind,
            message: message.into(),
            offset: offset.into(),
            class: None,
            method: None,
        }))
    }
    /// Shorthand for [`ErrorKind::Truncated`].
    pub fn truncated(offset: usize, what: &str) -> Self {
        Self::new(
            ErrorKind::Truncated,
            offset,
            format!("truncated: {what} runs past the end"),
        )
    }
    /// Shorthand for [`ErrorKind::Malformed`].
    pub fn malformed(offset: impl Into<Option<usize>>, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Malformed, offset, message)
    }
    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }
    /// The message, without context.
    pub fn message(&self) -> &str {
        &self.0.message
    }
    /// The byte offset the error refers to, if known.
    pub fn offset(&self) -> Option<usize> {
        self.0.offset
    }
    /// The class the error occurred in, if known.
    pub fn class(&self) -> Option<&str> {
        self.0.class.as_deref()
    }
    /// The method (`name` + descriptor) the error occurred in, if known.
    pub fn method(&self) -> Option<&str> {
        self.0.method.as_deref()
    }
    /// Adds the class name (kept if one is already set).
    pub fn in_class(mut self, class: impl Into<String>) -> Self {
        if self.0.class.is_none() {
            self.0.class = Some(class.into());
        }
        self
    }
    /// Adds the method name and descriptor (kept if one is already set).
    pub fn in_method(mut self, name: &str, descriptor: &str) -> Self {
        if self.0.method.is_none() {
            self.0.method = Some(format!("{name}{descriptor}"));
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.0;
        if let Some(c) = &i.class {
            write!(f, "class {c}: ")?;
        }
        if let Some(m) = &i.method {
            write!(f, "method {m}: ")?;
        }
        f.write_str(&i.message)?;
        if let Some(o) = i.offset {
            write!(f, " (at offset {o:#x})")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?}: {})", self.0.kind, self)
    }
}

impl std::error::Error for Error {}
