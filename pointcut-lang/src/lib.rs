//! The aspect language of major: the pest grammar for `.aj` files, the typed AST,
//! name resolution and the pattern-matching API the weaver calls.
//!
//! Not yet written (tracked as issue 3). The crate exists so that the workspace has
//! its final shape and the class-file engine can be shown to know nothing of it.
