//! Compiled aspects: what the weaver needs to know about the Java classes an
//! aspect became. [`compile`] (in `compile.rs`) turns the checked
//! [`Program`](major_pointcut_lang::Program) into Java source, runs `javac`
//! against the runtime API, and describes the result with the types below; the
//! weaving core only reads these types.
//!
//! Conventions every compiled aspect follows:
//! * a concrete aspect `p.A` becomes class `p/A` with
//!   `public static p.A aspectOf()` and `public static boolean hasAspect()`; its
//!   single instance is created in its static initializer;
//! * each advice becomes a public instance method of the class of the aspect that
//!   declares it (inherited by concrete sub-aspects), taking first the advice's
//!   formals in order (declared parameters, then the `returning`/`throwing`
//!   formal), then the [`Extra`] parameters the advice needs, in the order of
//!   [`AdviceMethod::extras`]; it is declared `throws Throwable`;
//! * each `if(..)` of an advice's resolved pointcut becomes a public static
//!   boolean method taking the formals the expression names.

use major_pointcut_lang::ast::AdviceKind;

/// One compiled concrete aspect.
#[derive(Debug, Clone)]
pub struct CompiledAspect {
    /// Internal name of the aspect class (`p/A`).
    pub internal_name: String,
    /// Index of the aspect in `Program::aspects`.
    pub program_index: usize,
    /// The advice, in the order of the resolved aspect's `advice` list.
    pub advice: Vec<AdviceMethod>,
}

/// Trailing parameters of an advice method, supplied by the weaver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extra {
    /// `major.runtime.AroundClosure` (around advice only), always first.
    AroundClosure,
    /// `org.aspectj.lang.JoinPoint` (`thisJoinPoint`; a `ProceedingJoinPoint` for around).
    JoinPoint,
    /// `org.aspectj.lang.JoinPoint$StaticPart` (`thisJoinPointStaticPart`).
    StaticPart,
    /// `org.aspectj.lang.JoinPoint$StaticPart` (`thisEnclosingJoinPointStaticPart`).
    EnclosingStaticPart,
}

/// One advice as a method.
#[derive(Debug, Clone)]
pub struct AdviceMethod {
    /// Internal name of the class declaring the method (the aspect that declared
    /// the advice; a super-aspect for inherited advice).
    pub owner: String,
    /// Method name.
    pub name: String,
    /// JVM descriptor.
    pub descriptor: String,
    /// Kind of advice.
    pub kind: AdviceKind,
    /// JVM descriptors of the formals, in slot order.
    pub formal_types: Vec<String>,
    /// Extra parameters after the formals.
    pub extras: Vec<Extra>,
    /// The `if(..)` tests of this advice's pointcut, in pre-order of the resolved
    /// pointcut tree.
    pub if_tests: Vec<IfTest>,
}

/// One `if(..)` pointcut as a static method.
#[derive(Debug, Clone)]
pub struct IfTest {
    /// Internal name of the class declaring it.
    pub owner: String,
    /// Method name.
    pub name: String,
    /// JVM descriptor (`(..)Z`).
    pub descriptor: String,
    /// The formal slots passed, in parameter order.
    pub slots: Vec<usize>,
}

/// The result of compiling a program's aspects.
#[derive(Debug, Clone, Default)]
pub struct CompiledAspects {
    /// The concrete aspects, in program order.
    pub aspects: Vec<CompiledAspect>,
    /// Every class file javac produced (entry name `p/A.class`, bytes), sorted by
    /// name: they go into the woven output.
    pub classes: Vec<(String, Vec<u8>)>,
}
