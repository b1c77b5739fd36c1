//! The per-method driver: [`MethodWeave`] holds one method body while it is
//! woven. [`MethodWeave::weave`] finds the body's start (after `super(..)` in a
//! constructor), weaves the point shadows last first (each one's code is put
//! in place in one pass at the end), then the execution, which wraps them,
//! then a constructor's initialization and preinitialization.

use rustc_hash::FxHashMap as HashMap;

use major_classfile::class_reader::ACC_STATIC;
use major_classfile::frames::MethodContext;
use major_classfile::init_calls;
use major_classfile::opcodes::op;
use major_classfile::{Code, CodeAttr, Error, Insn, Label, PoolBuilder, Result};
use major_pointcut_lang::matcher::{MemberView, ShadowKind};

use super::driver::{ClassOutcome, Weaver};
use super::matching::Matched;
use super::outline::Helpers;
use super::statics::{StaticPartSpec, Statics};
use super::{bypass, emit, kind_name};

/// The class being woven, as pointcuts see it.
pub(super) struct ClassData {
    pub(super) name: String,
    pub(super) access: u16,
    pub(super) annotations: Vec<String>,
    pub(super) source_file: String,
}

/// A member (the method being woven, or a shadow's subject), as pointcuts see
/// it: annotation and exception types as internal names.
#[derive(Clone)]
pub(super) struct MemberData {
    pub(super) name: String,
    pub(super) descriptor: String,
    pub(super) access: u16,
    pub(super) annotations: Vec<String>,
    pub(super) exceptions: Vec<String>,
}

impl MemberData {
    /// The matcher's view of the member, with its annotations and exceptions as `&str`s.
    pub(super) fn view<'a>(
        &'a self,
        annotations: &'a [&'a str],
        exceptions: &'a [&'a str],
    ) -> MemberView<'a> {
        MemberView {
            name: &self.name,
            descriptor: &self.descriptor,
            access: self.access,
            annotations,
            exceptions,
        }
    }
}

/// What the methods of one class share while they are woven: the class's
/// pool, its static parts, its outcome and the methods added to it.
pub(super) struct ClassShared<'c, 'p> {
    pub(super) pool: &'c mut PoolBuilder<'p>,
    pub(super) statics: &'c mut Statics,
    pub(super) outcome: &'c mut ClassOutcome,
    pub(super) added: &'c mut Vec<Vec<u8>>,
    /// The helper methods of [`super::outline`] added to the class.
    pub(super) helpers: &'c mut Helpers,
    /// Class-file version of the class.
    pub(super) major_version: u16,
}

/// `ACC_BRIDGE` of a method.
pub(super) const ACC_BRIDGE: u16 = 0x0040;

/// One method body being woven.
pub(super) struct MethodWeave<'w, 'p, 'c> {
    pub(super) weaver: &'w Weaver<'p>,
    pub(super) cls: &'c ClassData,
    pub(super) member: &'c MemberData,
    pub(super) code: &'c mut Code,
    pub(super) pool: &'c mut PoolBuilder<'p>,
    pub(super) statics: &'c mut Statics,
    pub(super) next_local: u16,
    /// Temps of finished point shadows, free for the next one (a point shadow's
    /// woven code ends before the next begins): local and kind (`L`, `I`, `J`,
    /// `F`, `D`).
    pub(super) free_temps: Vec<(u16, u8)>,
    /// While a point shadow is woven: the temps it took.
    pub(super) taken_temps: Option<Vec<(u16, u8)>>,
    /// Where each label of the code was before the point shadows were woven.
    pub(super) label_at: LabelPositions,
    /// The point shadows' woven code, put in place by
    /// [`MethodWeave::apply_replacements`].
    pub(super) replacements: Vec<(usize, bool, Vec<Insn>)>,
    pub(super) outcome: &'c mut ClassOutcome,
    pub(super) changed: bool,
    /// Methods added to the class (proceed methods of around advice).
    pub(super) added: &'c mut Vec<Vec<u8>>,
    /// Class-file version of the class.
    pub(super) major_version: u16,
    /// A constructor as woven before its initialization join points, kept when
    /// some advice may apply to initialization: another constructor that
    /// delegates to it with `this(..)` may need to inline it.
    pub(super) snapshot: Option<CtorSnapshot>,
    /// Why some advice cannot be decided at some shadow of the method (it
    /// depends on a class missing from the class path): the method is then
    /// left unwoven, or the weave fails with `--strict`.
    pub(super) undecided: Option<Error>,
    /// In a constructor, the index of its `super(..)`/`this(..)` call (in
    /// the code as the point shadows see it): shadows before it are in the
    /// evaluation of that call's arguments, where `this` is not initialized
    /// yet: they have no `this` (as in ajc), and nothing may take it.
    pub(super) super_call: Option<usize>,
    /// The helper methods of [`super::outline`] added to the class.
    pub(super) helpers: &'c mut Helpers,
    /// Whether advice calls go out of line into helper methods (the method
    /// woven again because its code would exceed 64 KiB otherwise).
    pub(super) compact: bool,
    /// Whether the method is woven with guards ([`bypass::BypassForm::Guards`]):
    /// set by the driver before [`MethodWeave::weave`].
    pub(super) guards: bool,
    /// With guards: the local holding the bypass decision made on entry.
    pub(super) guard: Option<u16>,
    /// With guards: the execution has around advice, so the method must be
    /// woven again without guards and duplicated.
    pub(super) wants_duplicate: bool,
    /// In a constructor, the label right after its `super(..)`/`this(..)`
    /// call, once found.
    pub(super) body_marker: Option<Label>,
    /// With guards: the label right after the bypass decision.
    pub(super) decision_end: Option<Label>,
    /// With guards: the guarded advice calls that have a dispatch method
    /// ([`bypass::Dispatch`]): the labels before the guard and after the
    /// call, and the advice id. See [`MethodWeave::fuse_dispatch`].
    pub(super) dispatchable: Vec<(Label, Label, usize)>,
}

/// See [`MethodWeave::snapshot`].
pub(super) struct CtorSnapshot {
    pub(super) code: Code,
    pub(super) next_local: u16,
    /// Right after the `super(..)`/`this(..)` call.
    pub(super) body_marker: Label,
    /// The descriptor of the constructor `this(..)` calls, if it does.
    pub(super) this_call: Option<String>,
    /// The constructor's execution static part.
    pub(super) esp: StaticPartSpec,
    /// The line of the constructor's first instruction.
    pub(super) first_line: i32,
    /// With guards: the local of the constructor's bypass decision.
    pub(super) guard: Option<u16>,
}

impl<'w, 'p, 'c> MethodWeave<'w, 'p, 'c> {
    /// Starts weaving `member` of `cls` (its body in `code`, its locals from
    /// `next_local` free).
    pub(super) fn new(
        weaver: &'w Weaver<'p>,
        cls: &'c ClassData,
        member: &'c MemberData,
        code: &'c mut Code,
        next_local: u16,
        shared: ClassShared<'c, 'p>,
    ) -> Self {
        MethodWeave {
            weaver,
            cls,
            member,
            code,
            pool: shared.pool,
            statics: shared.statics,
            next_local,
            free_temps: Vec::new(),
            taken_temps: None,
            label_at: Default::default(),
            replacements: Vec::new(),
            outcome: shared.outcome,
            changed: false,
            added: shared.added,
            major_version: shared.major_version,
            snapshot: None,
            undecided: None,
            super_call: None,
            helpers: shared.helpers,
            compact: false,
            guards: false,
            guard: None,
            wants_duplicate: false,
            body_marker: None,
            decision_end: None,
            dispatchable: Vec::new(),
        }
    }
}

impl<'w, 'p> MethodWeave<'w, 'p, '_> {
    /// A new local for a value of type `d`. Inside a point shadow, a temp a
    /// finished point shadow used for the same kind of value is taken again:
    /// methods with thousands of shadows keep few locals (frame computation
    /// costs locals × instructions).
    pub(super) fn temp(&mut self, d: &str) -> u16 {
        let kind = match d.as_bytes()[0] {
            b'L' | b'[' => b'L',
            b'J' => b'J',
            b'F' => b'F',
            b'D' => b'D',
            _ => b'I',
        };
        let reused = match self.taken_temps {
            Some(_) => self
                .free_temps
                .iter()
                .position(|(_, k)| *k == kind)
                .map(|i| self.free_temps.swap_remove(i).0),
            None => None,
        };
        let l = reused.unwrap_or_else(|| {
            let l = self.next_local;
            self.next_local += emit::size(d);
            l
        });
        if let Some(t) = &mut self.taken_temps {
            t.push((l, kind));
        }
        l
    }

    pub(super) fn weave(&mut self, mctx: &MethodContext<'_>) -> Result<()> {
        self.statics.begin_method();
        let is_ctor = self.member.name == "<init>";
        // With guards, the bypass decision comes first: constructors make it
        // before their super call, and a delegated constructor inlined into
        // another takes its decision along.
        if self.guards {
            let local = self.next_local;
            self.next_local += 1;
            let mut entry = Vec::with_capacity(3);
            bypass::decide(local, self.pool, &mut entry)?;
            let end = self.code.new_label();
            entry.push(Insn::Label(end));
            self.decision_end = Some(end);
            self.code.insns.splice(0..0, entry);
            self.guard = Some(local);
        }
        // (It keeps the decision: the calling context is kept in bridges.)
        // A bridge method only delegates (javac's); as in ajc, it has no join
        // points, not even the call it makes (which has the signature of the
        // method it bridges to).
        if self.member.access & ACC_BRIDGE != 0 && !is_ctor && self.member.name != "<clinit>" {
            return Ok(());
        }

        // Constructors: find the super/this call, and which `invokespecial <init>` are `new`s.
        let mut super_call: Option<usize> = None;
        // `invokespecial <init>` of a `new`, with the index of its `new` when the
        // shape is `new; dup; args; invokespecial` (the weaver may move the `new`).
        let mut ctor_calls: HashMap<usize, Option<usize>> = HashMap::default();
        // Constructors need their super call found; other methods only need the
        // stack states to tell constructor calls (`new`) from other `<init>` calls.
        // (A constructor call needs a `new` in the method.)
        let has = |opcode: u8| {
            self.code
                .insns
                .iter()
                .any(|i| matches!(i, Insn::Cp { op, .. } if *op == opcode))
        };
        let needs_states = (is_ctor
            || (self.weaver.could_match(ShadowKind::ConstructorCall) && has(op::NEW)))
            && has(op::INVOKESPECIAL);
        if needs_states {
            let found =
                init_calls::init_calls(self.code, mctx, self.pool, self.weaver.world.index())?;
            super_call = found.super_call.filter(|_| is_ctor);
            ctor_calls.extend(found.ctor_calls);
        }
        // A marker after the super call, so the body start survives insertions.
        let body_marker = self.code.new_label();
        let body_start = match super_call {
            Some(i) => i + 1,
            None if is_ctor => return Ok(()), // no super call found: leave it alone
            // Right after the bypass decision, found by its end label: the
            // analysis that found the constructor calls may have added
            // labels, inside the decision too, so its length is no index.
            None => self.decision_end.map_or(0, |end| self.position(end) + 1),
        };
        self.code.insns.insert(body_start, Insn::Label(body_marker));
        if is_ctor {
            self.body_marker = Some(body_marker);
        }
        let shift = |i: usize| if i >= body_start { i + 1 } else { i };
        let ctor_calls: HashMap<usize, Option<usize>> = ctor_calls
            .into_iter()
            .map(|(i, n)| (shift(i), n.map(shift)))
            .collect();
        let super_call = super_call.map(|i| if i >= body_start { i + 1 } else { i });

        self.super_call = super_call;
        let found = self.find_shadows(&ctor_calls, super_call)?;
        let line_of = lines(self.code);
        let esp = std::rc::Rc::new(self.execution_spec(&line_of, body_start));
        let first_line = line_of
            .iter()
            .zip(&self.code.insns)
            .find(|(l, i)| **l >= 0 && !matches!(i, Insn::Label(_)))
            .map_or(-1, |(l, _)| *l);
        // Point shadows, last first; each one's woven code replaces its
        // instruction in one pass at the end (indices stay those of `found`).
        self.label_at = label_positions(self.code);
        for f in found.iter().rev() {
            let line = line_of.get(f.at).copied().unwrap_or(-1);
            self.statics.at_shadow(f.at);
            // A shadow in the arguments of super(..)/this(..) is its own
            // enclosing join point, as in AspectJ.
            let in_super_args = is_ctor && f.at < body_start;
            self.weave_point(f, line, (!in_super_args).then_some(&esp))?;
        }
        self.statics.at_shadow(usize::MAX);
        self.apply_replacements();
        // The execution shadow last: it wraps everything.
        let kind = match self.member.name.as_str() {
            "<init>" => ShadowKind::ConstructorExecution,
            "<clinit>" => ShadowKind::StaticInitialization,
            _ if self.advice_name().is_some() => ShadowKind::AdviceExecution,
            _ => ShadowKind::MethodExecution,
        };
        self.weave_execution(kind, body_marker, None, &esp)?;
        if is_ctor {
            // Shadows woven in the super call's arguments moved it: it is right
            // before the body marker.
            let sc = self.position(body_marker) - 1;
            if self.weaver.init_advice {
                let r = match self.code.insns[sc] {
                    Insn::Cp { index, .. } => Some(self.pool.member_ref(index)?),
                    _ => None,
                };
                let this_call = r
                    .filter(|r| *r.owner == *self.cls.name)
                    .map(|r| r.descriptor.into_owned());
                let mut code = self.code.clone();
                code.prune_tables();
                self.snapshot = Some(CtorSnapshot {
                    code,
                    next_local: self.next_local,
                    body_marker,
                    this_call,
                    esp: (*esp).clone(),
                    first_line,
                    guard: self.guard,
                });
            }
            self.weave_initialization(body_marker, &esp, first_line)?;
        }
        // Code that moved into proceed methods takes its table entries along.
        self.code.prune_tables();
        Ok(())
    }

    /// The object initialization (after the super constructor returns, to the
    /// end) and preinitialization (the evaluation of the super constructor's
    /// arguments) of a constructor that calls `super(..)`.
    pub(super) fn weave_initialization(
        &mut self,
        body_marker: Label,
        esp: &StaticPartSpec,
        first_line: i32,
    ) -> Result<()> {
        let super_call = self.position(body_marker) - 1;
        let Insn::Cp { index, .. } = self.code.insns[super_call] else {
            return Ok(());
        };
        if *self.pool.member_ref(index)?.owner == *self.cls.name {
            return Ok(()); // this(..): the delegated constructor has them
        }
        let init = StaticPartSpec {
            kind: "initialization",
            shadow: self.statics.next_shadow(),
            ..esp.clone()
        };
        self.weave_execution(ShadowKind::Initialization, body_marker, None, &init)?;
        // The super call is still right before the body marker.
        let at = self.position(body_marker) - 1;
        let (start, end) = (self.code.new_label(), self.code.new_label());
        self.code.insns.insert(at, Insn::Label(end));
        self.code.insns.insert(0, Insn::Label(start));
        let pre = StaticPartSpec {
            kind: "preinitialization",
            line: first_line,
            shadow: self.statics.next_shadow(),
            ..esp.clone()
        };
        self.weave_execution(ShadowKind::PreInitialization, start, Some(end), &pre)
    }

    /// An instance `finalize()V` whose code is just `return` (as
    /// `Object.finalize` is): HotSpot does not register objects for
    /// finalization when their class's finalizer is empty, so its execution
    /// never happens in the unwoven program. Weaving advice into it would
    /// make every instance finalizable (and the advice run): it is left alone.
    pub(super) fn is_empty_finalize(&self) -> bool {
        self.member.name == "finalize"
            && self.member.descriptor == "()V"
            && self.member.access & ACC_STATIC == 0
            && self
                .code
                .insns
                .iter()
                .skip(self.after_decision())
                .filter(|i| !matches!(i, Insn::Label(_)))
                .eq(std::iter::once(&Insn::Simple(op::RETURN)))
    }

    pub(super) fn record(&mut self, kind: ShadowKind, matched: &[Matched<'_, '_>]) {
        self.changed = true;
        *self.outcome.advised.entry(kind_name(kind)).or_insert(0) += 1;
        for m in matched {
            self.outcome.hit(m.advice.id, kind_name(kind));
        }
    }

    /// With guards, where the bypass decision serves one advice call alone
    /// and that advice has a dispatch method ([`bypass::Dispatch`]: a
    /// singleton's advice without parameters, called whenever no bypass is
    /// on): replaces the decision and the guarded call by one call of the
    /// dispatch, where the call was. The decision is then made there, not on
    /// entry: the same, as nothing before it in the method changes a bypass
    /// (the DIB is restored by whatever sets it, and the VM boots in
    /// `VM.initLevel`, which is not woven). Whether it did.
    pub(super) fn fuse_dispatch(&mut self) -> Result<bool> {
        let (Some(g), Some(end), [(start, after, advice)]) =
            (self.guard, self.decision_end, self.dispatchable.as_slice())
        else {
            return Ok(false);
        };
        let weaver = self.weaver;
        let Some(d) = weaver.dispatch.get(*advice).and_then(Option::as_ref) else {
            return Ok(false);
        };
        if d.arity() != 0 {
            return Ok(false); // the guarded call loads its values: not fused
        }
        if self.compact || self.snapshot.is_some() {
            return Ok(false);
        }
        let (s, e) = (self.position(*start), self.position(*after));
        if guard_tests(&self.code.insns, g) != 1 || guard_tests(&self.code.insns[s..e], g) != 1 {
            return Ok(false);
        }
        let mut call = Vec::with_capacity(1);
        bypass::call_dispatch(d, self.pool, &mut call)?;
        // The labels inside the call stay (nothing outside jumps there, but
        // tables may name them); the instructions go.
        let kept: Vec<Insn> = self.code.insns[s + 1..e]
            .iter()
            .filter(|i| matches!(i, Insn::Label(_)))
            .cloned()
            .collect();
        self.code
            .insns
            .splice(s + 1..e, call.into_iter().chain(kept));
        self.remove_decision(end);
        Ok(true)
    }

    /// Removes the bypass decision when no guard tests it (every woven
    /// shadow straight-line: [`super::straight`]); its labels stay. Returns
    /// whether it did: the body then only gained straight-line code.
    pub(super) fn drop_unused_decision(&mut self) -> bool {
        let (Some(g), Some(end)) = (self.guard, self.decision_end) else {
            return false;
        };
        if guard_tests(&self.code.insns, g) != 0 {
            return false;
        }
        self.remove_decision(end);
        true
    }

    /// Removes the bypass decision (the code up to its end label `end`),
    /// keeping its labels; no guard is left to test it.
    fn remove_decision(&mut self, end: Label) {
        let end = self.position(end);
        let mut i = 0;
        self.code.insns.retain(|x| {
            let keep = i > end || matches!(x, Insn::Label(_));
            i += 1;
            keep
        });
        self.guard = None;
    }

    /// The index right after the bypass decision (0 without one), found by
    /// its end label: analyses may add labels, inside the decision too.
    pub(super) fn after_decision(&self) -> usize {
        self.decision_end.map_or(0, |end| self.position(end) + 1)
    }

    /// The index of a label that is in the code.
    pub(super) fn position(&self, l: Label) -> usize {
        label_index(self.code, l).expect("label placed")
    }

    /// Puts the point shadows' woven code in place, in one pass over the code:
    /// `(at, replaces, code)` inserts `code` at instruction `at`, replacing it
    /// when `replaces`.
    fn apply_replacements(&mut self) {
        if self.replacements.is_empty() {
            return;
        }
        // Woven last first: reversed, equal indices keep code order (a
        // handler's entry before a call that is its first instruction).
        let mut reps = std::mem::take(&mut self.replacements);
        reps.reverse();
        reps.sort_by_key(|r| r.0);
        let extra: usize = reps.iter().map(|r| r.2.len()).sum();
        let old = std::mem::take(&mut self.code.insns);
        let mut out = Vec::with_capacity(old.len() + extra);
        let mut reps = reps.into_iter().peekable();
        for (i, insn) in old.into_iter().enumerate() {
            let mut replaced = false;
            while let Some((_, replaces, code)) = reps.next_if(|r| r.0 == i) {
                out.extend(code);
                replaced |= replaces;
            }
            if !replaced {
                out.push(insn);
            }
        }
        self.code.insns = out;
    }
}
/// The index of label `l` in `code`, if it is placed.
pub(super) fn label_index(code: &Code, l: Label) -> Option<usize> {
    code.insns.iter().position(|i| *i == Insn::Label(l))
}

/// A `method_info` (access, name, descriptor, one `Code` attribute) for a
/// method the weaver adds to the class.
pub(super) fn method_info(
    access: u16,
    name: &str,
    descriptor: &str,
    code: &Code,
    pool: &mut PoolBuilder<'_>,
) -> Result<Vec<u8>> {
    let code_name = pool.utf8("Code")?;
    let mut m = Vec::new();
    m.extend_from_slice(&access.to_be_bytes());
    m.extend_from_slice(&pool.utf8(name)?.to_be_bytes());
    m.extend_from_slice(&pool.utf8(descriptor)?.to_be_bytes());
    m.extend_from_slice(&1u16.to_be_bytes());
    code.write_attribute(code_name, &code.layout(), &mut m)?;
    Ok(m)
}

/// The instruction index each placed label stands at.
fn label_positions(code: &Code) -> LabelPositions {
    let mut at = vec![usize::MAX; code.label_count()];
    for (i, x) in code.insns.iter().enumerate() {
        if let Insn::Label(l) = x {
            at[l.0 as usize] = i;
        }
    }
    LabelPositions(at)
}

/// The instruction index of each label placed in a body, by label number.
#[derive(Debug, Default)]
pub(super) struct LabelPositions(Vec<usize>);

impl LabelPositions {
    /// Where `l` is, if it is placed.
    pub(super) fn get(&self, l: &Label) -> Option<&usize> {
        self.0.get(l.0 as usize).filter(|&&i| i != usize::MAX)
    }
}

/// The source line of every instruction (-1 where unknown).
fn lines(code: &Code) -> Vec<i32> {
    let mut at = vec![-1i32; code.label_count()];
    for a in &code.attributes {
        if let CodeAttr::LineNumbers { entries, .. } = a {
            for (l, n) in entries {
                if let Some(slot) = at.get_mut(l.0 as usize) {
                    *slot = *n as i32;
                }
            }
        }
    }
    let mut out = Vec::with_capacity(code.insns.len());
    let mut cur = -1;
    for insn in &code.insns {
        if let Insn::Label(l) = insn {
            if let Some(&n) = at.get(l.0 as usize).filter(|&&n| n >= 0) {
                cur = n;
            }
        }
        out.push(cur);
    }
    out
}

/// How many guards in `insns` test the bypass decision in local `g`.
fn guard_tests(insns: &[Insn], g: u16) -> usize {
    insns
        .iter()
        .filter(|i| matches!(i, Insn::Local { op: o, index, .. } if *o == op::ILOAD && *index == g))
        .count()
}
