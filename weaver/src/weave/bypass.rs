//! Full coverage: the bypasses that let the Java class library itself be woven
//! (MAJOR, FERRARI).
//!
//! * **BIB, the bootstrap bypass.** No woven code may run before the JVM has
//!   booted (`jdk.internal.misc.VM.isBooted()`: the end of `System.initPhase3`);
//!   before that there is not even a current thread.
//! * **DIB, the thread-local bypass.** Advice runs library code that is itself
//!   woven; while a thread runs advice (or the aspects' own initialization), the
//!   woven code it reaches must run its original code. The flag is a field added
//!   to `java.lang.Thread` ([`DIB_FIELD`]).
//!
//! Both are checked once per invocation of every woven method: the BIB as
//! one read of the static flag [`BOOTED`] (set by `VM.initLevel` when the VM
//! has booted: [`hook_boot`]), then the DIB. What the check decides holds for
//! the whole invocation (but at the point shadows woven straight-line, which
//! call their advice's dispatch methods and check there:
//! [`super::straight`]), in one of two forms ([`BypassForm`]):
//!
//! * **guards** (the default): the decision goes into a local on entry
//!   ([`decide`]: one call of [`BYPASS`]`.bypassed()`); each woven shadow
//!   tests it ([`guard`]) and runs either its woven code or its original
//!   instruction; an execution's advice calls and cflow entries are skipped
//!   one by one. A method grows by its advice code only. Where the decision
//!   would serve one before advice without parameters and nothing else (an
//!   advice on every execution), the decision and the advice call are one
//!   call of a dispatch method of the bypass class ([`Dispatch`]), 3 bytes
//!   of bytecode: the inlining budgets of HotSpot count bytes.
//! * **duplicate** (FERRARI's): each woven method holds its woven body and,
//!   after it, its original body, and the check branches to the original
//!   ([`duplicate`]). A method doubles.
//!
//! Guards cost one `iload; ifne` per woven shadow where duplication costs
//! nothing more than the entry check, but a duplicated method is twice as
//! large for HotSpot's inlining heuristics (which count bytecode bytes): on
//! the real workloads guards are faster (bench/README.md), and a third of
//! the code. A method whose execution has around advice is duplicated in
//! both forms: bypassing that advice means running the body, which moved
//! into the proceed method.
//!
//! Every method of the aspect classes runs with the
//! DIB set and restores it when it returns or throws ([`wrap_in_dib`]), so
//! advice, `aspectOf()` and the aspects' static initializers never see woven
//! code.
//!
//! The check lives in a class of `java.lang` ([`bypass_class`]), which the JVM
//! can load from a `--patch-module java.base` directory from the first moment,
//! and which every module can call without more exports.

use major_classfile::opcodes::op;
use major_classfile::rewrite::transform_methods;
use major_classfile::{ClassBuilder, ClassHierarchy, Code, CodeAttr, Handler, Insn, Label};
use major_classfile::{ClassFile, PoolBuilder, Result};

use crate::aspects::annotation_style::INSTANCE_FIELD;

use super::context;

/// `iconst_0`.
const ICONST_0: u8 = 3;
/// `iconst_1`.
const ICONST_1: u8 = 4;
/// `ifne`.
const IFNE: u8 = 154;

/// The class holding the bypass checks (added to `java.base`).
pub const BYPASS: &str = "java/lang/MajorBypass";
/// The static flag of [`BYPASS`] that says the VM has booted (public: set
/// from `jdk.internal.misc.VM`, read by every woven method).
pub const BOOTED: &str = "booted";
/// The JDK's annotation for a field that its compilers may take for a
/// constant once it holds a value other than its default.
const STABLE: &str = "Ljdk/internal/vm/annotation/Stable;";
/// `jdk.internal.misc.VM`, whose `initLevel(int)` marks the end of bootstrap.
pub const VM: &str = "jdk/internal/misc/VM";
/// The DIB field added to `java.lang.Thread` (package-private, synthetic).
pub const DIB_FIELD: &str = "major$dib";
/// `java.lang.Thread`.
pub const THREAD: &str = "java/lang/Thread";

/// `private` `synthetic` `transient`... the access of the DIB field:
/// package-private and synthetic.
pub const DIB_ACCESS: u16 = 0x1000;

/// Classes never woven in full-coverage mode: what the bypass check itself
/// runs (`VM.isBooted`, the check's class), and `java.lang.Object`, whose
/// constructor HotSpot treats specially (inserted code there crashes it) and
/// whose `finalize` must stay empty.
pub fn never_woven(class: &str) -> bool {
    matches!(class, BYPASS | VM | "java/lang/Object")
}

/// The bypass class (`java.lang.MajorBypass`):
///
/// ```java
/// @Stable public static boolean booted;   // set by VM.initLevel (hook_boot)
/// static boolean active() {   // after booted: true runs the original code
///     Thread t = Thread.currentThread();
///     return t == null || t.major$dib;
/// }
/// static boolean enter() { Thread t = currentThread(); boolean p = t.major$dib; t.major$dib = true; return p; }
/// static void restore(boolean p) { Thread.currentThread().major$dib = p; }
/// static boolean bypassed() { return !booted || active(); }   // inlined
/// static void <dispatch>() { ... }   // one per `Dispatch`
/// ```
///
/// `booted` is deliberately not volatile. It changes once, from false to
/// true, in the thread that boots the VM; a thread started later sees it
/// (`Thread.start` orders it), and a thread already running sees it at its
/// next synchronization at the latest (the JDK's own threads wait in
/// `Object.wait` or `park`). Volatile, its read in every woven method is a
/// barrier that keeps C2 from moving loads across it: measured on a loop of
/// woven `ArrayList.get`/`size` calls with an empty advice, 3.4 ns per call
/// against 0.52 ns (and 0.54 ns unwoven), because without the barrier C2
/// hoists the bypass checks out of the loop. It is `@Stable`
/// (`jdk.internal.vm.annotation.Stable`, honoured in classes of the boot
/// loader): once true, C1 and C2 fold it to a constant in what they compile
/// after the boot, and the load and branch are gone from every woven entry
/// (the calling-context profiler's session 23 in bench/README.md: within
/// the noise of whole runs).
pub fn bypass_class(
    major_version: u16,
    hierarchy: &dyn ClassHierarchy,
    dispatches: &[Dispatch],
) -> Result<Vec<u8>> {
    bypass_class_with(
        major_version,
        hierarchy,
        Bypasses {
            bib: true,
            dib: true,
        },
        dispatches,
    )
}

/// An advice that woven code calls through a dispatch method of [`BYPASS`]:
/// an instance method of a singleton aspect whose parameters, if any, are
/// all `Object` (the dispatch passes them on). Woven code calls it where the
/// bypass decision serves that call alone (`MethodWeave::fuse_dispatch`, an
/// execution's before advice without parameters), and at the point shadows
/// woven as straight-line code ([`super::straight`]).
///
/// ```java
/// static void NAME(Object a0, ..) {   // in java.lang.MajorBypass
///     if (!booted) return;
///     Thread t = Thread.currentThread();
///     if (t == null || t.major$dib) return;
///     Aspect a = Aspect.major$instance;
///     (a != null ? a : Aspect.aspectOf()).METHOD(a0, ..);
/// }
/// ```
///
/// The parameters are `Object` only: the dispatch lives in `java.base`,
/// whose loader cannot name an application's classes.
///
/// The woven method's entry is then one `invokestatic` (3 bytes) where the
/// decision and the call took 30. HotSpot's inlining budgets count bytecode
/// bytes: C1 inlines no method over 35 bytes (`C1MaxInlineSize`), C2 none
/// over 35 at a call site it does not find hot (`MaxInlineSize`), so with
/// 30 bytes on entry every woven method of more than 5 bytes stopped being
/// inlined there; with 3, most getters and small methods are inlined as
/// before. The dispatch itself (38 bytes) is over C1's budget, on purpose:
/// C1 calls it (measured: inlined into every C1 compilation, with
/// `@ForceInline`, C1 compiled a third as fast and the woven runs were
/// slower than with the 30-byte entry), C2 inlines it (its call site runs
/// on every invocation, so C2 finds it hot), and it is compiled early,
/// being called from everywhere: interpreted woven code makes one call to
/// compiled code per advised execution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatch {
    /// The dispatch method's name in [`BYPASS`] (its descriptor:
    /// [`Dispatch::signature`]).
    pub name: String,
    /// The aspect class (internal name), whose singleton runs the advice.
    pub aspect: String,
    /// The advice method of the aspect.
    pub method: String,
    /// Its descriptor (parameters all `Object`, if any).
    pub descriptor: String,
}

/// The descriptor of a dispatch's parameters.
const OBJECT: &str = "Ljava/lang/Object;";

impl Dispatch {
    /// The dispatch of advice `method` (descriptor `descriptor`) of `aspect`,
    /// if it can have one: parameters, if any, all `Object`.
    pub fn of(aspect: &str, method: &str, descriptor: &str) -> Option<Dispatch> {
        let params = descriptor.strip_prefix('(')?.split(')').next()?;
        let objects = params.len() % OBJECT.len() == 0
            && params
                .as_bytes()
                .chunks(OBJECT.len())
                .all(|p| p == OBJECT.as_bytes());
        objects.then(|| Dispatch {
            name: format!("{}${method}", aspect.replace('/', "$")),
            aspect: aspect.to_string(),
            method: method.to_string(),
            descriptor: descriptor.to_string(),
        })
    }

    /// How many values the dispatch passes on (each an `Object`).
    pub fn arity(&self) -> usize {
        self.params().len() / OBJECT.len()
    }

    /// The dispatch method's descriptor: the advice's parameters, `void`.
    pub fn signature(&self) -> String {
        format!("({})V", self.params())
    }

    /// The parameter part of the advice's descriptor, without parentheses.
    fn params(&self) -> &str {
        let rest = self.descriptor.strip_prefix('(').unwrap_or_default();
        rest.split(')').next().unwrap_or_default()
    }
}

/// The dispatches of the bypass class `class` (as [`bypass_class`] made
/// them), read back from their code: a bypass class with other checks
/// ([`bypass_class_with`]) must keep them, as woven code calls them.
pub fn dispatches_in(class: &[u8]) -> Result<Vec<Dispatch>> {
    let parsed = ClassFile::parse(class)?;
    let mut out = Vec::new();
    for m in &parsed.methods {
        let Some(attr) = m.attribute("Code") else {
            continue;
        };
        let name = parsed.member_name(m)?;
        let code = Code::decode(
            &major_classfile::CodeAttribute::parse(attr, &parsed.pool)?,
            &parsed.pool,
        )?;
        for i in &code.insns {
            if let Insn::Cp {
                op: op::INVOKEVIRTUAL,
                index,
            } = i
            {
                let r = parsed.pool.member_ref(*index)?;
                let d = Dispatch::of(&r.owner, &r.name, &r.descriptor);
                if let Some(d) = d.filter(|d| *d.name == *name) {
                    out.push(d);
                }
            }
        }
    }
    Ok(out)
}

/// Which bypasses [`bypass_class_with`] checks: both in every real weave;
/// tests leave one out to show that it is needed.
#[derive(Debug, Clone, Copy)]
pub struct Bypasses {
    /// Whether woven code runs its original before the VM has booted (and
    /// when there is no current thread). Without it, the class's static
    /// initializer sets [`BOOTED`] at once.
    pub bib: bool,
    /// Whether `active()` answers true while the thread's DIB is set.
    pub dib: bool,
}

/// [`bypass_class`] with only the given bypasses checked.
pub fn bypass_class_with(
    major_version: u16,
    hierarchy: &dyn ClassHierarchy,
    bypasses: Bypasses,
    dispatches: &[Dispatch],
) -> Result<Vec<u8>> {
    let mut b = ClassBuilder::new(major_version, 0x1031, BYPASS, "java/lang/Object")?; // public final synthetic super
    let current = |pool: &mut PoolBuilder<'_>| -> Result<Insn> {
        let m = pool.method_ref(THREAD, "currentThread", "()Ljava/lang/Thread;", false)?;
        Ok(Insn::Cp {
            op: op::INVOKESTATIC,
            index: m,
        })
    };
    // public static synthetic, @Stable, not volatile (see bypass_class)
    b.add_annotated_field(0x1009, BOOTED, "Z", STABLE)?;
    if !bypasses.bib {
        let mut code = Code::empty();
        let booted = b.pool().field_ref(BYPASS, BOOTED, "Z")?;
        code.insns.extend([
            Insn::Simple(ICONST_1),
            Insn::Cp {
                op: op::PUTSTATIC,
                index: booted,
            },
            Insn::Simple(op::RETURN),
        ]);
        b.add_method(0x0008, "<clinit>", "()V", Some(&mut code), hierarchy)?;
    }
    // active()Z
    let mut code = Code::empty();
    {
        let no_thread = code.new_label();
        let pool = b.pool();
        let field = pool.field_ref(THREAD, DIB_FIELD, "Z")?;
        let c = current(pool)?;
        if bypasses.dib {
            code.insns.push(c);
            if bypasses.bib {
                code.insns.extend([
                    Insn::Simple(op::DUP),
                    Insn::Jump {
                        op: op::IFNULL,
                        target: no_thread,
                    },
                ]);
            }
            code.insns.extend([
                Insn::Cp {
                    op: op::GETFIELD,
                    index: field,
                },
                Insn::Simple(op::IRETURN),
            ]);
            if bypasses.bib {
                code.insns.extend([
                    Insn::Label(no_thread),
                    Insn::Simple(op::POP),
                    Insn::Simple(ICONST_1),
                    Insn::Simple(op::IRETURN),
                ]);
            }
        } else {
            code.insns
                .extend([Insn::Simple(ICONST_0), Insn::Simple(op::IRETURN)]);
        }
    }
    b.add_method(0x1009, "active", "()Z", Some(&mut code), hierarchy)?; // public static synthetic
                                                                        // enter()Z and leave()Z: set or clear the flag, return what it was.
    for (name, value) in [("enter", ICONST_1), ("leave", ICONST_0)] {
        let mut code = Code::empty();
        let pool = b.pool();
        let field = pool.field_ref(THREAD, DIB_FIELD, "Z")?;
        let c = current(pool)?;
        code.insns.extend([
            c,
            Insn::Simple(op::DUP),
            Insn::Cp {
                op: op::GETFIELD,
                index: field,
            },
            Insn::Simple(op::SWAP),
            Insn::Simple(value),
            Insn::Cp {
                op: op::PUTFIELD,
                index: field,
            },
            Insn::Simple(op::IRETURN),
        ]);
        b.add_method(0x1009, name, "()Z", Some(&mut code), hierarchy)?;
    }
    // inheritedBy(Thread)Z: the DIB the thread `t`, just constructed, starts
    // with: the creating thread's, once the VM has booted (threads the JDK
    // starts during bootstrap start with it clear); clear for a thread that
    // constructed itself (one the VM attaches).
    let mut code = Code::empty();
    {
        let no = code.new_label();
        let no_thread = code.new_label();
        let pool = b.pool();
        let booted = pool.field_ref(BYPASS, BOOTED, "Z")?;
        let field = pool.field_ref(THREAD, DIB_FIELD, "Z")?;
        let c = current(pool)?;
        code.insns.extend([
            Insn::Cp {
                op: op::GETSTATIC,
                index: booted,
            },
            Insn::Jump {
                op: op::IFEQ,
                target: no,
            },
            c,
            Insn::Simple(op::DUP),
            Insn::Jump {
                op: op::IFNULL,
                target: no_thread,
            },
            Insn::Simple(op::DUP),
            Insn::Local {
                op: op::ALOAD,
                index: 0,
                wide: false,
            },
            Insn::Jump {
                op: 165, // if_acmpeq
                target: no_thread,
            },
            Insn::Cp {
                op: op::GETFIELD,
                index: field,
            },
            Insn::Simple(op::IRETURN),
            Insn::Label(no_thread),
            Insn::Simple(op::POP),
            Insn::Label(no),
            Insn::Simple(ICONST_0),
            Insn::Simple(op::IRETURN),
        ]);
    }
    b.add_method(
        0x1009,
        "inheritedBy",
        "(Ljava/lang/Thread;)Z",
        Some(&mut code),
        hierarchy,
    )?;
    // restore(Z)V
    let mut code = Code::empty();
    {
        let pool = b.pool();
        let field = pool.field_ref(THREAD, DIB_FIELD, "Z")?;
        let c = current(pool)?;
        code.insns.extend([
            c,
            Insn::Local {
                op: op::ILOAD,
                index: 0,
                wide: false,
            },
            Insn::Cp {
                op: op::PUTFIELD,
                index: field,
            },
            Insn::Simple(op::RETURN),
        ]);
    }
    b.add_method(0x1009, "restore", "(Z)V", Some(&mut code), hierarchy)?;
    // bypassed()Z: the whole decision, `!booted || active()`, inlined.
    let mut code = Code::empty();
    {
        let on = code.new_label();
        let booted = b.pool().field_ref(BYPASS, BOOTED, "Z")?;
        code.insns.extend([
            Insn::Cp {
                op: op::GETSTATIC,
                index: booted,
            },
            Insn::Jump {
                op: op::IFEQ,
                target: on,
            },
        ]);
        let mut tail = Vec::new();
        dib_test(&mut code, b.pool(), bypasses, on, &mut tail)?;
        code.insns.extend([
            Insn::Simple(ICONST_0),
            Insn::Simple(op::IRETURN),
            Insn::Label(on),
            Insn::Simple(ICONST_1),
            Insn::Simple(op::IRETURN),
        ]);
        code.insns.extend(tail);
    }
    b.add_method(0x1009, "bypassed", "()Z", Some(&mut code), hierarchy)?;
    for d in dispatches {
        let mut code = dispatch_code(d, b.pool(), bypasses)?;
        b.add_method(0x1009, &d.name, &d.signature(), Some(&mut code), hierarchy)?;
    }
    context::bypass_methods(&mut b, hierarchy)?;
    Ok(b.finish())
}

/// Emits the DIB test of [`bypass_class_with`]'s methods: to `on` when the
/// current thread's DIB is set (or, with the BIB, when there is no current
/// thread yet); falls through otherwise. Nothing without the DIB. The code
/// for a missing thread goes to `out_of_line`, for the end of the method.
fn dib_test(
    code: &mut Code,
    pool: &mut PoolBuilder<'_>,
    bypasses: Bypasses,
    on: Label,
    out_of_line: &mut Vec<Insn>,
) -> Result<()> {
    if !bypasses.dib {
        return Ok(());
    }
    let current = pool.method_ref(THREAD, "currentThread", "()Ljava/lang/Thread;", false)?;
    let field = pool.field_ref(THREAD, DIB_FIELD, "Z")?;
    code.insns.push(Insn::Cp {
        op: op::INVOKESTATIC,
        index: current,
    });
    if bypasses.bib {
        // No current thread: the null popped out of line, then to `on`.
        let no_thread = code.new_label();
        code.insns.extend([
            Insn::Simple(op::DUP),
            Insn::Jump {
                op: op::IFNULL,
                target: no_thread,
            },
            Insn::Cp {
                op: op::GETFIELD,
                index: field,
            },
            Insn::Jump {
                op: IFNE,
                target: on,
            },
        ]);
        out_of_line.extend([
            Insn::Label(no_thread),
            Insn::Simple(op::POP),
            Insn::Jump {
                op: op::GOTO,
                target: on,
            },
        ]);
    } else {
        code.insns.extend([
            Insn::Cp {
                op: op::GETFIELD,
                index: field,
            },
            Insn::Jump {
                op: IFNE,
                target: on,
            },
        ]);
    }
    Ok(())
}

/// The body of dispatch `d` (see [`Dispatch`]).
fn dispatch_code(d: &Dispatch, pool: &mut PoolBuilder<'_>, bypasses: Bypasses) -> Result<Code> {
    let mut code = Code::empty();
    let off = code.new_label();
    let bound = code.new_label();
    let singleton = format!("L{};", d.aspect);
    let booted = pool.field_ref(BYPASS, BOOTED, "Z")?;
    code.insns.extend([
        Insn::Cp {
            op: op::GETSTATIC,
            index: booted,
        },
        Insn::Jump {
            op: op::IFEQ,
            target: off,
        },
    ]);
    let mut tail = Vec::new();
    dib_test(&mut code, pool, bypasses, off, &mut tail)?;
    let instance = pool.field_ref(&d.aspect, INSTANCE_FIELD, &singleton)?;
    let aspect_of = pool.method_ref(&d.aspect, "aspectOf", &format!("(){singleton}"), false)?;
    let advice = pool.method_ref(&d.aspect, &d.method, &d.descriptor, false)?;
    code.insns.extend([
        Insn::Cp {
            op: op::GETSTATIC,
            index: instance,
        },
        Insn::Simple(op::DUP),
        Insn::Jump {
            op: op::IFNONNULL,
            target: bound,
        },
        Insn::Simple(op::POP),
        Insn::Cp {
            op: op::INVOKESTATIC,
            index: aspect_of,
        },
        Insn::Label(bound),
    ]);
    code.insns
        .extend((0..d.arity()).map(|k| super::emit::load(OBJECT, k as u16)));
    code.insns.push(Insn::Cp {
        op: op::INVOKEVIRTUAL,
        index: advice,
    });
    let ret = d.descriptor.rsplit(')').next().unwrap_or("V");
    if ret != "V" {
        code.insns.push(super::emit::pop(ret));
    }
    code.insns
        .extend([Insn::Label(off), Insn::Simple(op::RETURN)]);
    code.insns.extend(tail);
    Ok(code)
}

/// Whether a constructor calls `Object.<init>` (in `java.lang.Thread`: the
/// constructors that do not delegate with `this(..)`).
pub fn calls_object_init(code: &Code, pool: &mut PoolBuilder<'_>) -> Result<bool> {
    for insn in &code.insns {
        if let Insn::Cp {
            op: op::INVOKESPECIAL,
            index,
        } = insn
        {
            let r = pool.member_ref(*index)?;
            if r.owner == "java/lang/Object" && r.name == "<init>" {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// In a constructor of `java.lang.Thread` that calls `Object.<init>` (its
/// final code, woven): `this.major$dib = true` first, and
/// `this.major$dib = MajorBypass.inheritedBy(this)` before every return.
/// While a thread's own `Thread` object is being constructed on it (a
/// thread the VM attaches: the main thread, `DestroyJavaVM`, threads that
/// native code attaches), every bypass is on, as when there is no current
/// thread yet: advice would find the thread's state (its thread-locals)
/// reset by the rest of the constructor. Once constructed, a thread starts
/// with the DIB of the thread that created it, so a thread created while
/// the DIB is set (by advice, an aspect's initializer) runs with it set.
pub fn mark_construction(code: &mut Code, pool: &mut PoolBuilder<'_>) -> Result<()> {
    let inherited = pool.method_ref(BYPASS, "inheritedBy", "(Ljava/lang/Thread;)Z", false)?;
    let field = pool.field_ref(THREAD, DIB_FIELD, "Z")?;
    let this = Insn::Local {
        op: op::ALOAD,
        index: 0,
        wide: false,
    };
    let put = Insn::Cp {
        op: op::PUTFIELD,
        index: field,
    };
    let mut insns = Vec::with_capacity(code.insns.len() + 8);
    // A field of its own class may be set before the super constructor runs.
    insns.extend([this.clone(), Insn::Simple(ICONST_1), put.clone()]);
    for insn in code.insns.drain(..) {
        if insn == Insn::Simple(op::RETURN) {
            insns.extend([
                this.clone(),
                this.clone(),
                Insn::Cp {
                    op: op::INVOKESTATIC,
                    index: inherited,
                },
                put.clone(),
            ]);
        }
        insns.push(insn);
    }
    code.insns = insns;
    Ok(())
}

/// Emits `MajorBypass.enter()` storing the previous DIB in local `prev`.
pub fn enter(prev: u16, pool: &mut PoolBuilder<'_>, out: &mut Vec<Insn>) -> Result<()> {
    let m = pool.method_ref(BYPASS, "enter", "()Z", false)?;
    out.push(Insn::Cp {
        op: op::INVOKESTATIC,
        index: m,
    });
    out.push(Insn::Local {
        op: op::ISTORE,
        index: prev,
        wide: prev > 255,
    });
    Ok(())
}

/// Emits `MajorBypass.restore(prev)` (the stack below is left alone).
pub fn restore(prev: u16, pool: &mut PoolBuilder<'_>, out: &mut Vec<Insn>) -> Result<()> {
    let m = pool.method_ref(BYPASS, "restore", "(Z)V", false)?;
    out.push(Insn::Local {
        op: op::ILOAD,
        index: prev,
        wide: prev > 255,
    });
    out.push(Insn::Cp {
        op: op::INVOKESTATIC,
        index: m,
    });
    Ok(())
}

/// How a woven method bypasses its advice when a bypass is on (see the
/// module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum BypassForm {
    /// One decision on entry, kept in a local; each woven shadow tests it
    /// and runs either its woven code or its original instruction
    /// ([`decide`], [`guard`]). A method whose execution has around advice
    /// is duplicated instead: bypassing that advice means running the body
    /// that moved into its proceed method.
    #[default]
    Guards,
    /// FERRARI's duplication: the woven body, then the original body, and a
    /// branch on entry ([`duplicate`]).
    Duplicate,
}

/// Emits, at a method's entry, the bypass decision into the int local
/// `local`: 1 while a bypass is on (the VM has not booted, or the DIB is
/// set), 0 when advice runs: `MajorBypass.bypassed()`, 4 or 5 bytes of the
/// method's inlining budget (the check inline took 12).
pub fn decide(local: u16, pool: &mut PoolBuilder<'_>, out: &mut Vec<Insn>) -> Result<()> {
    let bypassed = pool.method_ref(BYPASS, "bypassed", "()Z", false)?;
    out.extend([
        Insn::Cp {
            op: op::INVOKESTATIC,
            index: bypassed,
        },
        Insn::Local {
            op: op::ISTORE,
            index: local,
            wide: local > 255,
        },
    ]);
    Ok(())
}

/// Emits the call of dispatch `d` (see [`Dispatch`]): the bypass decision
/// and the advice call in one.
pub fn call_dispatch(d: &Dispatch, pool: &mut PoolBuilder<'_>, out: &mut Vec<Insn>) -> Result<()> {
    let m = pool.method_ref(BYPASS, &d.name, &d.signature(), false)?;
    out.push(Insn::Cp {
        op: op::INVOKESTATIC,
        index: m,
    });
    Ok(())
}

/// Emits the test of a guard: to `bypassed` when the decision in `local`
/// ([`decide`]) says a bypass is on.
pub fn guard(local: u16, bypassed: Label, out: &mut Vec<Insn>) {
    out.push(Insn::Local {
        op: op::ILOAD,
        index: local,
        wide: local > 255,
    });
    out.push(Insn::Jump {
        op: IFNE,
        target: bypassed,
    });
}

/// Replaces the woven body `woven` of a method by: the bypass check, the woven
/// body, then `original` (the method as it was, with labels of its own), which
/// the check branches to. The caller recomputes the frames.
pub fn duplicate(woven: &mut Code, original: &Code, pool: &mut PoolBuilder<'_>) -> Result<()> {
    let map: Vec<Label> = (0..original.label_count())
        .map(|_| woven.new_label())
        .collect();
    let m = |l: Label| map[l.0 as usize];
    let to_original = woven.new_label();
    let booted = pool.field_ref(BYPASS, BOOTED, "Z")?;
    let active = pool.method_ref(BYPASS, "active", "()Z", false)?;
    let mut insns = Vec::with_capacity(woven.insns.len() + original.insns.len() + 5);
    insns.push(Insn::Cp {
        op: op::GETSTATIC,
        index: booted,
    });
    insns.push(Insn::Jump {
        op: op::IFEQ,
        target: to_original,
    });
    insns.push(Insn::Cp {
        op: op::INVOKESTATIC,
        index: active,
    });
    insns.push(Insn::Jump {
        op: IFNE,
        target: to_original,
    });
    insns.append(&mut woven.insns);
    insns.push(Insn::Label(to_original));
    insns.extend(original.insns.iter().map(|i| remap_labels(i, &m)));
    woven.insns = insns;
    woven
        .handlers
        .extend(original.handlers.iter().map(|h| Handler {
            start: m(h.start),
            end: m(h.end),
            handler: m(h.handler),
            catch_type: h.catch_type,
        }));
    // The original copy keeps its line numbers and local variable names;
    // its type annotations are the woven copy's already.
    for a in &original.attributes {
        match a {
            CodeAttr::LineNumbers { entries, .. } => {
                let copy: Vec<(Label, u16)> = entries.iter().map(|(l, n)| (m(*l), *n)).collect();
                match woven
                    .attributes
                    .iter_mut()
                    .find(|a| matches!(a, CodeAttr::LineNumbers { .. }))
                {
                    Some(CodeAttr::LineNumbers { entries, .. }) => entries.extend(copy),
                    _ => woven.attributes.push(CodeAttr::LineNumbers {
                        name_index: match a {
                            CodeAttr::LineNumbers { name_index, .. } => *name_index,
                            _ => unreachable!(),
                        },
                        entries: copy,
                    }),
                }
            }
            CodeAttr::LocalVariables {
                types,
                entries,
                name_index,
            } => {
                let copy: Vec<_> = entries
                    .iter()
                    .map(|v| major_classfile::code::LocalVariable {
                        start: m(v.start),
                        end: m(v.end),
                        ..*v
                    })
                    .collect();
                match woven
                    .attributes
                    .iter_mut()
                    .find(|a| matches!(a, CodeAttr::LocalVariables { types: t, .. } if t == types))
                {
                    Some(CodeAttr::LocalVariables { entries, .. }) => entries.extend(copy),
                    _ => woven.attributes.push(CodeAttr::LocalVariables {
                        name_index: *name_index,
                        types: *types,
                        entries: copy,
                    }),
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// `jdk.internal.misc.VM` with the end of bootstrap hooked: before every
/// return of `initLevel(int)`,
/// `if (VM.isBooted() && !CDS.isDumpingArchive()) MajorBypass.booted = true;`
/// — from then on woven code checks the DIB and runs advice. A JVM that
/// dumps a class-data-sharing archive runs no advice at all, so that no
/// aspect state is archived. An error if the
/// class has no `initLevel(I)V` with code (a JDK this weaver does not know).
pub fn hook_boot(bytes: &[u8], hierarchy: &dyn ClassHierarchy) -> Result<Vec<u8>> {
    let (class, hooked) = transform_methods(
        bytes,
        hierarchy,
        |name, desc| name == "initLevel" && desc == "(I)V",
        |_, code, pool| {
            let is_booted = pool.method_ref(VM, "isBooted", "()Z", false)?;
            let dumping =
                pool.method_ref("jdk/internal/misc/CDS", "isDumpingArchive", "()Z", false)?;
            let booted = pool.field_ref(BYPASS, BOOTED, "Z")?;
            let mut insns = Vec::with_capacity(code.insns.len() + 8);
            for insn in std::mem::take(&mut code.insns) {
                if matches!(insn, Insn::Simple(op::RETURN)) {
                    let skip = code.new_label();
                    insns.extend([
                        Insn::Cp {
                            op: op::INVOKESTATIC,
                            index: is_booted,
                        },
                        Insn::Jump {
                            op: op::IFEQ,
                            target: skip,
                        },
                        Insn::Cp {
                            op: op::INVOKESTATIC,
                            index: dumping,
                        },
                        Insn::Jump {
                            op: IFNE,
                            target: skip,
                        },
                        Insn::Simple(ICONST_1),
                        Insn::Cp {
                            op: op::PUTSTATIC,
                            index: booted,
                        },
                        Insn::Label(skip),
                    ]);
                }
                insns.push(insn);
            }
            code.insns = insns;
            Ok(())
        },
    )?;
    if hooked == 0 {
        return Err(major_classfile::Error::new(
            major_classfile::ErrorKind::Unsupported,
            None,
            format!(
                "{VM} has no initLevel(int) to hook the end of bootstrap into: \
                 this JDK's class library cannot be woven"
            ),
        ));
    }
    Ok(class)
}

pub(super) fn remap_labels(i: &Insn, m: &impl Fn(Label) -> Label) -> Insn {
    match i {
        Insn::Label(l) => Insn::Label(m(*l)),
        Insn::Jump { op, target } => Insn::Jump {
            op: *op,
            target: m(*target),
        },
        Insn::TableSwitch {
            default,
            low,
            targets,
        } => Insn::TableSwitch {
            default: m(*default),
            low: *low,
            targets: targets.iter().map(|l| m(*l)).collect(),
        },
        Insn::LookupSwitch { default, pairs } => Insn::LookupSwitch {
            default: m(*default),
            pairs: pairs.iter().map(|(k, l)| (*k, m(*l))).collect(),
        },
        other => other.clone(),
    }
}

/// Makes a method of an aspect class run with the DIB set: `enter()` on
/// entry (the previous value in a new local), `restore(previous)` before
/// every return and in a catch-all handler that rethrows. Constructors are
/// left alone (the aspect's singleton is made inside its wrapped static
/// initializer).
pub fn wrap_in_dib(code: &mut Code, pool: &mut PoolBuilder<'_>) -> Result<()> {
    wrap(code, "enter", None, pool)
}

/// Makes a proceed method (the join point, called from around advice, which
/// runs with the DIB set) run with the DIB clear, and restore it when it
/// returns or throws: the join point's own code is woven code.
pub fn wrap_clear_dib(code: &mut Code, pool: &mut PoolBuilder<'_>) -> Result<()> {
    wrap(code, "leave", None, pool)
}

/// The first local slot no instruction of `code` uses (at least `max_locals`).
fn free_local(code: &Code) -> u16 {
    let mut next = code.max_locals;
    for i in &code.insns {
        let end = match i {
            Insn::Local { op: o, index, .. } => {
                let wide = matches!(o, 22 | 24 | 55 | 57); // lload dload lstore dstore
                index + if wide { 2 } else { 1 }
            }
            Insn::Iinc { index, .. } => index + 1,
            Insn::Simple(o @ 26..=45) => {
                // xload_n
                let n = ((o - 26) % 4) as u16;
                let wide = matches!((o - 26) / 4, 1 | 3);
                n + if wide { 2 } else { 1 }
            }
            Insn::Simple(o @ 59..=78) => {
                // xstore_n
                let n = ((o - 59) % 4) as u16;
                let wide = matches!((o - 59) / 4, 1 | 3);
                n + if wide { 2 } else { 1 }
            }
            _ => 0,
        };
        next = next.max(end);
    }
    next
}

/// Wraps `code` in `prev = MajorBypass.<set>(); try { code } finally {
/// MajorBypass.restore(prev); }`.
/// With `failing` (a static initializer's class name, dotted), the handler
/// first tells, on `System.err` and with the DIB still set, that the class
/// failed to initialize and why: the JVM reports the cause only at the first
/// join point that needs the class, later ones just fail.
fn wrap(
    code: &mut Code,
    set: &str,
    failing: Option<&str>,
    pool: &mut PoolBuilder<'_>,
) -> Result<()> {
    let enter = pool.method_ref(BYPASS, set, "()Z", false)?;
    let restore = pool.method_ref(BYPASS, "restore", "(Z)V", false)?;
    let prev = free_local(code);
    let thrown = prev + 1;
    let (start, end, handler) = (code.new_label(), code.new_label(), code.new_label());
    let load_prev = Insn::Local {
        op: op::ILOAD,
        index: prev,
        wide: prev > 255,
    };
    let call_restore = Insn::Cp {
        op: op::INVOKESTATIC,
        index: restore,
    };
    let mut insns = Vec::with_capacity(code.insns.len() + 16);
    insns.push(Insn::Cp {
        op: op::INVOKESTATIC,
        index: enter,
    });
    insns.push(Insn::Local {
        op: op::ISTORE,
        index: prev,
        wide: prev > 255,
    });
    insns.push(Insn::Label(start));
    for i in code.insns.drain(..) {
        let is_return = matches!(i, Insn::Simple(o) if (op::IRETURN..=op::RETURN).contains(&o));
        if is_return {
            insns.push(load_prev.clone());
            insns.push(call_restore.clone());
        }
        insns.push(i);
    }
    insns.push(Insn::Label(end));
    insns.push(Insn::Label(handler));
    insns.push(Insn::Local {
        op: op::ASTORE,
        index: thrown,
        wide: thrown > 255,
    });
    if let Some(class) = failing {
        let err = pool.field_ref("java/lang/System", "err", "Ljava/io/PrintStream;")?;
        let print = pool.method_ref(
            "java/io/PrintStream",
            "print",
            "(Ljava/lang/String;)V",
            false,
        )?;
        let println = pool.method_ref(
            "java/io/PrintStream",
            "println",
            "(Ljava/lang/Object;)V",
            false,
        )?;
        let text = pool.string(&format!(
            "major: {class} failed to initialize; advice that needs it cannot run: "
        ))?;
        insns.extend([
            Insn::Cp {
                op: op::GETSTATIC,
                index: err,
            },
            Insn::Ldc {
                index: text,
                wide: text > 255,
            },
            Insn::Cp {
                op: op::INVOKEVIRTUAL,
                index: print,
            },
            Insn::Cp {
                op: op::GETSTATIC,
                index: err,
            },
            Insn::Local {
                op: op::ALOAD,
                index: thrown,
                wide: thrown > 255,
            },
            Insn::Cp {
                op: op::INVOKEVIRTUAL,
                index: println,
            },
        ]);
    }
    insns.push(load_prev);
    insns.push(call_restore);
    insns.push(Insn::Local {
        op: op::ALOAD,
        index: thrown,
        wide: thrown > 255,
    });
    insns.push(Insn::Simple(op::ATHROW));
    code.insns = insns;
    code.handlers.push(Handler {
        start,
        end,
        handler,
        catch_type: 0,
    });
    code.max_locals = thrown + 1;
    Ok(())
}

/// An aspect class with every method but its constructors running with the
/// DIB set ([`wrap_in_dib`]), frames recomputed; its static initializer,
/// if it fails, says so on `System.err` first.
pub fn wrap_class_in_dib(bytes: &[u8], hierarchy: &dyn ClassHierarchy) -> Result<Vec<u8>> {
    let parsed = ClassFile::parse(bytes)?;
    let internal = parsed.name()?.into_owned();
    let class_name = internal.replace('/', ".");
    // An aspect's singleton: `aspectOf()` returns it without the DIB (only
    // its failure, which constructs an exception, needs it).
    let mut instance = None;
    for f in &parsed.fields {
        if f.access & ACC_STATIC_FIELD != 0 && parsed.member_name(f)? == INSTANCE_FIELD {
            instance = Some(parsed.member_descriptor(f)?.into_owned());
        }
    }
    let (class, _) = transform_methods(
        bytes,
        hierarchy,
        |name, _| name != "<init>",
        |name, code, pool| {
            if name != "<clinit>"
                && (context::runs_without_dib(&internal, name)
                    || runs_no_other_code(code, &internal, pool)?)
            {
                // Nothing it does can reach woven code: no DIB needed
                // (an empty advice, a counter in a static field).
                return Ok(());
            }
            let failing = (name == "<clinit>").then_some(class_name.as_str());
            wrap(code, "enter", failing, pool)?;
            if let (Some(desc), "aspectOf") = (&instance, name) {
                let field = pool.field_ref(&internal, INSTANCE_FIELD, desc)?;
                let slow = code.new_label();
                code.insns.splice(
                    0..0,
                    [
                        Insn::Cp {
                            op: op::GETSTATIC,
                            index: field,
                        },
                        Insn::Simple(op::DUP),
                        Insn::Jump {
                            op: op::IFNULL,
                            target: slow,
                        },
                        Insn::Simple(176), // areturn
                        Insn::Label(slow),
                        Insn::Simple(op::POP),
                    ],
                );
            }
            Ok(())
        },
    )?;
    Ok(class)
}

/// `ACC_STATIC` of a field.
const ACC_STATIC_FIELD: u16 = 0x0008;

/// Whether a method body can run no code but its own: no call, no class
/// initialization or loading (static fields of its own class only, no
/// `new`, no type test), and no exception the JVM would construct (no
/// division, array access, field of another object, monitor or `athrow`,
/// whose exception constructors are woven code). Such a method reaches no
/// woven code, so the DIB would change nothing.
fn runs_no_other_code(code: &Code, own_class: &str, pool: &mut PoolBuilder<'_>) -> Result<bool> {
    for insn in &code.insns {
        let ok = match insn {
            Insn::Label(_)
            | Insn::Local { .. }
            | Insn::Iinc { .. }
            | Insn::Push { .. }
            | Insn::Jump { .. }
            | Insn::TableSwitch { .. }
            | Insn::LookupSwitch { .. } => true,
            // Array loads and stores, integer division and remainder,
            // arraylength, athrow, monitors: all may throw.
            Insn::Simple(o) => !matches!(
                o,
                46..=53 | 79..=86 | 108 | 109 | 112 | 113 | 190 | 191 | 194 | 195
            ),
            Insn::Cp { op, index } if matches!(*op, op::GETSTATIC | op::PUTSTATIC) => {
                pool.member_ref(*index)?.owner == own_class
            }
            _ => false,
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::ClassIndex;

    /// `booted` goes from false to true once: `@Stable` lets the JIT
    /// compilers fold it in what they compile after the boot.
    #[test]
    fn the_boot_flag_is_stable() {
        let index = ClassIndex::new();
        let bytes = bypass_class(61, &index, &[]).unwrap();
        let c = ClassFile::parse(&bytes).unwrap();
        let booted = c
            .fields
            .iter()
            .find(|f| c.member_name(f).unwrap() == BOOTED)
            .expect("the boot flag");
        let types =
            major_classfile::annotations::annotation_types(&booted.attributes, &c.pool).unwrap();
        assert_eq!(types, ["jdk/internal/vm/annotation/Stable"]);
    }

    /// An aspect-like class with methods of each kind, wrapped in the DIB:
    /// which of them call `MajorBypass.enter`.
    #[test]
    fn only_methods_that_may_reach_other_code_set_the_dib() {
        let index = ClassIndex::new();
        let mut b = ClassBuilder::new(61, 0x0021, "p/A", "java/lang/Object").unwrap();
        b.add_field(0x0008, "count", "I").unwrap();
        let count = b.pool().field_ref("p/A", "count", "I").unwrap();
        let other = b.pool().field_ref("p/B", "count", "I").unwrap();
        let call = b
            .pool()
            .method_ref("java/lang/Thread", "onSpinWait", "()V", false)
            .unwrap();
        let bodies: Vec<(&str, Vec<Insn>)> = vec![
            ("empty", vec![Insn::Simple(op::RETURN)]),
            (
                "counter",
                vec![
                    Insn::Cp {
                        op: op::GETSTATIC,
                        index: count,
                    },
                    Insn::Simple(ICONST_1),
                    Insn::Simple(96), // iadd
                    Insn::Cp {
                        op: op::PUTSTATIC,
                        index: count,
                    },
                    Insn::Simple(op::RETURN),
                ],
            ),
            (
                "calls",
                vec![
                    Insn::Cp {
                        op: op::INVOKESTATIC,
                        index: call,
                    },
                    Insn::Simple(op::RETURN),
                ],
            ),
            (
                "otherStatic",
                vec![
                    Insn::Cp {
                        op: op::GETSTATIC,
                        index: other,
                    },
                    Insn::Simple(op::POP),
                    Insn::Simple(op::RETURN),
                ],
            ),
            (
                "divides",
                vec![
                    Insn::Simple(ICONST_1),
                    Insn::Cp {
                        op: op::GETSTATIC,
                        index: count,
                    },
                    Insn::Simple(108), // idiv
                    Insn::Simple(op::POP),
                    Insn::Simple(op::RETURN),
                ],
            ),
        ];
        for (name, insns) in &bodies {
            let mut code = Code::empty();
            code.insns = insns.clone();
            b.add_method(0x0009, name, "()V", Some(&mut code), &index)
                .unwrap();
        }
        let wrapped = wrap_class_in_dib(&b.finish(), &index).unwrap();
        let class = ClassFile::parse(&wrapped).unwrap();
        let mut sets = Vec::new();
        for m in &class.methods {
            let parsed =
                major_classfile::CodeAttribute::parse(m.attribute("Code").unwrap(), &class.pool)
                    .unwrap();
            let code = Code::decode(&parsed, &class.pool).unwrap();
            let enters = code.insns.iter().any(|i| match i {
                Insn::Cp { op: o, index } if *o == op::INVOKESTATIC => class
                    .pool
                    .member_ref(*index)
                    .is_ok_and(|r| r.owner == BYPASS && r.name == "enter"),
                _ => false,
            });
            if enters {
                sets.push(class.member_name(m).unwrap().into_owned());
            }
        }
        assert_eq!(sets, ["calls", "otherStatic", "divides"]);
    }
}
