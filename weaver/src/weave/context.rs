//! Calling context: the per-thread calling-context tree behind
//! `thisCallingContext` (major's extension of the aspect language).
//!
//! As soon as one advice of a weave uses `thisCallingContext`, every method
//! body the weave changes keeps the tree (see `major.runtime.CallingContext`):
//!
//! ```text
//!   node = enterContext("p.C.m(int)")      on entry (null while a bypass is on;
//!                                          every method below does nothing then)
//!   exitContext(node)                      before each return: node.root.current
//!                                          = node.up (a call of 4 bytes that every
//!                                          compiler inlines, not the 15 inline:
//!                                          a getter must stay under HotSpot's
//!                                          35-byte limit for inlining)
//!   throw exitThrown(e, node)              in a handler of the whole body (noting
//!                                          where `e` was thrown; 5 bytes)
//!   restoreContext(node)                   at the entry of each exception handler
//!   enterNative(node, "p.D.n()") / restoreContext(node)
//!                                          around each call of a method without a
//!                                          woven body: native methods and
//!                                          java.lang.Object's (never woven);
//!                                          enterNativeOn(receiver, node, ..) for an
//!                                          instance method, whose frame a null
//!                                          receiver does not enter (the call
//!                                          throws in the caller's frame)
//! ```
//!
//! A quiet body (see [`super::quiet`]: nothing can be entered below it) gets
//! only `countContext("p.C.m()", hash)` on entry: its node is counted, never
//! made current.
//!
//! The frame is an interned string constant, so a child is found by identity.
//! Exits set the parent current rather than undoing the entry, and handlers
//! restore their own frame's node, so a frame that ends without its exit (an
//! exception thrown before a constructor's `super(..)` returns, a native method
//! that throws) never leaves a wrong node current beyond the next woven frame.
//!
//! A call of an overridable method without a woven body (`Object.hashCode()`,
//! `Object.toString()`) enters its frame only when the receiver's class does
//! not override it (`enterDispatched`, cached per context and class): an
//! override has a woven body that enters its own frame.
//!
//! Each thread's tree has a root that holds the current node's key (a
//! number: storing a reference into an old object on every entry and exit
//! takes G1's post-write barrier slow path): where the node's child table
//! is in the root's arena of (frame, child) pairs, so that an entry reads
//! the pair and the child only (ARCHITECTURE.md, "Calling context"). The
//! methods that take a node are `major.runtime.CallingContext`'s; the two
//! that find the thread's root — `enterContext` and `currentContext` (what
//! advice reads) — are `java.lang.MajorBypass`'s with the JDK woven (the root
//! in a field of `java.lang.Thread`, [`bypass_methods`]) and
//! `CallingContext`'s over a `ThreadLocal` in an application weave.

use major_classfile::opcodes::op;
use major_classfile::{
    ClassBuilder, ClassHierarchy, Code, Handler, Insn, Label, PoolBuilder, Result,
};

use crate::index::ClassIndex;

use super::bypass;
use super::layering::is_intrinsic;

/// The runtime class of the tree's nodes.
pub const CONTEXT: &str = "major/runtime/CallingContext";
/// Its descriptor.
const CONTEXT_DESC: &str = "Lmajor/runtime/CallingContext;";
/// The field of `java.lang.Thread` holding the thread's tree, its root (full coverage).
pub const THREAD_FIELD: &str = "major$cct";
/// Its descriptor.
pub const THREAD_FIELD_DESC: &str = CONTEXT_DESC;

/// The class whose static methods keep the current node: `java.lang.MajorBypass`
/// with the JDK woven, else `major.runtime.CallingContext`.
pub fn owner(full_coverage: bool) -> &'static str {
    if full_coverage {
        bypass::BYPASS
    } else {
        CONTEXT
    }
}

/// The frame of a method: `java.util.HashMap.hash(java.lang.Object)` —
/// binary class name, method name, parameter types as in Java source; the
/// names the profiles and the JVMTI oracle use too.
pub use crate::profile::frame_name;

/// The hash the runtime's child tables use for `frame` (FNV-1a of its
/// UTF-8 bytes): computed here, passed with the frame.
pub fn frame_hash(frame: &str) -> i32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in frame.bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    // Fold the high bits in: tables index with the low ones.
    (h ^ (h >> 16)) as i32
}

/// Pushes the current node (`thisCallingContext`).
pub fn push_current(
    full_coverage: bool,
    pool: &mut PoolBuilder<'_>,
    out: &mut Vec<Insn>,
) -> Result<()> {
    let m = pool.method_ref(
        owner(full_coverage),
        "currentContext",
        &format!("(){CONTEXT_DESC}"),
        false,
    )?;
    out.push(Insn::Cp {
        op: op::INVOKESTATIC,
        index: m,
    });
    Ok(())
}

/// A call to a method without a woven body, as the tree sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Callee {
    /// The call runs exactly this frame.
    Exact(String),
    /// The call runs this frame unless the receiver's class overrides it (a
    /// method without parameters: the receiver is on top of the stack).
    Dispatched(String),
}

/// What a call instruction runs, when it is a method without a woven body:
/// a native method, one of `java.lang.Object`'s, or an intrinsic candidate
/// (whose body HotSpot replaces when it compiles the call: its frame is
/// entered at the call, and its body keeps none). `None` for a method with
/// a woven body (its execution enters its own frame), for what cannot be
/// resolved, for signature-polymorphic methods (which have no frame of their
/// own) and for overridable methods with parameters (not tracked).
pub fn callee(
    index: &ClassIndex,
    opcode: u8,
    owner: &str,
    name: &str,
    desc: &str,
) -> Option<Callee> {
    if owner.starts_with('[') {
        // An array's clone() is Object's.
        return (name == "clone" && desc.starts_with("()"))
            .then(|| Callee::Exact(frame_name("java/lang/Object", "clone", "()")));
    }
    let mut class = owner.to_string();
    let (declaring, access, class_access, intrinsic) = loop {
        let d = index.details(&class)?;
        if let Some(m) = d.method(name, desc) {
            break (class, m.access, d.access, is_intrinsic(&m.annotations));
        }
        class = d.super_name.clone()?;
    };
    const NATIVE: u16 = 0x0100;
    const VARARGS: u16 = 0x0080;
    let unwoven = access & NATIVE != 0 || intrinsic || bypass::never_woven(&declaring);
    if !unwoven || access & 0x0400 != 0 {
        return None;
    }
    if access & NATIVE != 0
        && access & VARARGS != 0
        && matches!(
            declaring.as_str(),
            "java/lang/invoke/MethodHandle" | "java/lang/invoke/VarHandle"
        )
    {
        return None;
    }
    let frame = frame_name(&declaring, name, desc);
    let exact = matches!(opcode, op::INVOKESTATIC | op::INVOKESPECIAL)
        || access & (0x0008 | 0x0002 | 0x0010) != 0 // static, private, final
        || class_access & 0x0010 != 0; // final class
    if exact {
        Some(Callee::Exact(frame))
    } else if desc.starts_with("()") {
        Some(Callee::Dispatched(frame))
    } else {
        None
    }
}

/// Where [`wrap`] puts things in a woven body.
pub struct Wrap<'a> {
    /// The method's frame.
    pub frame: &'a str,
    /// The owner of the maintenance methods ([`owner`]).
    pub owner: &'a str,
    /// Where the handler that leaves the frame on an exception begins: a
    /// constructor's body after its `super(..)`/`this(..)` call (`this` is
    /// uninitialized before it), else right after the entry (`None`).
    /// `Some(None)`: no such handler (a constructor without that call).
    pub handler_from: Option<Option<Label>>,
    /// A free local for the node.
    pub node: u16,
    /// The class as a quiet body may touch it: a body that is quiet (see
    /// [`quiet`](super::quiet)) is only counted, never made current. `None`:
    /// always entered.
    pub quiet: Option<&'a super::quiet::Scope<'a>>,
}

/// Keeps the calling-context tree in `code` (see the module doc). Returns
/// the number of calls to methods without a woven body that are tracked.
pub fn wrap(
    code: &mut Code,
    w: &Wrap<'_>,
    index: &ClassIndex,
    pool: &mut PoolBuilder<'_>,
) -> Result<usize> {
    let ctx = CONTEXT_DESC;
    if let Some(scope) = w.quiet {
        if super::quiet::is_quiet(code, pool, scope)? {
            // count(frame, hash): nothing runs below this frame, so it never
            // needs to be current (and no exit undoes anything).
            let mut out = Vec::with_capacity(code.insns.len() + 3);
            entry_call(w, "countContext", "V", pool, &mut out)?;
            out.append(&mut code.insns);
            code.insns = out;
            return Ok(0);
        }
    }
    let exit = pool.method_ref(CONTEXT, "exitContext", &format!("({ctx})V"), false)?;
    let restore = pool.method_ref(CONTEXT, "restoreContext", &format!("({ctx})V"), false)?;
    let thrown = pool.method_ref(
        CONTEXT,
        "exitThrown",
        &format!("(Ljava/lang/Throwable;{ctx})Ljava/lang/Throwable;"),
        false,
    )?;
    let local = |op: u8, index: u16| Insn::Local {
        op,
        index,
        wide: index > 255,
    };
    let load = local(op::ALOAD, w.node);
    let store = local(op::ASTORE, w.node);
    // Every method takes a null node (a bypass is on) as "do nothing": the
    // woven code stays small (HotSpot inlines small methods: a getter must
    // stay under its 35-byte limit), and needs no bypass decision of its own.
    let call_with_node = |m: u16, out: &mut Vec<Insn>| {
        out.extend([
            load.clone(),
            Insn::Cp {
                op: op::INVOKESTATIC,
                index: m,
            },
        ]);
    };
    let old = std::mem::take(&mut code.insns);
    let restore_points = restore_points(&old, &code.handlers);
    let mut out = Vec::with_capacity(old.len() + old.len() / 4 + 16);
    let mut tracked = 0;
    let start = code.new_label();
    entry_call(w, "enterContext", ctx, pool, &mut out)?;
    out.extend([store, Insn::Label(start)]);
    for insn in old {
        match &insn {
            Insn::Label(l) if restore_points.contains(l) => {
                out.push(insn);
                call_with_node(restore, &mut out);
            }
            Insn::Simple(o) if (op::IRETURN..=op::RETURN).contains(o) => {
                // Leave the frame: node.root.current = node.up
                call_with_node(exit, &mut out);
                out.push(insn);
            }
            Insn::Cp { op: o, index: r }
                if matches!(
                    *o,
                    op::INVOKEVIRTUAL | op::INVOKESPECIAL | op::INVOKESTATIC | op::INVOKEINTERFACE
                ) =>
            {
                let m = pool.member_ref(*r)?;
                let Some(c) = callee(index, *o, &m.owner, &m.name, &m.descriptor) else {
                    out.push(insn);
                    continue;
                };
                tracked += 1;
                // An instance method's receiver may be null: the call then
                // throws in this frame, and its frame must not be entered.
                // The receiver is brought to the top of the stack (the
                // arguments above it kept in locals past the node's).
                let on_receiver = *o != op::INVOKESTATIC && m.name != "<init>";
                let mut reload = Vec::new();
                let (f, name, desc) = match &c {
                    Callee::Exact(f) if on_receiver => {
                        let (params, _) = major_classfile::descriptor::parse_method(&m.descriptor)?;
                        let mut at = w.node + 1;
                        let mut stores = Vec::with_capacity(params.len());
                        for p in &params {
                            stores.push(local(super::emit::store_op(p), at));
                            reload.push(local(super::emit::load_op(p), at));
                            at += super::emit::size(p);
                        }
                        // The last argument is on top: stored first.
                        out.extend(stores.into_iter().rev());
                        out.push(Insn::Simple(op::DUP));
                        (
                            f,
                            "enterNativeOn",
                            format!("(Ljava/lang/Object;{ctx}Ljava/lang/String;I)V"),
                        )
                    }
                    Callee::Exact(f) => (f, "enterNative", format!("({ctx}Ljava/lang/String;I)V")),
                    Callee::Dispatched(f) => {
                        out.push(Insn::Simple(op::DUP));
                        (
                            f,
                            "enterDispatched",
                            format!("(Ljava/lang/Object;{ctx}Ljava/lang/String;I)V"),
                        )
                    }
                };
                let hash = frame_hash(f);
                let f = pool.string(f)?;
                let m = pool.method_ref(CONTEXT, name, &desc, false)?;
                out.extend([
                    load.clone(),
                    Insn::Ldc {
                        index: f,
                        wide: f > 255,
                    },
                ]);
                super::emit::push_int(hash, pool, &mut out)?;
                out.push(Insn::Cp {
                    op: op::INVOKESTATIC,
                    index: m,
                });
                out.append(&mut reload);
                out.push(insn);
                call_with_node(restore, &mut out);
            }
            _ => out.push(insn),
        }
    }
    // Leave the frame on an exception, however deep it comes from.
    if let Some(from) = w.handler_from {
        let from = from.unwrap_or(start);
        let end = code.new_label();
        let h = code.new_label();
        // [e] -> throw exitThrown(e, node)
        out.extend([Insn::Label(end), Insn::Label(h)]);
        call_with_node(thrown, &mut out);
        out.push(Insn::Simple(op::ATHROW));
        code.handlers.push(Handler {
            start: from,
            end,
            handler: h,
            catch_type: 0,
        });
    }
    code.insns = out;
    Ok(tracked)
}

/// Appends `owner.method(frame, hash)` (returning `ret`, a descriptor) for
/// the frame of `w`: the entry of a woven body.
fn entry_call(
    w: &Wrap<'_>,
    method: &str,
    ret: &str,
    pool: &mut PoolBuilder<'_>,
    out: &mut Vec<Insn>,
) -> Result<()> {
    let m = pool.method_ref(
        w.owner,
        method,
        &format!("(Ljava/lang/String;I){ret}"),
        false,
    )?;
    let frame = pool.string(w.frame)?;
    out.push(Insn::Ldc {
        index: frame,
        wide: frame > 255,
    });
    super::emit::push_int(frame_hash(w.frame), pool, out)?;
    out.push(Insn::Cp {
        op: op::INVOKESTATIC,
        index: m,
    });
    Ok(())
}

/// Where the exception handlers of `insns` restore their frame's node: at
/// each handler's entry, unless handlers of its own cover that entry (javac
/// protects the first instructions of a `finally` or `synchronized` handler
/// by the handler itself: `astore`, `aload; monitorexit`) — then right after
/// the end of those ranges. A call there would be covered by its own block,
/// which HotSpot's C1 cannot compile ("error while joining with exception
/// handler"): the method would run interpreted until C2 takes it. (A restore
/// reached by another path too does no harm: it makes the frame's own node
/// current, which it is whenever the frame's code runs.)
fn restore_points(insns: &[Insn], handlers: &[Handler]) -> std::collections::HashSet<Label> {
    if handlers.is_empty() {
        return Default::default();
    }
    // Each label's position counted in instructions (labels at one place are
    // at one position), by label number.
    let mut position = Vec::new();
    let mut at = 0usize;
    for i in insns {
        match i {
            Insn::Label(l) => {
                let n = l.0 as usize;
                if position.len() <= n {
                    position.resize(n + 1, usize::MAX);
                }
                position[n] = at;
            }
            _ => at += 1,
        }
    }
    let pos = |l: &Label| position.get(l.0 as usize).copied().unwrap_or(usize::MAX);
    handlers
        .iter()
        .map(|h| {
            let entry = pos(&h.handler);
            handlers
                .iter()
                .filter(|c| c.handler == h.handler && pos(&c.start) <= entry && entry < pos(&c.end))
                .max_by_key(|c| pos(&c.end))
                .map_or(h.handler, |c| c.end)
        })
        .collect()
}

/// Adds to `java.lang.MajorBypass` the three methods that find the thread's
/// tree in `Thread.major$cct` (see the module doc); the others are
/// `major.runtime.CallingContext`'s in both modes.
pub fn bypass_methods(b: &mut ClassBuilder, hierarchy: &dyn ClassHierarchy) -> Result<()> {
    let c = CONTEXT_DESC;
    const ARETURN: u8 = 176;
    // currentContext()
    let mut code = Code::empty();
    {
        let pool = b.pool();
        let thread = pool.method_ref(
            bypass::THREAD,
            "currentThread",
            "()Ljava/lang/Thread;",
            false,
        )?;
        let field = pool.field_ref(bypass::THREAD, THREAD_FIELD, THREAD_FIELD_DESC)?;
        let current_in = pool.method_ref(CONTEXT, "currentIn", &format!("({c}){c}"), false)?;
        code.insns.extend([
            Insn::Cp {
                op: op::INVOKESTATIC,
                index: thread,
            },
            Insn::Cp {
                op: op::GETFIELD,
                index: field,
            },
            Insn::Cp {
                op: op::INVOKESTATIC,
                index: current_in,
            },
            Insn::Simple(ARETURN),
        ]);
    }
    b.add_method(
        0x1009,
        "currentContext",
        &format!("(){c}"),
        Some(&mut code),
        hierarchy,
    )?;
    // enterContext(String, int) and countContext(String, int).
    add_entry(b, hierarchy, false)?;
    add_entry(b, hierarchy, true)
}

/// Adds `enterContext(String, int)` (returns the node entered, null while a
/// bypass is on: before boot, without a thread, with the DIB set) or, with
/// `count`, `countContext(String, int)` (counts the frame below the current
/// node, which stays current: a quiet body's, see [`super::quiet`]). The
/// thread's root is made on its first frame.
fn add_entry(b: &mut ClassBuilder, hierarchy: &dyn ClassHierarchy, count: bool) -> Result<()> {
    let s = "Ljava/lang/String;";
    let c = CONTEXT_DESC;
    let aload = |i: u16| Insn::Local {
        op: op::ALOAD,
        index: i,
        wide: false,
    };
    let astore = |i: u16| Insn::Local {
        op: op::ASTORE,
        index: i,
        wide: false,
    };
    const ARETURN: u8 = 176;
    // Locals 0 and 1 are the parameters.
    const THREAD_LOCAL: u16 = 2;
    const ROOT_LOCAL: u16 = 3;
    let mut code = Code::empty();
    {
        let none = code.new_label();
        let have = code.new_label();
        let pool = b.pool();
        let thread = pool.method_ref(
            bypass::THREAD,
            "currentThread",
            "()Ljava/lang/Thread;",
            false,
        )?;
        let field = pool.field_ref(bypass::THREAD, THREAD_FIELD, THREAD_FIELD_DESC)?;
        let booted = pool.field_ref(bypass::BYPASS, bypass::BOOTED, "Z")?;
        let dib = pool.field_ref(bypass::THREAD, bypass::DIB_FIELD, "Z")?;
        let new_root = pool.method_ref(CONTEXT, "newRoot", &format!("(){c}"), false)?;
        let (in_root, in_desc) = if count {
            ("countIn", format!("({c}{s}I)V"))
        } else {
            ("enterIn", format!("({c}{s}I){c}"))
        };
        let in_root = pool.method_ref(CONTEXT, in_root, &in_desc, false)?;
        code.insns.extend([
            Insn::Cp {
                op: op::GETSTATIC,
                index: booted,
            },
            Insn::Jump {
                op: op::IFEQ,
                target: none,
            },
            Insn::Cp {
                op: op::INVOKESTATIC,
                index: thread,
            },
            astore(THREAD_LOCAL),
            aload(THREAD_LOCAL),
            Insn::Jump {
                op: op::IFNULL,
                target: none,
            },
            aload(THREAD_LOCAL),
            Insn::Cp {
                op: op::GETFIELD,
                index: dib,
            },
            Insn::Jump {
                op: 154, // ifne
                target: none,
            },
            aload(THREAD_LOCAL),
            Insn::Cp {
                op: op::GETFIELD,
                index: field,
            },
            astore(ROOT_LOCAL),
            aload(ROOT_LOCAL),
            Insn::Jump {
                op: op::IFNONNULL,
                target: have,
            },
            Insn::Cp {
                op: op::INVOKESTATIC,
                index: new_root,
            },
            astore(ROOT_LOCAL),
            aload(THREAD_LOCAL),
            aload(ROOT_LOCAL),
            Insn::Cp {
                op: op::PUTFIELD,
                index: field,
            },
            Insn::Label(have),
            aload(ROOT_LOCAL),
            aload(0),
            Insn::Local {
                op: op::ILOAD,
                index: 1,
                wide: false,
            },
            Insn::Cp {
                op: op::INVOKESTATIC,
                index: in_root,
            },
        ]);
        if count {
            code.insns.extend([
                Insn::Simple(op::RETURN),
                Insn::Label(none),
                Insn::Simple(op::RETURN),
            ]);
        } else {
            code.insns.extend([
                Insn::Simple(ARETURN),
                Insn::Label(none),
                Insn::Simple(op::ACONST_NULL),
                Insn::Simple(ARETURN),
            ]);
        }
    }
    let (name, desc) = if count {
        ("countContext", format!("({s}I)V"))
    } else {
        ("enterContext", format!("({s}I){c}"))
    };
    b.add_method(0x1009, name, &desc, Some(&mut code), hierarchy)
}

/// The annotation that keeps HotSpot's compilers from inlining a method; they
/// honour it in the boot loader's classes, where a full-coverage weave puts
/// the runtime and `java.lang.MajorBypass`.
pub const DONT_INLINE: &str = "Ljdk/internal/vm/annotation/DontInline;";

/// The annotation that makes HotSpot's compilers inline a method wherever
/// they can (boot loader's classes only, like [`DONT_INLINE`]).
pub const FORCE_INLINE: &str = "Ljdk/internal/vm/annotation/ForceInline;";

/// The annotation a full-coverage weave gives `class.method`, if any, to
/// decide where HotSpot compiles the tree's upkeep ([`annotate_inlining`]):
///
/// - [`DONT_INLINE`] for what woven code calls on every entry and tracked
///   call, and on an exception's way out: compiled once and called, not
///   inlined into every compiled woven method. Inlined, those bodies made C2
///   compile about four times the bytecode of an unwoven run, which costs
///   short runs more than the calls do (bench/README.md, the profiler's
///   session 24). The exits (`exitContext`, `restoreContext`: two loads and
///   a store) stay inlined.
/// - [`FORCE_INLINE`] for the lookups those call on every entry. Compiled
///   in the first milliseconds of a run, before their callees have run
///   often enough to count as hot, `enterContext` and `countContext` found
///   `enterIn` (45 bytes) and `countIn` (36) over the 35-byte limit for
///   inlining a cold callee, and called them from then on: two calls per
///   entry for the whole run (session 25).
pub fn inlining(class: &str, method: &str) -> Option<&'static str> {
    match class {
        bypass::BYPASS if matches!(method, "enterContext" | "countContext") => Some(DONT_INLINE),
        CONTEXT => match method {
            "exitThrown" | "enterNative" | "enterNativeOn" | "enterDispatched" => Some(DONT_INLINE),
            "enterIn" | "countIn" | "firstProbe" | "enterNativeIn" => Some(FORCE_INLINE),
            _ => None,
        },
        _ => None,
    }
}

/// `class` (named `name`, internal) with the methods [`inlining`] names
/// annotated as it says; other classes as they are.
pub fn annotate_inlining(name: &str, mut class: Vec<u8>) -> Result<Vec<u8>> {
    if name != bypass::BYPASS && name != CONTEXT {
        return Ok(class);
    }
    for annotation in [DONT_INLINE, FORCE_INLINE] {
        let (annotated, _) = major_classfile::rewrite::annotate_methods(
            &class,
            |method, _| inlining(name, method) == Some(annotation),
            annotation,
        )?;
        class = annotated;
    }
    Ok(class)
}

/// Methods of `major.runtime.CallingContext` that run without the DIB although
/// they could construct an exception (they never do): the tree's lookups and
/// the moves of the current node, run on every woven method's entry and exit.
/// (What they call that allocates or reflects has the DIB set.)
pub fn runs_without_dib(class: &str, method: &str) -> bool {
    class == CONTEXT
        && matches!(
            method,
            "find"
                | "firstProbe"
                | "child"
                | "enterIn"
                | "enterMiss"
                | "countIn"
                | "countMiss"
                | "currentIn"
                | "exitContext"
                | "exitThrown"
                | "restoreContext"
                | "enterNative"
                | "enterNativeOn"
                | "enterNativeIn"
                | "enterNativeMiss"
                | "enterDispatched"
                | "enterDispatchedMiss"
                | "dispatchChild"
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use major_classfile::ClassFile;

    /// Each method of `class` by name, with its annotation types.
    fn annotations_by_method(class: &[u8]) -> Vec<(String, Vec<String>)> {
        let c = ClassFile::parse(class).unwrap();
        c.methods
            .iter()
            .map(|m| {
                let types = major_classfile::annotations::annotation_types(&m.attributes, &c.pool)
                    .unwrap()
                    .into_iter()
                    .map(|t| t.into_owned())
                    .collect();
                (c.member_name(m).unwrap().into_owned(), types)
            })
            .collect()
    }

    /// The tree's upkeep is compiled where [`inlining`] says: the methods
    /// woven code calls on every entry and tracked call carry `@DontInline`
    /// in the classes a full-coverage weave adds, the lookups they make carry
    /// `@ForceInline`, and no other method changes; an annotation a method
    /// has already is kept beside the new one.
    #[test]
    fn the_trees_upkeep_is_compiled_where_inlining_says() {
        let bare = |a: &str| a.trim_start_matches('L').trim_end_matches(';').to_string();
        let runtime = crate::runtime::runtime_class(&format!("{CONTEXT}.class")).unwrap();
        let index = ClassIndex::new();
        let bypass = bypass::bypass_class(61, &index, &[]).unwrap();
        for (name, bytes) in [(CONTEXT, runtime.to_vec()), (bypass::BYPASS, bypass)] {
            let before = annotations_by_method(&bytes);
            let kept = annotate_inlining(name, bytes).unwrap();
            let after = annotations_by_method(&kept);
            assert_eq!(before.len(), after.len());
            let (mut never, mut always) = (0, 0);
            for ((m, old), (m2, new)) in before.iter().zip(&after) {
                assert_eq!(m, m2);
                match inlining(name, m) {
                    Some(a) => {
                        if a == DONT_INLINE {
                            never += 1;
                        } else {
                            always += 1;
                        }
                        assert_eq!(new[..old.len()], old[..], "{name}.{m}");
                        assert_eq!(new.len(), old.len() + 1, "{name}.{m}");
                        assert_eq!(new.last(), Some(&bare(a)), "{name}.{m}");
                    }
                    None => assert_eq!(old, new, "{name}.{m}"),
                }
            }
            let expected = if name == CONTEXT { (4, 4) } else { (2, 0) };
            assert_eq!((never, always), expected, "{name}");
        }
        // A second annotation joins the first.
        let kept = annotate_inlining(CONTEXT, runtime.to_vec()).unwrap();
        let (twice, n) =
            major_classfile::rewrite::annotate_methods(&kept, |m, _| m == "enterIn", "Lp/Other;")
                .unwrap();
        assert_eq!(n, 1);
        let entry = annotations_by_method(&twice)
            .into_iter()
            .find(|(m, _)| m == "enterIn")
            .unwrap();
        assert_eq!(entry.1, [bare(FORCE_INLINE), "p/Other".to_string()]);
    }

    /// A call of a native instance method enters its frame only for a
    /// receiver that is not null (`enterNativeOn`, the arguments kept in
    /// locals past the node's meanwhile); a static one's and a constructor's
    /// are entered as they are (`enterNative`).
    #[test]
    fn a_native_instance_calls_frame_is_entered_on_its_receiver() {
        let mut index = ClassIndex::new();
        let mut n = ClassBuilder::new(61, 0x0031, "p/N", "java/lang/Object").unwrap();
        n.add_method(0x0101, "n", "(IJLjava/lang/Object;)I", None, &index)
            .unwrap();
        n.add_method(0x0109, "s", "()V", None, &index).unwrap();
        n.add_method(0x0101, "<init>", "(I)V", None, &index)
            .unwrap();
        index.add_class(&n.finish()).unwrap();
        let mut b = ClassBuilder::new(61, 0x0021, "p/C", "java/lang/Object").unwrap();
        let pool = b.pool();
        let virt = pool
            .method_ref("p/N", "n", "(IJLjava/lang/Object;)I", false)
            .unwrap();
        let stat = pool.method_ref("p/N", "s", "()V", false).unwrap();
        let init = pool.method_ref("p/N", "<init>", "(I)V", false).unwrap();
        let class = pool.class("p/N").unwrap();
        let local = |op: u8, index: u16| Insn::Local {
            op,
            index,
            wide: false,
        };
        let call = |op: u8, index: u16| Insn::Cp { op, index };
        let mut code = Code::empty();
        code.insns = vec![
            local(op::ALOAD, 1),
            Insn::Simple(4), // iconst_1
            Insn::Simple(9), // lconst_0
            Insn::Simple(op::ACONST_NULL),
            call(op::INVOKEVIRTUAL, virt),
            Insn::Simple(op::POP),
            call(op::INVOKESTATIC, stat),
            call(op::NEW, class),
            Insn::Simple(3), // iconst_0
            call(op::INVOKESPECIAL, init),
            Insn::Simple(op::RETURN),
        ];
        let w = Wrap {
            frame: "p.C.m(p.N)",
            owner: owner(true),
            handler_from: None,
            node: 2,
            quiet: None,
        };
        assert_eq!(wrap(&mut code, &w, &index, pool).unwrap(), 3);
        let called: Vec<(String, usize)> = code
            .insns
            .iter()
            .enumerate()
            .filter_map(|(at, i)| match i {
                Insn::Cp {
                    op: op::INVOKESTATIC,
                    index,
                } => Some((pool.member_ref(*index).unwrap().name.to_string(), at)),
                _ => None,
            })
            .collect();
        let names: Vec<&str> = called.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "enterContext",
                "enterNativeOn",
                "restoreContext",
                "enterNative",
                "s",
                "restoreContext",
                "enterNative",
                "restoreContext",
                "exitContext"
            ]
        );
        // Before enterNativeOn: the arguments into locals 3 (int), 4-5
        // (long), 6 (reference), the last first, then the receiver, now on
        // top, duplicated; after it, the arguments back in order.
        let on = called[1].1;
        assert_eq!(
            code.insns[on - 7..on - 3],
            [
                local(op::ASTORE, 6),
                local(55, 4), // lstore
                local(54, 3), // istore
                Insn::Simple(op::DUP),
            ]
        );
        assert_eq!(
            code.insns[on + 1..on + 5],
            [
                local(op::ILOAD, 3),
                local(22, 4), // lload
                local(op::ALOAD, 6),
                call(op::INVOKEVIRTUAL, virt),
            ]
        );
    }

    /// javac's `synchronized` block: the body's range and the handler's own
    /// first instructions both go to the handler.
    #[test]
    fn a_handler_covered_by_itself_restores_after_that_range() {
        let mut code = Code::empty();
        let (body, body_end, handler, self_end, other) = (
            code.new_label(),
            code.new_label(),
            code.new_label(),
            code.new_label(),
            code.new_label(),
        );
        let local = |op: u8, index: u16| Insn::Local {
            op,
            index,
            wide: false,
        };
        code.insns = vec![
            Insn::Label(body),
            Insn::Simple(op::NOP),
            Insn::Label(body_end),
            Insn::Simple(op::RETURN),
            Insn::Label(handler),
            local(op::ASTORE, 2),
            local(op::ALOAD, 1),
            Insn::Simple(195), // monitorexit
            Insn::Label(self_end),
            local(op::ALOAD, 2),
            Insn::Simple(op::ATHROW),
            Insn::Label(other),
            Insn::Simple(op::RETURN),
        ];
        let h = |start, end, handler| Handler {
            start,
            end,
            handler,
            catch_type: 0,
        };
        code.handlers = vec![h(body, body_end, handler), h(handler, self_end, handler)];
        let points = restore_points(&code.insns, &code.handlers);
        assert_eq!(points, [self_end].into_iter().collect());

        // A handler its own ranges do not cover restores at its entry.
        code.handlers = vec![h(body, body_end, handler), h(body, body_end, other)];
        let points = restore_points(&code.insns, &code.handlers);
        assert_eq!(points, [handler, other].into_iter().collect());
    }
}
