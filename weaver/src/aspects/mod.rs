//! Compiled aspects: what the weaver needs to know about the Java classes an
//! aspect became. [`compile()`] (in `compile.rs`) turns the checked
//! [`Program`](major_pointcut_lang::Program) into Java source, runs `javac`
//! against the runtime API, and describes the result with the types below; the
//! weaving core only reads these types.
//!
//! Conventions every compiled aspect follows:
//! * a code-style aspect `p.A` becomes the public class `p/A` (abstract aspects an
//!   abstract class; `privileged` is dropped, `extends`/`implements` are kept);
//!   annotation-style (`@Aspect`) classes are compiled by the user's javac and are
//!   not part of [`CompiledAspects`];
//! * a concrete aspect has `public static p.A aspectOf()` and
//!   `public static boolean hasAspect()`; its single instance is created at the
//!   end of its static initializer (after the aspect's own static fields and
//!   blocks); `aspectOf()` throws `org.aspectj.lang.NoAspectBoundException` while
//!   the instance does not exist (during that initializer, or after its
//!   constructor threw);
//! * advice number `n` (in declaration order) of aspect `p.A` becomes the public
//!   instance method `major$advice$A$n` of the class of the aspect that declares
//!   it (inherited by concrete sub-aspects), taking first the advice's formals in
//!   order (declared parameters, then the `returning`/`throwing` formal), then
//!   the [`Extra`] parameters the advice needs, in the order of
//!   [`AdviceMethod::extras`]; it is declared `throws Throwable` and returns
//!   `void`, or around advice's declared type;
//! * in around advice, `proceed(a, b)` calls
//!   `major.runtime.AroundClosure.run(new Object[] { a, b })`: the array holds
//!   the values for the advice's declared formals, boxed; the result is the
//!   join point's value boxed (anything for `void`), unboxed with
//!   `major.runtime.Conversions.<prim>Value(Object)` or cast to the around
//!   advice's return type;
//! * the `k`-th `if(..)` (pre-order of the resolved pointcut tree) of advice
//!   number `i` of the resolved advice list of concrete aspect `C` becomes the
//!   public static boolean method `major$if$C$i$k`, declared in the aspect whose
//!   text contains the `if` (so the expression sees the names it was written
//!   among); it takes the formals the expression names (their types as declared
//!   where the `if` is written, e.g. a named pointcut's parameter: a reference
//!   type may be wider or narrower than the advice formal bound to that slot, and
//!   the weaver casts), then its [`IfTest::extras`].
use major_pointcut_lang::ast::AdviceKind;

pub mod compile;
pub use compile::{compile, AspectCompileError};

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
    /// Reflective parameters after the slots (`thisJoinPoint` is a plain
    /// `JoinPoint` here, even for around advice; never [`Extra::AroundClosure`]).
    pub extras: Vec<Extra>,
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
