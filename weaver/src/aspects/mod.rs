//! Compiled aspects: what the weaver needs to know about the Java classes an
//! aspect became. [`compile()`] (in `compile.rs`) turns the checked
//! [`Program`](major_pointcut_lang::Program) into Java source, runs `javac`
//! against the runtime API (together with the annotation-style `.java` files,
//! compiled unchanged), and describes the result with the types below; the
//! weaving core only reads these types.
//!
//! Conventions every compiled aspect follows:
//! * a code-style aspect `p.A` becomes the public class `p/A` (abstract aspects an
//!   abstract class; `privileged` is dropped, `extends`/`implements` are kept);
//!   an annotation-style (`@Aspect`) class `p.A` is the class javac makes of the
//!   user's own source, rewritten only to add what follows (see
//!   `annotation_style.rs`);
//! * a concrete aspect has `public static p.A aspectOf()` and
//!   `public static boolean hasAspect()`; its single instance is created at the
//!   end of its static initializer (after the aspect's own static fields and
//!   blocks); `aspectOf()` throws `org.aspectj.lang.NoAspectBoundException` while
//!   the instance does not exist (during that initializer, or after its
//!   constructor threw);
//! * every advice is a public instance method of the class of the aspect that
//!   declares it (inherited by concrete sub-aspects), declared `throws Throwable`
//!   or less, returning `void`, or around advice's declared type. Its parameters
//!   are listed by [`AdviceMethod::params`]: each is either a formal (a binding
//!   slot: the advice's declared parameters, then the `returning`/`throwing`
//!   formal) or an [`Extra`] the weaver supplies;
//!   * code-style advice number `n` (in declaration order) of aspect `p.A` is the
//!     method `major$advice$A$n`, taking the formals in slot order, then its
//!     extras ([`Extra::AroundClosure`] first for around advice, then the
//!     reflective values the body uses);
//!   * annotation-style advice is the user's annotated method itself, with its
//!     parameters in the user's order: formals mixed with `JoinPoint`,
//!     `ProceedingJoinPoint` (both [`Extra::JoinPoint`]), `JoinPoint.StaticPart`
//!     and `JoinPoint.EnclosingStaticPart` parameters. Their formal slots are
//!     those of the resolved advice, so a join-point parameter has a slot too
//!     (it is never bound by the pointcut and never passed as a formal);
//! * in code-style around advice, `proceed(a, b)` calls
//!   `major.runtime.AroundClosure.run(new Object[] { a, b })`: the array holds
//!   the values for the advice's declared formals, boxed; the result is the
//!   join point's value boxed (anything for `void`), unboxed with
//!   `major.runtime.Conversions.<prim>Value(Object)` or cast to the around
//!   advice's return type. The `ProceedingJoinPoint` an around advice gets
//!   (annotation style, or `thisJoinPoint` in code style) proceeds through its
//!   own closure, in AspectJ's layout (`{this, target, args..}`);
//! * the `k`-th `if(..)` (pre-order of the resolved pointcut tree) of advice
//!   number `i` of the resolved advice list of concrete aspect `C` becomes the
//!   public static boolean method `major$if$C$i$k`, declared in the aspect whose
//!   text contains the `if` (so the expression sees the names it was written
//!   among); it takes the formals the expression names (their types as declared
//!   where the `if` is written, e.g. a named pointcut's parameter: a reference
//!   type may be wider or narrower than the advice formal bound to that slot, and
//!   the weaver casts), then its [`IfTest::extras`]. In an annotation-style
//!   aspect, an empty `if()` in a `@Pointcut` method's string is a test by that
//!   method (public static boolean), whose parameters must then be the
//!   pointcut's formals followed by its join-point parameters.
use major_pointcut_lang::ast::AdviceKind;

pub mod annotation_style;
pub mod cache;
pub mod compile;
pub use compile::{compile, AspectCompileError, CompileCache};

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

/// Parameters of an advice method that are not formals, supplied by the weaver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extra {
    /// `major.runtime.AroundClosure` (code-style around advice only), the first
    /// extra.
    AroundClosure,
    /// `org.aspectj.lang.JoinPoint` (`thisJoinPoint`; a `ProceedingJoinPoint` for around).
    JoinPoint,
    /// `org.aspectj.lang.JoinPoint$StaticPart` (`thisJoinPointStaticPart`).
    StaticPart,
    /// `org.aspectj.lang.JoinPoint$StaticPart` (`thisEnclosingJoinPointStaticPart`),
    /// or a `JoinPoint$EnclosingStaticPart` parameter of annotation-style advice.
    EnclosingStaticPart,
    /// `major.runtime.CallingContext` (`thisCallingContext`): the current
    /// node of the thread's calling-context tree (see `weave::context`).
    CallingContext,
}

/// One parameter of an advice method, in parameter order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// The value of formal slot `n` (typed [`AdviceMethod::formal_types`]`[n]`).
    Formal(usize),
    /// A value the weaver makes.
    Extra(Extra),
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
    /// JVM descriptors of the formals, in slot order (one per formal of the
    /// resolved advice, join-point parameters of annotation-style advice included).
    pub formal_types: Vec<String>,
    /// The method's parameters, in order.
    pub params: Vec<Param>,
    /// The `if(..)` tests of this advice's pointcut, in pre-order of the resolved
    /// pointcut tree.
    pub if_tests: Vec<IfTest>,
}

impl AdviceMethod {
    /// The extra parameters, in parameter order.
    pub fn extras(&self) -> impl Iterator<Item = Extra> + '_ {
        self.params.iter().filter_map(|p| match p {
            Param::Extra(e) => Some(*e),
            Param::Formal(_) => None,
        })
    }
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
    /// Every class file javac produced (entry name `p/A.class`, bytes; concrete
    /// annotation-style aspects rewritten), sorted by name: they go into the
    /// woven output.
    pub classes: Vec<(String, Vec<u8>)>,
    /// True when javac's output came from the cache ([`cache`]) instead of a
    /// javac run.
    pub from_cache: bool,
}
