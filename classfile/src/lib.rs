//! The class-file engine of major.
//!
//! * [`ClassFile::parse`] reads a class file without copying it: the constant pool
//!   is checked once, members and attributes stay borrowed byte ranges.
//! * [`write_class`] writes a class back from the original bytes plus a
//!   [`ClassEdit`]: the pool is only appended to, untouched members are copied raw,
//!   so an unchanged class comes out byte-identical.
//! * [`Code`] is the label-based instruction list that method bodies are rewritten
//!   in; [`frames::compute`] recomputes `max_stack`, `max_locals` and the
//!   `StackMapTable` of a changed body using a [`ClassHierarchy`].
//! * [`disasm`] prints classes and methods.
//!
//! Everything here is driven by one opcode table ([`opcodes::OPCODES`]). The crate
//! knows nothing of aspects or pointcuts.

#![warn(missing_docs)]

pub mod annotations;
pub mod bytes;
pub mod class_builder;
pub mod class_header;
pub mod class_reader;
pub mod class_writer;
pub mod code;
pub mod constant_pool;
pub mod descriptor;
pub mod disasm;
pub mod error;
pub mod frames;
pub mod hierarchy;
pub mod init_calls;
pub mod kept_frames;
pub mod opcodes;
pub mod pool_builder;
pub mod rewrite;
pub mod selfcheck;

pub use class_builder::ClassBuilder;
pub use class_header::ClassHeader;
pub use class_reader::{Attribute, ClassFile, CodeAttribute, ExceptionEntry, Member};
pub use class_writer::{method_with_code, write_class, ClassEdit};
pub use code::{Code, CodeAttr, Handler, Insn, Label};
pub use constant_pool::{Constant, ConstantPool};
pub use error::{Error, ErrorKind, Result};
pub use hierarchy::{ClassHierarchy, ClassInfo};
pub use pool_builder::PoolBuilder;
