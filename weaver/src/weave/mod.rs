//! Weaving: finding join-point shadows in method bodies, matching advice against
//! them, and inserting the advice calls.
//!
//! For each method body the weaver enumerates the shadows (the body itself for
//! executions and static initialization; call sites, field accesses and handler
//! entries inside it), asks each advice's compiled pointcut whether it matches
//! (statically: yes, no, or maybe — then with a residual runtime test), and
//! weaves the matching advice in precedence order, innermost first:
//!
//! ```text
//!   [store operands] [before₂ [before₁ [S₀ core E₀] after₁] after₂]   [handlers]
//! ```
//! Each layer widens the protected region, so an outer `after throwing` also sees
//! exceptions thrown by inner advice, as in AspectJ. Handler code goes to the end
//! of the method; the exception-table entries of a call-site shadow go before the
//! method's own entries (they are innermost), those of an execution shadow after.

pub mod cflow;
pub mod emit;
pub mod inline;
pub mod plan;
pub mod statics;
pub mod world;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::BTreeMap;

use major_classfile::class_reader::ACC_STATIC;
use major_classfile::frames::{self, MethodContext};
use major_classfile::init_calls;
use major_classfile::kept_frames::{self, Snapshot};
use major_classfile::opcodes::op;
use major_classfile::{
    descriptor, method_with_code, write_class, ClassEdit, ClassFile, Code, CodeAttr, CodeAttribute,
    Error, Handler, Insn, Label, PoolBuilder, Result,
};
use major_pointcut_lang::ast::AdviceKind;
use major_pointcut_lang::matcher::{
    ClassView, CompiledPointcut, Fuzzy, MemberView, Shadow, ShadowKind, TypeWorld,
};
use major_pointcut_lang::{Program, ResolvedAdvice};

use crate::aspects::{CompiledAspects, Extra};
use crate::index::ClassIndex;
use plan::{PlannedAdvice, Residue, ShadowTypes, Source};
use statics::{SigSpec, StaticPartSpec, Statics};
use world::IndexWorld;

/// A `declare warning` / `declare error` hit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclareHit {
    /// Whether it is an error.
    pub is_error: bool,
    /// The declared message.
    pub message: String,
    /// Where: `File.java:12`.
    pub location: String,
}

/// What weaving one class produced.
#[derive(Debug, Default)]
pub struct ClassOutcome {
    /// The woven class, or `None` when no advice applied (copy the original).
    pub bytes: Option<Vec<u8>>,
    /// The extra class with static parts (internal name, bytes).
    pub extra: Option<(String, Vec<u8>)>,
    /// Advised shadows per join-point kind.
    pub advised: BTreeMap<&'static str, usize>,
    /// Per advice (by `PlannedAdvice::id`), the shadows it was woven into.
    pub advice_hits: Vec<usize>,
    /// `declare warning/error` matches.
    pub declares: Vec<DeclareHit>,
    /// Methods left unwoven, with the reason.
    pub skipped_methods: Vec<Error>,
    /// Proceed methods added so far (numbers them).
    pub proceed_methods: usize,
    /// Advice not woven at some shadow, with the reason.
    pub notes: Vec<String>,
}

/// The weaver for one program of aspects.
pub struct Weaver<'p> {
    world: IndexWorld<'p>,
    advice: Vec<PlannedAdvice<'p>>,
    declares: Vec<(CompiledPointcut, bool, String)>,
    excluded: HashSet<String>,
    /// Whether some advice may apply to initialization or preinitialization.
    init_advice: bool,
    /// The per-thread state of every `cflow(..)`, indexed by [`plan::CflowField`] number.
    cflow_fields: Vec<plan::CflowField>,
    /// The shadow kinds some advice, cflow entry or declare could match: the
    /// others are not even resolved.
    kinds: Vec<ShadowKind>,
    /// The shadow kinds whose subjects are looked up (declaring class,
    /// modifiers, annotations, exceptions): where some pointcut looks at them,
    /// or static parts show them.
    detail_kinds: Vec<ShadowKind>,
    /// Whether some advice or `if(..)` test takes reflective join-point
    /// information (`thisJoinPoint`, static parts) or is around advice: only
    /// then do static parts need parameter names.
    reflective: bool,
    /// Advice that cannot be woven, with the reason.
    pub unsupported: Vec<(String, &'static str)>,
}

/// The type of the shadow's join point local.
const JOIN_POINT: &str = "Lorg/aspectj/lang/JoinPoint;";

/// Whether a method is annotated `@CallerSensitive` (JDK 9+ or JDK 8): it asks
/// for its caller's class by stack depth, so no frame may come between them.
fn is_caller_sensitive(annotations: &[String]) -> bool {
    annotations
        .iter()
        .any(|a| a == "jdk/internal/reflect/CallerSensitive" || a == "sun/reflect/CallerSensitive")
}

/// Every shadow kind.
const ALL_KINDS: [ShadowKind; 11] = [
    ShadowKind::MethodCall,
    ShadowKind::ConstructorCall,
    ShadowKind::MethodExecution,
    ShadowKind::ConstructorExecution,
    ShadowKind::FieldGet,
    ShadowKind::FieldSet,
    ShadowKind::StaticInitialization,
    ShadowKind::Initialization,
    ShadowKind::PreInitialization,
    ShadowKind::ExceptionHandler,
    ShadowKind::AdviceExecution,
];

/// The AspectJ kind name of a shadow kind.
pub fn kind_name(k: ShadowKind) -> &'static str {
    match k {
        ShadowKind::MethodCall => "method-call",
        ShadowKind::ConstructorCall => "constructor-call",
        ShadowKind::MethodExecution => "method-execution",
        ShadowKind::ConstructorExecution => "constructor-execution",
        ShadowKind::FieldGet => "field-get",
        ShadowKind::FieldSet => "field-set",
        ShadowKind::StaticInitialization => "staticinitialization",
        ShadowKind::Initialization => "initialization",
        ShadowKind::PreInitialization => "preinitialization",
        ShadowKind::ExceptionHandler => "exception-handler",
        ShadowKind::AdviceExecution => "adviceexecution",
    }
}

fn describe_short(a: &PlannedAdvice<'_>) -> String {
    format!(
        "{} advice in {}",
        a.resolved.kind.name(),
        a.resolved.declared_in
    )
}

/// Java's widening primitive conversions (`after returning (long l)` also sees ints).
fn widens(from: &str, to: &str) -> bool {
    matches!(
        (from, to),
        ("B", "S" | "I" | "J" | "F" | "D")
            | ("S" | "C", "I" | "J" | "F" | "D")
            | ("I", "J" | "F" | "D")
            | ("J", "F" | "D")
            | ("F", "D")
    )
}

/// Whether `pc` has an `initialization(..)` or `preinitialization(..)`.
fn mentions_initialization(pc: &major_pointcut_lang::resolve::Pc) -> bool {
    use major_pointcut_lang::resolve::PcKind;
    match &pc.kind {
        PcKind::And(a, b) | PcKind::Or(a, b) => {
            mentions_initialization(a) || mentions_initialization(b)
        }
        PcKind::Not(a) | PcKind::Cflow(a) | PcKind::CflowBelow(a) => mentions_initialization(a),
        PcKind::Initialization(_) | PcKind::PreInitialization(_) => true,
        _ => false,
    }
}

fn is_around(a: &PlannedAdvice<'_>) -> bool {
    a.entry.is_none() && matches!(a.resolved.kind, AdviceKind::Around(_))
}

/// A short description of an advice for messages: `before(): Tracer.aj:12`.
pub fn describe(program: &Program, a: &ResolvedAdvice) -> String {
    let f = &program.files[a.file];
    let line = f.text()[..a.span.start.min(f.text().len())]
        .matches('\n')
        .count()
        + 1;
    format!(
        "{} advice in {} ({}:{})",
        a.kind.name(),
        a.declared_in,
        f.name(),
        line
    )
}

impl<'p> Weaver<'p> {
    /// Prepares the advice of `program` (compiled into `aspects`) for weaving
    /// against the classes of `index`.
    pub fn new(program: &'p Program, aspects: &'p CompiledAspects, index: &'p ClassIndex) -> Self {
        let world = IndexWorld::new(index);
        let mut advice = Vec::new();
        let mut unsupported = Vec::new();
        let mut cflow_fields = Vec::new();
        let mut entries = Vec::new();
        for ca in &aspects.aspects {
            let ra = &program.aspects[ca.program_index];
            for (i, a) in ra.advice.iter().enumerate() {
                if let Some(why) = plan::unsupported(a) {
                    unsupported.push((describe(program, a), why));
                    continue;
                }
                let Some(m) = ca.advice.get(i) else { continue };
                let pointcut = major_pointcut_lang::matcher::compile_advice(a, &ra.scope, &world);
                let cflows = cflow::Planner {
                    fields: &mut cflow_fields,
                    entries: &mut entries,
                    world: &world,
                }
                .plan(a, &a.pointcut, 0, &ca.internal_name, m, &ra.scope);
                advice.push(PlannedAdvice {
                    aspect_class: ca.internal_name.clone(),
                    aspect_of: format!("()L{};", ca.internal_name),
                    resolved: a,
                    method: m.clone(),
                    pointcut,
                    rank: 0,
                    binds: plan::bindings(a, &cflows),
                    id: 0,
                    pc: &a.pointcut,
                    if_base: 0,
                    cflows,
                    entry: None,
                });
            }
        }
        plan::order(&mut advice, program, &world);
        // cflow entries outermost, cflowbelow entries innermost.
        let (below, above): (Vec<_>, Vec<_>) = entries
            .into_iter()
            .partition(|e| e.entry.as_ref().is_some_and(|e| e.below));
        let mut advice: Vec<PlannedAdvice<'p>> =
            above.into_iter().chain(advice).chain(below).collect();
        for (i, a) in advice.iter_mut().enumerate() {
            a.rank = i;
            a.id = i;
        }
        let mut declares = Vec::new();
        for a in program.concrete_aspects() {
            for d in &a.declares {
                let c = CompiledPointcut::compile(&d.pointcut, &|_| None, &world);
                declares.push((c, d.is_error, d.message.clone()));
            }
        }
        let mut excluded: HashSet<String> = aspects
            .classes
            .iter()
            .map(|(n, _)| n.trim_end_matches(".class").to_string())
            .collect();
        excluded.extend(program.aspects.iter().map(|a| a.internal_name.clone()));
        let init_advice = advice.iter().any(|a| mentions_initialization(a.pc));
        let kinds = ALL_KINDS
            .into_iter()
            .filter(|&k| {
                advice.iter().any(|a| a.pointcut.could_match(k))
                    || declares.iter().any(|(pc, _, _)| pc.could_match(k))
            })
            .collect();
        let reflective = advice.iter().any(|a| {
            is_around(a)
                || a.method.extras().next().is_some()
                || a.method.if_tests.iter().any(|t| !t.extras.is_empty())
        });
        let detail_kinds = ALL_KINDS
            .into_iter()
            .filter(|&k| {
                reflective
                    || advice.iter().any(|a| a.pointcut.needs_member_details(k))
                    || declares.iter().any(|(pc, _, _)| pc.needs_member_details(k))
            })
            .collect();
        Weaver {
            world,
            advice,
            declares,
            excluded,
            init_advice,
            cflow_fields,
            kinds,
            detail_kinds,
            reflective,
            unsupported,
        }
    }

    /// Whether a method body could hold a shadow some advice could match: always
    /// when an execution-like join point could match; otherwise only if its
    /// bytecode has a call, `new`, field access or catch clause of a kind that
    /// could match. Methods without one are not even decoded.
    fn may_have_shadows(&self, code: &major_classfile::CodeAttribute<'_>) -> Result<bool> {
        use ShadowKind as K;
        let whole = [
            K::MethodExecution,
            K::ConstructorExecution,
            K::StaticInitialization,
            K::Initialization,
            K::PreInitialization,
            K::AdviceExecution,
        ];
        if whole.iter().any(|&k| self.could_match(k)) {
            return Ok(true);
        }
        if self.could_match(K::ExceptionHandler)
            && code.exception_table.iter().any(|e| e.catch_type != 0)
        {
            return Ok(true);
        }
        let calls = self.could_match(K::MethodCall);
        let news = self.could_match(K::ConstructorCall);
        let fields = self.could_match(K::FieldGet) || self.could_match(K::FieldSet);
        if !(calls || news || fields) {
            return Ok(false);
        }
        major_classfile::code::any_opcode(code.code, |o| {
            (calls && (op::INVOKEVIRTUAL..=op::INVOKEINTERFACE).contains(&o))
                || (news && o == op::NEW)
                || (fields && (op::GETSTATIC..=op::PUTFIELD).contains(&o))
        })
    }

    /// Whether some advice (or declare) could match a shadow of `kind`.
    pub fn could_match(&self, kind: ShadowKind) -> bool {
        self.kinds.contains(&kind)
    }

    /// The extra classes holding the per-thread state of the aspects' `cflow(..)`s
    /// (entry name `p/A$MajorCflow.class`, bytes).
    pub fn extra_classes(&self) -> Result<Vec<(String, Vec<u8>)>> {
        cflow::holder_classes(&self.cflow_fields, self.world.index())
    }

    /// The advice in precedence order (highest first).
    pub fn advice(&self) -> &[PlannedAdvice<'p>] {
        &self.advice
    }

    /// Whether a class is never woven: aspects, the runtime, and the weaver's own
    /// extra classes.
    pub fn is_excluded(&self, name: &str) -> bool {
        self.excluded.contains(name)
            || name.starts_with("major/runtime/")
            || name.starts_with("org/aspectj/")
            || name.ends_with("$MajorStatics")
    }

    /// Weaves one class file.
    pub fn weave_class(&self, bytes: &[u8]) -> Result<ClassOutcome> {
        let class = ClassFile::parse(bytes)?;
        let name = class.name()?.into_owned();
        let mut outcome = ClassOutcome {
            advice_hits: vec![0; self.advice.len()],
            ..Default::default()
        };
        if self.is_excluded(&name) || (self.advice.is_empty() && self.declares.is_empty()) {
            return Ok(outcome);
        }
        let source_file = class
            .attribute("SourceFile")
            .and_then(|a| {
                (a.data.len() == 2)
                    .then(|| {
                        class
                            .pool
                            .utf8(u16::from_be_bytes([a.data[0], a.data[1]]))
                            .ok()
                    })
                    .flatten()
            })
            .map(|s| s.into_owned())
            .unwrap_or_default();
        let class_annotations: Vec<String> =
            major_classfile::annotations::annotation_types(&class.attributes, &class.pool)?
                .into_iter()
                .map(|s| s.into_owned())
                .collect();
        let cls = ClassData {
            name: name.clone(),
            access: class.access,
            annotations: class_annotations,
            source_file: source_file.clone(),
        };
        let mut edit = ClassEdit::new(&class);
        let mut statics = Statics::new(&name, &source_file);
        let mut added: Vec<Vec<u8>> = Vec::new();
        let mut snapshots: HashMap<String, (usize, MemberData, CtorSnapshot)> = HashMap::default();
        let index = self.world.index();
        for (mi, m) in class.methods.iter().enumerate() {
            let Some(attr) = m.attribute("Code") else {
                continue;
            };
            let member = MemberData {
                name: class.member_name(m)?.into_owned(),
                descriptor: class.member_descriptor(m)?.into_owned(),
                access: m.access,
                annotations: major_classfile::annotations::annotation_types(
                    &m.attributes,
                    &class.pool,
                )?
                .into_iter()
                .map(|s| s.into_owned())
                .collect(),
                exceptions: major_classfile::annotations::exception_types(
                    &m.attributes,
                    &class.pool,
                )?
                .into_iter()
                .map(|s| s.into_owned())
                .collect(),
            };
            let parsed = CodeAttribute::parse(attr, &class.pool).map_err(|e| {
                e.in_method(&member.name, &member.descriptor)
                    .in_class(name.as_str())
            })?;
            if !self.may_have_shadows(&parsed).map_err(|e| {
                e.in_method(&member.name, &member.descriptor)
                    .in_class(name.as_str())
            })? {
                continue;
            }
            let mut code = Code::decode(&parsed, &class.pool).map_err(|e| {
                e.in_method(&member.name, &member.descriptor)
                    .in_class(name.as_str())
            })?;
            let before = Snapshot::of(&code);
            let mctx = MethodContext {
                class_name: &name,
                name: &member.name,
                descriptor: &member.descriptor,
                is_static: m.access & ACC_STATIC != 0,
                major_version: class.major_version,
            };
            // What a method left unwoven must take back.
            let undo = (
                outcome.advised.clone(),
                outcome.advice_hits.clone(),
                outcome.proceed_methods,
                added.len(),
                statics.mark(),
            );
            let skip = |outcome: &mut ClassOutcome,
                        added: &mut Vec<Vec<u8>>,
                        statics: &mut Statics,
                        e: major_classfile::Error| {
                outcome.advised = undo.0.clone();
                outcome.advice_hits = undo.1.clone();
                outcome.proceed_methods = undo.2;
                added.truncate(undo.3);
                statics.rollback(undo.4);
                outcome.skipped_methods.push(e);
            };
            let mut mw = MethodWeave {
                weaver: self,
                cls: &cls,
                member: &member,
                code: &mut code,
                pool: &mut edit.pool,
                statics: &mut statics,
                next_local: parsed.max_locals,
                free_temps: Vec::new(),
                taken_temps: None,
                label_at: Default::default(),
                replacements: Vec::new(),
                outcome: &mut outcome,
                changed: false,
                added: &mut added,
                major_version: class.major_version,
                snapshot: None,
            };
            match mw.weave(&mctx) {
                Ok(()) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        major_classfile::ErrorKind::CodeTooLarge
                            | major_classfile::ErrorKind::Unsupported
                    ) =>
                {
                    let e = e
                        .in_method(&member.name, &member.descriptor)
                        .in_class(name.as_str());
                    skip(&mut outcome, &mut added, &mut statics, e);
                    continue;
                }
                Err(e) => {
                    return Err(e
                        .in_method(&member.name, &member.descriptor)
                        .in_class(name.as_str()))
                }
            }
            if let Some(snap) = mw.snapshot.take() {
                snapshots.insert(member.descriptor.clone(), (mi, member.clone(), snap));
            }
            if !mw.changed {
                continue;
            }
            if let Err(e) =
                kept_frames::compute_keeping(&mut code, &before, &mctx, &mut edit.pool, index)
            {
                if matches!(e.kind(), major_classfile::ErrorKind::CodeTooLarge) {
                    skip(&mut outcome, &mut added, &mut statics, e);
                    continue;
                }
                return Err(e);
            }
            let mut out = Vec::new();
            code.write_attribute(attr.name_index, &code.layout(), &mut out)?;
            edit.methods.insert(mi, method_with_code(m, &out));
        }
        // Constructors that delegate with this(..): their initialization join
        // points cover the delegated constructor, inlined.
        let mut delegating: Vec<&String> = snapshots
            .iter()
            .filter(|(_, (_, _, s))| s.this_call.is_some())
            .map(|(d, _)| d)
            .collect();
        delegating.sort_by_key(|d| snapshots[*d].0);
        for desc in delegating {
            let (mi, member, snap) = &snapshots[desc];
            let Some((mut code, next_local, body)) = inlined(&snapshots, desc, 0)? else {
                continue;
            };
            let mctx = MethodContext {
                class_name: &name,
                name: "<init>",
                descriptor: desc,
                is_static: false,
                major_version: class.major_version,
            };
            let mut mw = MethodWeave {
                weaver: self,
                cls: &cls,
                member,
                code: &mut code,
                pool: &mut edit.pool,
                statics: &mut statics,
                next_local,
                free_temps: Vec::new(),
                taken_temps: None,
                label_at: Default::default(),
                replacements: Vec::new(),
                outcome: &mut outcome,
                changed: false,
                added: &mut added,
                major_version: class.major_version,
                snapshot: None,
            };
            mw.weave_initialization(body, &snap.esp, snap.first_line)?;
            if !mw.changed {
                continue;
            }
            mw.code.prune_tables();
            code.set_stack_map(0, None);
            frames::compute(&mut code, &mctx, &mut edit.pool, index)?;
            let m = &class.methods[*mi];
            let attr = m.attribute("Code").expect("constructor with code");
            let mut out = Vec::new();
            code.write_attribute(attr.name_index, &code.layout(), &mut out)?;
            edit.methods.insert(*mi, method_with_code(m, &out));
        }
        // A static initialization join point for classes without <clinit>, as ajc has.
        let has_clinit = class
            .methods
            .iter()
            .any(|m| class.member_name(m).is_ok_and(|n| n == "<clinit>"));
        if !has_clinit && class.access & 0x0200 == 0 {
            let member = MemberData {
                name: "<clinit>".to_string(),
                descriptor: "()V".to_string(),
                access: ACC_STATIC,
                annotations: Vec::new(),
                exceptions: Vec::new(),
            };
            let mut code = Code::empty();
            code.insns.push(Insn::Simple(op::RETURN));
            let mctx = MethodContext {
                class_name: &name,
                name: "<clinit>",
                descriptor: "()V",
                is_static: true,
                major_version: class.major_version,
            };
            let mut mw = MethodWeave {
                weaver: self,
                cls: &cls,
                member: &member,
                code: &mut code,
                pool: &mut edit.pool,
                statics: &mut statics,
                next_local: 0,
                free_temps: Vec::new(),
                taken_temps: None,
                label_at: Default::default(),
                replacements: Vec::new(),
                outcome: &mut outcome,
                changed: false,
                added: &mut added,
                major_version: class.major_version,
                snapshot: None,
            };
            mw.weave(&mctx)?;
            if mw.changed {
                frames::compute(&mut code, &mctx, &mut edit.pool, index)?;
                let code_name = edit.pool.utf8("Code")?;
                let mut m = Vec::new();
                m.extend_from_slice(&ACC_STATIC.to_be_bytes());
                m.extend_from_slice(&edit.pool.utf8("<clinit>")?.to_be_bytes());
                m.extend_from_slice(&edit.pool.utf8("()V")?.to_be_bytes());
                m.extend_from_slice(&1u16.to_be_bytes());
                code.write_attribute(code_name, &code.layout(), &mut m)?;
                added.push(m);
            }
        }
        edit.added_methods.append(&mut added);
        if !edit.methods.is_empty() || !edit.added_methods.is_empty() {
            outcome.bytes = Some(write_class(&class, &edit));
        }
        if !statics.is_empty() {
            match statics.build(index) {
                Ok(extra) => outcome.extra = Some((statics.class_name.clone(), extra)),
                // Too many static parts for one class (constant pool, code size):
                // the class is left unwoven, and says so.
                Err(e) => {
                    outcome.bytes = None;
                    outcome.advised.clear();
                    outcome.advice_hits.iter_mut().for_each(|h| *h = 0);
                    outcome
                        .skipped_methods
                        .push(e.in_class(format!("{name} (the whole class)").as_str()));
                }
            }
        }
        Ok(outcome)
    }
}

/// The constructor with descriptor `desc` with its `this(..)` calls inlined
/// (recursively): its code, next free local, and the label right after the
/// `super(..)` call. `None` when a delegated constructor is missing.
fn inlined(
    snapshots: &HashMap<String, (usize, MemberData, CtorSnapshot)>,
    desc: &str,
    depth: usize,
) -> Result<Option<(Code, u16, Label)>> {
    let Some((_, _, s)) = snapshots.get(desc) else {
        return Ok(None);
    };
    let Some(t) = &s.this_call else {
        return Ok(Some((s.code.clone(), s.next_local, s.body_marker)));
    };
    if depth > 32 {
        return Ok(None); // a cycle of this(..) calls: not valid Java
    }
    let Some((tc, tn, tl)) = inlined(snapshots, t, depth + 1)? else {
        return Ok(None);
    };
    let mut k = s.code.clone();
    let at = k
        .insns
        .iter()
        .position(|i| *i == Insn::Label(s.body_marker))
        .expect("body marker placed")
        - 1;
    let mapped = inline::inline_constructor(&mut k, at, &tc, t, s.next_local, tl)?;
    Ok(Some((k, s.next_local + tn, mapped)))
}

struct ClassData {
    name: String,
    access: u16,
    annotations: Vec<String>,
    source_file: String,
}

#[derive(Clone)]
struct MemberData {
    name: String,
    descriptor: String,
    access: u16,
    annotations: Vec<String>,
    exceptions: Vec<String>,
}

impl MemberData {
    fn view<'a>(&'a self, annotations: &'a [&'a str], exceptions: &'a [&'a str]) -> MemberView<'a> {
        MemberView {
            name: &self.name,
            descriptor: &self.descriptor,
            access: self.access,
            annotations,
            exceptions,
        }
    }
}

/// One shadow found in a body.
#[derive(Debug, Clone)]
struct Found {
    kind: ShadowKind,
    /// Instruction index (the call/field instruction; the first instruction of a handler).
    at: usize,
    /// Owner (internal name), name, descriptor of the subject.
    owner: String,
    name: String,
    descriptor: String,
    handler_type: Option<String>,
    /// Constructor calls: the index of the `new` (followed by `dup`) when the
    /// weaver may move it next to the call.
    new_at: Option<usize>,
}

/// Values available at a shadow, for bindings, residues and join points.
#[derive(Debug, Clone, Default)]
struct Context {
    /// `this` is in local 0 with this descriptor.
    this: Option<String>,
    /// The target: local and descriptor.
    target: Option<(u16, String)>,
    /// The arguments: locals and descriptors.
    args: Vec<(u16, String)>,
    /// The returned value: local and descriptor (set when after advice exist).
    ret: Option<(u16, String)>,
    /// The exception: local (descriptor `Ljava/lang/Throwable;` or the handler's type).
    exc: Option<(u16, String)>,
    /// The shadow's static part.
    sp: Option<StaticPartSpec>,
    /// The enclosing execution's static part.
    esp: Option<StaticPartSpec>,
    /// The subject member (declaring class, name, descriptor), for
    /// `@annotation(a)` bindings.
    subject: Option<(String, String, String)>,
    /// The local holding the shadow's one `JoinPoint` (made before the
    /// outermost advice, handed to proceed methods in their state), when some
    /// advice asks for `thisJoinPoint`.
    jp: Option<u16>,
}

struct Types<'a> {
    ctx: &'a Context,
    world: &'a IndexWorld<'a>,
}

impl Context {
    fn value(&self, s: Source) -> Option<(Option<u16>, String)> {
        match s {
            Source::This => self.this.clone().map(|d| (Some(0), d)),
            Source::Target => self.target.clone().map(|(l, d)| (Some(l), d)),
            Source::Arg { index, from_end } => {
                let n = self.args.len();
                let i = if from_end {
                    n.checked_sub(index + 1)?
                } else {
                    index
                };
                self.args.get(i).cloned().map(|(l, d)| (Some(l), d))
            }
            Source::Returning => self.ret.clone().map(|(l, d)| (Some(l), d)),
            Source::Throwing => self.exc.clone().map(|(l, d)| (Some(l), d)),
            Source::Cflow { .. }
            | Source::Annotation
            | Source::WithinAnnotation
            | Source::WithincodeAnnotation => None,
        }
    }
}

impl ShadowTypes for Types<'_> {
    fn static_type(&self, s: Source) -> Option<String> {
        self.ctx.value(s).map(|(_, d)| d)
    }
    fn arg_count(&self) -> usize {
        self.ctx.args.len()
    }
    fn assignable(&self, sub: &str, sup: &str) -> bool {
        assignable(self.world, sub, sup)
    }
}

/// Static assignability between descriptors.
fn assignable(world: &IndexWorld<'_>, sub: &str, sup: &str) -> bool {
    if sub == sup {
        return true;
    }
    let (sr, pr) = (
        sub.starts_with('L') || sub.starts_with('['),
        sup.starts_with('L') || sup.starts_with('['),
    );
    if !sr || !pr {
        return false;
    }
    if sup == "Ljava/lang/Object;" {
        return true;
    }
    match (sub.strip_prefix('['), sup.strip_prefix('[')) {
        (Some(a), Some(b)) => assignable(world, a, b),
        (Some(_), None) => sup == "Ljava/lang/Cloneable;" || sup == "Ljava/io/Serializable;",
        (None, Some(_)) => false,
        (None, None) => world.is_subtype(&plan::internal_of(sub), &plan::internal_of(sup)),
    }
}

struct MethodWeave<'w, 'p, 'c> {
    weaver: &'w Weaver<'p>,
    cls: &'c ClassData,
    member: &'c MemberData,
    code: &'c mut Code,
    pool: &'c mut PoolBuilder<'p>,
    statics: &'c mut Statics,
    next_local: u16,
    /// Temps of finished point shadows, free for the next one (a point shadow's
    /// woven code ends before the next begins): local and kind (`L`, `I`, `J`,
    /// `F`, `D`).
    free_temps: Vec<(u16, u8)>,
    /// While a point shadow is woven: the temps it took.
    taken_temps: Option<Vec<(u16, u8)>>,
    /// Where each label of the code was before the point shadows were woven.
    label_at: LabelPositions,
    /// The point shadows' woven code, put in place by
    /// [`MethodWeave::apply_replacements`].
    replacements: Vec<(usize, bool, Vec<Insn>)>,
    outcome: &'c mut ClassOutcome,
    changed: bool,
    /// Methods added to the class (proceed methods of around advice).
    added: &'c mut Vec<Vec<u8>>,
    /// Class-file version of the class.
    major_version: u16,
    /// A constructor as woven before its initialization join points, kept when
    /// some advice may apply to initialization: another constructor that
    /// delegates to it with `this(..)` may need to inline it.
    snapshot: Option<CtorSnapshot>,
}

/// See [`MethodWeave::snapshot`].
struct CtorSnapshot {
    code: Code,
    next_local: u16,
    /// Right after the `super(..)`/`this(..)` call.
    body_marker: Label,
    /// The descriptor of the constructor `this(..)` calls, if it does.
    this_call: Option<String>,
    /// The constructor's execution static part.
    esp: StaticPartSpec,
    /// The line of the constructor's first instruction.
    first_line: i32,
}

/// One advice that matched a shadow.
struct Matched<'a, 'p> {
    advice: &'a PlannedAdvice<'p>,
    residue: Residue,
}

const THROWABLE: &str = "Ljava/lang/Throwable;";

impl<'w, 'p> MethodWeave<'w, 'p, '_> {
    /// A new local for a value of type `d`. Inside a point shadow, a temp a
    /// finished point shadow used for the same kind of value is taken again:
    /// methods with thousands of shadows keep few locals (frame computation
    /// costs locals × instructions).
    fn temp(&mut self, d: &str) -> u16 {
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

    fn weave(&mut self, mctx: &MethodContext<'_>) -> Result<()> {
        let is_ctor = self.member.name == "<init>";
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
            None => 0,
        };
        self.code.insns.insert(body_start, Insn::Label(body_marker));
        let shift = |i: usize| if i >= body_start { i + 1 } else { i };
        let ctor_calls: HashMap<usize, Option<usize>> = ctor_calls
            .into_iter()
            .map(|(i, n)| (shift(i), n.map(shift)))
            .collect();
        let super_call = super_call.map(|i| if i >= body_start { i + 1 } else { i });

        let found = self.find_shadows(&ctor_calls, super_call)?;
        let line_of = lines(self.code);
        let esp = self.execution_spec(&line_of, body_start);
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
            self.weave_point(f, line, &esp)?;
        }
        self.apply_replacements();
        // The execution shadow last: it wraps everything. Bridge methods have none.
        if self.member.access & 0x0040 != 0
            && self.member.name != "<clinit>"
            && self.member.name != "<init>"
        {
            self.code.prune_tables();
            return Ok(());
        }
        let kind = match self.member.name.as_str() {
            "<init>" => ShadowKind::ConstructorExecution,
            "<clinit>" => ShadowKind::StaticInitialization,
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
                    esp: esp.clone(),
                    first_line,
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
    fn weave_initialization(
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
            ..esp.clone()
        };
        self.weave_execution(ShadowKind::Initialization, body_marker, None, &init)?;
        // The super call is still right before the body marker.
        let at = self
            .code
            .insns
            .iter()
            .position(|i| *i == Insn::Label(body_marker))
            .expect("body marker placed")
            - 1;
        let (start, end) = (self.code.new_label(), self.code.new_label());
        self.code.insns.insert(at, Insn::Label(end));
        self.code.insns.insert(0, Insn::Label(start));
        let pre = StaticPartSpec {
            kind: "preinitialization",
            line: first_line,
            ..esp.clone()
        };
        self.weave_execution(ShadowKind::PreInitialization, start, Some(end), &pre)
    }

    /// The static part of the enclosing member's execution (also the execution shadow's own).
    fn execution_spec(&self, line_of: &[i32], body_start: usize) -> StaticPartSpec {
        let cls = &self.cls;
        let m = self.member;
        let declaring = cls.name.replace('/', ".");
        // The line of the body's first instruction (labels carry the line before them).
        let first_line = line_of
            .iter()
            .zip(&self.code.insns)
            .skip(body_start)
            .find(|(l, i)| **l >= 0 && !matches!(i, Insn::Label(_)))
            .map(|(l, _)| *l)
            .unwrap_or(-1);
        let (kind, sig) = match m.name.as_str() {
            "<clinit>" => (
                "staticinitialization",
                SigSpec::Initializer {
                    access: ACC_STATIC,
                    declaring,
                },
            ),
            "<init>" => (
                "constructor-execution",
                SigSpec::Constructor {
                    access: m.access,
                    declaring,
                    descriptor: m.descriptor.clone(),
                    params: self.param_names(),
                    exceptions: dotted_list(&m.exceptions),
                },
            ),
            _ => (
                "method-execution",
                SigSpec::Method {
                    access: m.access,
                    name: m.name.clone(),
                    declaring,
                    descriptor: m.descriptor.clone(),
                    params: self.param_names(),
                    exceptions: dotted_list(&m.exceptions),
                },
            ),
        };
        StaticPartSpec {
            kind,
            sig,
            line: first_line,
        }
    }

    /// Parameter names of the woven member from its LocalVariableTable,
    /// comma-separated ("" when there is none).
    fn param_names(&self) -> String {
        if !self.weaver.reflective {
            return String::new(); // no static part is ever made
        }
        let m = self.member;
        let Ok((params, _)) = descriptor::parse_method(&m.descriptor) else {
            return String::new();
        };
        let mut slot = u16::from(m.access & ACC_STATIC == 0);
        let mut names = Vec::new();
        for p in &params {
            let mut found = None;
            for a in &self.code.attributes {
                if let CodeAttr::LocalVariables {
                    entries,
                    types: false,
                    ..
                } = a
                {
                    if let Some(v) = entries.iter().find(|v| v.index == slot) {
                        found = self.pool.utf8_at(v.name).ok().map(|s| s.into_owned());
                    }
                }
            }
            match found {
                Some(n) => names.push(n),
                None => return String::new(),
            }
            slot += emit::size(p);
        }
        names.join(",")
    }

    fn find_shadows(
        &mut self,
        ctor_calls: &HashMap<usize, Option<usize>>,
        super_call: Option<usize>,
    ) -> Result<Vec<Found>> {
        let mut out = Vec::new();
        let mut handler_starts: Vec<(Label, u16)> = self
            .code
            .handlers
            .iter()
            .filter(|h| h.catch_type != 0)
            .map(|h| (h.handler, h.catch_type))
            .collect();
        handler_starts.sort_by_key(|h| h.0);
        handler_starts.dedup_by_key(|h| h.0);
        // Kinds no pointcut can match are not even looked at.
        let could = |k| self.weaver.could_match(k);
        if !could(ShadowKind::ExceptionHandler) {
            handler_starts.clear();
        }
        let calls = could(ShadowKind::MethodCall) || could(ShadowKind::ConstructorCall);
        for (i, insn) in self.code.insns.iter().enumerate() {
            match insn {
                Insn::Label(_) if handler_starts.is_empty() => {}
                Insn::Label(l) => {
                    if let Some(&(_, ct)) = handler_starts.iter().find(|h| h.0 == *l) {
                        // The handler's first instruction.
                        let at = self.code.insns[i..]
                            .iter()
                            .position(|x| !matches!(x, Insn::Label(_)))
                            .map(|k| i + k)
                            .unwrap_or(i);
                        let t = self.pool.class_name(ct)?.into_owned();
                        if !out
                            .iter()
                            .any(|f: &Found| f.kind == ShadowKind::ExceptionHandler && f.at == at)
                        {
                            out.push(Found {
                                kind: ShadowKind::ExceptionHandler,
                                at,
                                owner: self.cls.name.clone(),
                                name: String::new(),
                                descriptor: String::new(),
                                handler_type: Some(t),
                                new_at: None,
                            });
                        }
                    }
                }
                Insn::Cp {
                    op: op::INVOKEVIRTUAL | op::INVOKESPECIAL | op::INVOKESTATIC,
                    index,
                }
                | Insn::InvokeInterface { index, .. }
                    if calls =>
                {
                    let o = insn.opcode().unwrap_or(0);
                    let r = self.pool.member_ref(*index)?;
                    let kind = if r.name == "<init>" {
                        if o != op::INVOKESPECIAL
                            || Some(i) == super_call
                            || !ctor_calls.contains_key(&i)
                        {
                            continue;
                        }
                        ShadowKind::ConstructorCall
                    } else if o == op::INVOKESPECIAL && *r.owner != *self.cls.name {
                        continue; // super.m() and I.super.m() are not call join points
                    } else {
                        ShadowKind::MethodCall
                    };
                    if !could(kind) {
                        continue;
                    }
                    out.push(Found {
                        kind,
                        at: i,
                        owner: r.owner.into_owned(),
                        name: r.name.into_owned(),
                        descriptor: r.descriptor.into_owned(),
                        handler_type: None,
                        new_at: ctor_calls.get(&i).copied().flatten(),
                    });
                }
                Insn::Cp {
                    op: o @ (op::GETSTATIC..=op::PUTFIELD),
                    index,
                } => {
                    let kind = if *o == op::GETSTATIC || *o == op::GETFIELD {
                        ShadowKind::FieldGet
                    } else {
                        ShadowKind::FieldSet
                    };
                    if !could(kind) {
                        continue;
                    }
                    let r = self.pool.member_ref(*index)?;
                    // Field sets in a constructor before the super call (outer-this) are not join points.
                    if super_call.is_some_and(|s| i < s) {
                        continue;
                    }
                    out.push(Found {
                        kind,
                        at: i,
                        owner: r.owner.into_owned(),
                        name: r.name.into_owned(),
                        descriptor: r.descriptor.into_owned(),
                        handler_type: None,
                        new_at: None,
                    });
                }
                _ => {}
            }
        }
        out.sort_by_key(|f| f.at);
        Ok(out)
    }

    /// Resolves the declaration of a called method or accessed field: declaring
    /// class, access flags, annotations, exceptions.
    fn resolve_member(
        &self,
        owner: &str,
        name: &str,
        descriptor: &str,
        field: bool,
    ) -> (String, MemberData) {
        let index = self.weaver.world.index();
        // An array type's members are Object's (clone() keeps Object's
        // `protected native` modifiers, as ajc reports them).
        let start = if owner.starts_with('[') {
            "java/lang/Object"
        } else {
            owner
        };
        let mut todo = vec![start.to_string()];
        let mut seen = HashSet::default();
        while let Some(c) = todo.pop() {
            if !seen.insert(c.clone()) {
                continue;
            }
            if let Some(d) = index.details(&c) {
                let m = if field {
                    d.field(name)
                } else {
                    d.method(name, descriptor)
                };
                if let Some(m) = m {
                    return (
                        c,
                        MemberData {
                            name: m.name.clone(),
                            descriptor: m.descriptor.clone(),
                            access: m.access,
                            annotations: m.annotations.clone(),
                            exceptions: m.exceptions.clone(),
                        },
                    );
                }
                // Interfaces after the super class chain.
                for i in d.interfaces.iter().rev() {
                    todo.insert(0, i.clone());
                }
                if let Some(s) = &d.super_name {
                    todo.push(s.clone());
                }
            }
        }
        (
            owner.to_string(),
            MemberData {
                name: name.to_string(),
                descriptor: descriptor.to_string(),
                access: 0,
                annotations: Vec::new(),
                exceptions: Vec::new(),
            },
        )
    }

    fn class_data(&self, name: &str) -> ClassData {
        match self.weaver.world.index().details(name) {
            Some(d) => ClassData {
                name: name.to_string(),
                access: d.access,
                annotations: d.annotations.clone(),
                source_file: String::new(),
            },
            None => ClassData {
                name: name.to_string(),
                access: 0,
                annotations: Vec::new(),
                source_file: String::new(),
            },
        }
    }

    /// The advice matching a shadow, lowest precedence (innermost) first, with
    /// their residual tests. Also records `declare` hits.
    /// `matched` without its around advice, each noted as "<advice>: around
    /// advice <what>" (once per class).
    fn without_around(
        &mut self,
        matched: Vec<Matched<'w, 'p>>,
        what: &str,
    ) -> Vec<Matched<'w, 'p>> {
        let (around, rest): (Vec<_>, Vec<_>) =
            matched.into_iter().partition(|m| is_around(m.advice));
        for m in &around {
            let note = format!("{}: around advice {what}", describe_short(m.advice));
            if !self.outcome.notes.contains(&note) {
                self.outcome.notes.push(note);
            }
        }
        rest
    }

    fn matching(
        &mut self,
        kind: ShadowKind,
        subject_class: &ClassData,
        subject: &MemberData,
        handler_type: Option<&str>,
        ctx: &Context,
        line: i32,
    ) -> Vec<Matched<'w, 'p>> {
        let weaver: &'w Weaver<'p> = self.weaver;
        let ca: Vec<&str> = self.cls.annotations.iter().map(|s| s.as_str()).collect();
        let ma: Vec<&str> = self.member.annotations.iter().map(|s| s.as_str()).collect();
        let me: Vec<&str> = self.member.exceptions.iter().map(|s| s.as_str()).collect();
        let sa: Vec<&str> = subject_class
            .annotations
            .iter()
            .map(|s| s.as_str())
            .collect();
        let xa: Vec<&str> = subject.annotations.iter().map(|s| s.as_str()).collect();
        let xe: Vec<&str> = subject.exceptions.iter().map(|s| s.as_str()).collect();
        let shadow = Shadow {
            kind,
            enclosing_class: ClassView {
                name: &self.cls.name,
                access: self.cls.access,
                annotations: &ca,
            },
            enclosing_member: self.member.view(&ma, &me),
            subject_class: ClassView {
                name: &subject_class.name,
                access: subject_class.access,
                annotations: &sa,
            },
            subject: subject.view(&xa, &xe),
            handler_type,
        };
        let world = &weaver.world;
        for (pc, is_error, message) in &weaver.declares {
            if pc.matches(&shadow, world) == Fuzzy::Yes {
                let location = format!(
                    "{}:{}",
                    if self.cls.source_file.is_empty() {
                        &self.cls.name
                    } else {
                        &self.cls.source_file
                    },
                    line
                );
                let hit = DeclareHit {
                    is_error: *is_error,
                    message: message.clone(),
                    location,
                };
                if !self.outcome.declares.contains(&hit) {
                    self.outcome.declares.push(hit);
                }
            }
        }
        let types = Types { ctx, world };
        let mut out = Vec::new();
        for a in weaver.advice.iter().rev() {
            let fz = a.pointcut.matches(&shadow, world);
            if fz == Fuzzy::No {
                continue;
            }
            let mut r = if fz == Fuzzy::Yes {
                Residue::True
            } else {
                match plan::residue(a, &shadow, &types, world) {
                    Some(r) => r,
                    None => continue,
                }
            };
            // The returned value or exception must have the formal's type.
            let kind_of_advice = match &a.entry {
                Some(_) => &AdviceKind::Before,
                None => &a.resolved.kind,
            };
            match kind_of_advice {
                AdviceKind::AfterReturning(Some(_)) => {
                    let want = a.method.formal_types.last().cloned().unwrap_or_default();
                    match ctx.ret.as_ref().map(|(_, d)| d.as_str()) {
                        // ajc never binds a value returned by a constructor execution.
                        _ if kind == ShadowKind::ConstructorExecution => continue,
                        None | Some("V") => {
                            if !(want.starts_with('L') || want.starts_with('[')) {
                                continue;
                            }
                        }
                        Some(have) => {
                            let boxed_to_object =
                                emit::is_primitive(have) && want == "Ljava/lang/Object;";
                            if !boxed_to_object
                                && !assignable(world, have, &want)
                                && !widens(have, &want)
                            {
                                if have.starts_with('L') || have.starts_with('[') {
                                    r = Residue::And(
                                        Box::new(r),
                                        Box::new(Residue::InstanceOf(
                                            Source::Returning,
                                            plan::internal_of(&want),
                                        )),
                                    );
                                } else if have != want {
                                    continue;
                                }
                            }
                        }
                    }
                }
                AdviceKind::AfterThrowing(Some(_)) => {
                    let want = a.method.formal_types.last().cloned().unwrap_or_default();
                    // A checked exception type only matches where it is declared:
                    // some declared exception is that type or a subtype (ajc's rule).
                    let w = plan::internal_of(&want);
                    let unchecked = |c: &str| {
                        world.is_subtype(c, "java/lang/RuntimeException")
                            || world.is_subtype(c, "java/lang/Error")
                    };
                    let covers_unchecked = world.is_subtype("java/lang/RuntimeException", &w)
                        || world.is_subtype("java/lang/Error", &w);
                    if !unchecked(&w) && !covers_unchecked {
                        let declares = matches!(
                            kind,
                            ShadowKind::MethodCall
                                | ShadowKind::ConstructorCall
                                | ShadowKind::MethodExecution
                                | ShadowKind::ConstructorExecution
                        );
                        let related =
                            declares && subject.exceptions.iter().any(|d| world.is_subtype(d, &w));
                        if !related {
                            continue;
                        }
                    }
                    if want != THROWABLE {
                        r = Residue::And(
                            Box::new(r),
                            Box::new(Residue::InstanceOf(
                                Source::Throwing,
                                plan::internal_of(&want),
                            )),
                        );
                    }
                }
                _ => {}
            }
            if kind == ShadowKind::ExceptionHandler
                && (a.entry.is_some() || !matches!(a.resolved.kind, AdviceKind::Before))
            {
                continue; // only before advice applies to handlers, as in AspectJ
            }
            if is_around(a) {
                let why = if matches!(
                    kind,
                    ShadowKind::Initialization | ShadowKind::PreInitialization
                ) {
                    Some(
                        "around advice on initialization and preinitialization is not \
                         supported (as in ajc)",
                    )
                } else if self.major_version < 51 || self.cls.access & 0x0200 != 0 {
                    Some(
                        "around advice needs class-file version 51+ and a class (not an interface)",
                    )
                } else {
                    None
                };
                if let Some(why) = why {
                    let note = format!(
                        "{}: {} at {}:{}",
                        describe_short(a),
                        why,
                        self.cls.name,
                        line
                    );
                    if !self.outcome.notes.contains(&note) {
                        self.outcome.notes.push(note);
                    }
                    continue;
                }
            }
            out.push(Matched {
                advice: a,
                residue: r,
            });
        }
        out
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

    /// Weaves a call site, field access or handler entry; its temps are free for
    /// the next point shadow afterwards.
    fn weave_point(&mut self, f: &Found, line: i32, esp: &StaticPartSpec) -> Result<()> {
        self.taken_temps = Some(Vec::new());
        let r = self.weave_point_with_temps(f, line, esp);
        let taken = self.taken_temps.take().unwrap_or_default();
        self.free_temps.extend(taken);
        r
    }

    fn weave_point_with_temps(&mut self, f: &Found, line: i32, esp: &StaticPartSpec) -> Result<()> {
        let (decl, subject) = match f.kind {
            ShadowKind::ExceptionHandler => (
                self.cls.name.clone(),
                MemberData {
                    name: self.member.name.clone(),
                    descriptor: self.member.descriptor.clone(),
                    access: self.member.access,
                    annotations: self.member.annotations.clone(),
                    exceptions: self.member.exceptions.clone(),
                },
            ),
            // Nothing looks at the declaration: what the instruction says is enough.
            _ if !self.weaver.detail_kinds.contains(&f.kind) => {
                let opcode = self.code.insns[f.at].opcode().unwrap_or(0);
                let is_static = matches!(opcode, op::INVOKESTATIC | op::GETSTATIC | op::PUTSTATIC);
                (
                    f.owner.clone(),
                    MemberData {
                        name: f.name.clone(),
                        descriptor: f.descriptor.clone(),
                        access: if is_static { ACC_STATIC } else { 0 },
                        annotations: Vec::new(),
                        exceptions: Vec::new(),
                    },
                )
            }
            ShadowKind::FieldGet | ShadowKind::FieldSet => {
                self.resolve_member(&f.owner, &f.name, &f.descriptor, true)
            }
            _ => self.resolve_member(&f.owner, &f.name, &f.descriptor, false),
        };
        // AspectJ names the static type of the reference as the declaring type of a call.
        let subject_class = if self.weaver.detail_kinds.contains(&f.kind) {
            self.class_data(&f.owner)
        } else {
            ClassData {
                name: f.owner.clone(),
                access: 0,
                annotations: Vec::new(),
                source_file: String::new(),
            }
        };
        let insn = self.code.insns[f.at].clone();
        let opcode = insn.opcode().unwrap_or(0);
        let is_static_target = matches!(opcode, op::INVOKESTATIC | op::GETSTATIC | op::PUTSTATIC)
            || f.kind == ShadowKind::ConstructorCall;
        let this = (self.member.access & ACC_STATIC == 0).then(|| format!("L{};", self.cls.name));
        // Operand descriptors (bottom to top) and the result.
        let (target_desc, arg_descs, result): (Option<String>, Vec<String>, Option<String>) =
            match f.kind {
                ShadowKind::MethodCall | ShadowKind::ConstructorCall => {
                    let (params, ret) = descriptor::parse_method(&f.descriptor)?;
                    let target = (!is_static_target).then(|| {
                        if f.owner.starts_with('[') {
                            f.owner.clone()
                        } else {
                            format!("L{};", f.owner)
                        }
                    });
                    let result = if f.kind == ShadowKind::ConstructorCall {
                        Some(format!("L{};", f.owner))
                    } else {
                        (ret != "V").then(|| ret.to_string())
                    };
                    (
                        target,
                        params.iter().map(|p| p.to_string()).collect(),
                        result,
                    )
                }
                ShadowKind::FieldGet => (
                    (!is_static_target).then(|| format!("L{};", f.owner)),
                    Vec::new(),
                    Some(f.descriptor.clone()),
                ),
                ShadowKind::FieldSet => (
                    (!is_static_target).then(|| format!("L{};", f.owner)),
                    vec![f.descriptor.clone()],
                    None,
                ),
                _ => (
                    None,
                    vec![format!("L{};", f.handler_type.clone().unwrap_or_default())],
                    None,
                ),
            };
        let kind_name = kind_name(f.kind);
        let declaring = decl.replace('/', ".");
        let sig = match f.kind {
            ShadowKind::MethodCall => SigSpec::Method {
                access: subject.access,
                name: f.name.clone(),
                declaring: f.owner.replace('/', "."),
                descriptor: f.descriptor.clone(),
                params: String::new(),
                exceptions: dotted_list(&subject.exceptions),
            },
            ShadowKind::ConstructorCall => SigSpec::Constructor {
                access: subject.access,
                declaring,
                descriptor: f.descriptor.clone(),
                params: String::new(),
                exceptions: dotted_list(&subject.exceptions),
            },
            ShadowKind::FieldGet | ShadowKind::FieldSet => SigSpec::Field {
                access: subject.access,
                name: f.name.clone(),
                declaring,
                descriptor: f.descriptor.clone(),
            },
            _ => SigSpec::Catch {
                declaring: self.cls.name.replace('/', "."),
                exception: f.handler_type.clone().unwrap_or_default().replace('/', "."),
                param: String::new(),
            },
        };
        // Temps for the operands, allocated only if something matches.
        let mut ctx = Context {
            this,
            sp: Some(StaticPartSpec {
                kind: kind_name,
                sig,
                line,
            }),
            esp: Some(esp.clone()),
            subject: Some((
                decl.clone(),
                subject.name.clone(),
                subject.descriptor.clone(),
            )),
            ..Default::default()
        };
        // Provisional context (locals assigned below) for matching.
        ctx.target = target_desc.clone().map(|d| (0, d));
        ctx.args = arg_descs.iter().map(|d| (0, d.clone())).collect();
        if f.kind == ShadowKind::ExceptionHandler {
            ctx.exc = None;
        }
        ctx.ret = result
            .clone()
            .map(|d| (0, d))
            .or(Some((0, "V".to_string())));
        if f.kind == ShadowKind::FieldSet || f.kind == ShadowKind::ExceptionHandler {
            ctx.ret = Some((0, "V".to_string()));
        }
        ctx.exc = Some((0, THROWABLE.to_string()));
        let matched = self.matching(
            f.kind,
            &subject_class,
            &subject,
            f.handler_type.as_deref(),
            &ctx,
            line,
        );
        // A constructor call whose `new; dup` can move is woven as one unit
        // (`new; dup; args; invokespecial`), so the new object is a value (for
        // after returning, around); otherwise around advice cannot apply.
        let moves_new = f.kind == ShadowKind::ConstructorCall && f.new_at.is_some();
        let matched = if f.kind == ShadowKind::ConstructorCall && !moves_new {
            let what = format!(
                "on this constructor call at {}:{line} is not supported (its `new` is not \
                 followed by `dup`)",
                self.cls.name
            );
            self.without_around(matched, &what)
        } else {
            // A call of a caller-sensitive method may move into a proceed method:
            // its caller is then that method, of the same class, so
            // `getCallerClass()` gives the same answer.
            matched
        };
        if matched.is_empty() {
            return Ok(());
        }
        // Real temps.
        let mut pre_store = Vec::new();
        let mut reload = Vec::new();
        if f.kind == ShadowKind::ExceptionHandler {
            let t = self.temp(&arg_descs[0]);
            pre_store.push(Insn::Simple(op::DUP));
            pre_store.push(emit::store(&arg_descs[0], t));
            ctx.args = vec![(t, arg_descs[0].clone())];
        } else {
            let mut locals = Vec::new();
            for d in target_desc.iter().chain(arg_descs.iter()) {
                locals.push((self.temp(d), d.clone()));
            }
            for (l, d) in locals.iter().rev() {
                pre_store.push(emit::store(d, *l));
            }
            for (l, d) in &locals {
                reload.push(emit::load(d, *l));
            }
            let mut it = locals.into_iter();
            if target_desc.is_some() {
                ctx.target = it.next();
            }
            ctx.args = it.collect();
        }
        let needs_ret = moves_new
            || matched
                .iter()
                .any(|m| m.advice.is_after() || is_around(m.advice));
        ctx.ret = match (&result, needs_ret) {
            (Some(d), true) => Some((self.temp(d), d.to_string())),
            (None, _) => Some((0, "V".to_string())),
            _ => None,
        };
        ctx.exc = Some((self.temp(THROWABLE), THROWABLE.to_string()));
        // The core: reload operands, the instruction, keep the result.
        let mut core = Vec::new();
        if let (true, Some(n)) = (moves_new, f.new_at) {
            core.push(self.code.insns[n].clone());
            core.push(Insn::Simple(op::DUP));
        }
        core.extend(reload);
        if f.kind != ShadowKind::ExceptionHandler {
            core.push(insn);
            if let (Some((l, d)), true) = (&ctx.ret, needs_ret) {
                if d != "V" {
                    core.push(emit::store(d, *l));
                }
            }
        }
        // The method's own handlers around this instruction also protect the
        // advice handler code at the end of the method (its rethrow, its advice).
        // (Handlers added by shadows woven before, which come later in the code,
        // have labels in their replacements or tails: they never cover `f.at`.)
        let pos = &self.label_at;
        let covering: Vec<Handler> = self
            .code
            .handlers
            .iter()
            .filter(|h| {
                pos.get(&h.start).is_some_and(|s| *s <= f.at)
                    && pos.get(&h.end).is_some_and(|e| f.at < *e)
            })
            .copied()
            .collect();
        let mut replacement = pre_store;
        self.shared_join_point(&matched, &mut ctx, &mut replacement)?;
        let layered = self.layer(&matched, &ctx, core, false)?;
        replacement.extend(layered.body);
        if let (Some((l, d)), true) = (&ctx.ret, needs_ret) {
            if d != "V" {
                replacement.push(emit::load(d, *l));
            }
        }
        // A handler's code goes before its first instruction; anything else
        // replaces the instruction.
        self.replacements
            .push((f.at, f.kind != ShadowKind::ExceptionHandler, replacement));
        if let (true, Some(n)) = (moves_new, f.new_at) {
            // The `new; dup` moved into the core; labels keep the indices.
            let (a, b) = (self.code.new_label(), self.code.new_label());
            self.code.insns[n] = Insn::Label(a);
            self.code.insns[n + 1] = Insn::Label(b);
        }
        if let (Some(first), Some(last)) = (layered.tail.first(), layered.tail.last()) {
            if let (Insn::Label(ts), Insn::Label(te)) = (first, last) {
                for h in &covering {
                    let copy = Handler {
                        start: *ts,
                        end: *te,
                        ..*h
                    };
                    let at = self
                        .code
                        .handlers
                        .iter()
                        .position(|x| x == h)
                        .map_or(self.code.handlers.len(), |p| p + 1);
                    self.code.handlers.insert(at, copy);
                }
            }
        }
        self.code.insns.extend(layered.tail);
        let mut hs = layered.handlers;
        hs.append(&mut self.code.handlers);
        self.code.handlers = hs;
        self.record(f.kind, &matched);
        Ok(())
    }

    fn record(&mut self, kind: ShadowKind, matched: &[Matched<'_, '_>]) {
        self.changed = true;
        *self.outcome.advised.entry(kind_name(kind)).or_insert(0) += 1;
        for m in matched {
            self.outcome.advice_hits[m.advice.id] += 1;
        }
    }

    /// Weaves the execution (or static initialization) of the whole body.
    /// With `end_marker`, only the code between the markers (which has no
    /// `return`, e.g. preinitialization): the join point ends where it falls
    /// through to the marker.
    fn weave_execution(
        &mut self,
        kind: ShadowKind,
        body_marker: Label,
        end_marker: Option<Label>,
        esp: &StaticPartSpec,
    ) -> Result<()> {
        let m = self.member;
        let is_static = m.access & ACC_STATIC != 0;
        let this = (!is_static).then(|| format!("L{};", self.cls.name));
        let (params, ret) = descriptor::parse_method(&m.descriptor)?;
        let mut slot = u16::from(!is_static);
        let mut args = Vec::new();
        for p in &params {
            args.push((slot, p.to_string()));
            slot += emit::size(p);
        }
        let mut ctx = Context {
            this: this.clone(),
            target: this.clone().map(|d| (0, d)),
            args,
            sp: Some(esp.clone()),
            esp: Some(esp.clone()),
            subject: Some((
                self.cls.name.clone(),
                self.member.name.clone(),
                self.member.descriptor.clone(),
            )),
            ..Default::default()
        };
        if kind == ShadowKind::StaticInitialization {
            ctx.target = None;
            ctx.args = Vec::new();
        }
        if kind == ShadowKind::PreInitialization {
            ctx.this = None;
            ctx.target = None;
        }
        ctx.ret = Some((0, ret.to_string()));
        ctx.exc = Some((0, THROWABLE.to_string()));
        // The subject is the method itself.
        let cls = self.cls;
        let mut matched = self.matching(kind, cls, m, None, &ctx, esp.line);
        if kind == ShadowKind::StaticInitialization && matched.iter().any(|m| is_around(m.advice)) {
            if let Some(field) = self.final_field_set(body_marker, op::PUTSTATIC)? {
                // The initializer would move into a proceed method, which may
                // not set it (ajc moves it and the class fails to initialize).
                let what = format!(
                    "on the static initialization of {} is not supported: the initializer \
                     sets the static final field {field}",
                    self.cls.name,
                );
                matched = self.without_around(matched, &what);
            }
        }
        if kind == ShadowKind::ConstructorExecution && matched.iter().any(|m| is_around(m.advice)) {
            if let Some(field) = self.final_field_set(body_marker, op::PUTFIELD)? {
                // The body would move into a static method, which may not set it.
                let what = format!(
                    "on the execution of {}.<init>{} is not supported: the constructor sets \
                     the final field {field}",
                    self.cls.name, self.member.descriptor,
                );
                matched = self.without_around(matched, &what);
            }
        }
        if is_caller_sensitive(&self.member.annotations) {
            // Its body would move into a proceed method, between the method and
            // the frame `Reflection.getCallerClass()` expects.
            let what = format!(
                "on the execution of caller-sensitive {}.{}{} is not supported: it would add \
                 a stack frame between the method and its caller",
                self.cls.name, self.member.name, self.member.descriptor,
            );
            matched = self.without_around(matched, &what);
        }
        if matched.is_empty() {
            return Ok(());
        }
        let needs_exit = matched
            .iter()
            .any(|m| m.advice.is_after() || is_around(m.advice) || m.advice.entry.is_some());
        let ret = if end_marker.is_some() { "V" } else { ret };
        let ret = ret.to_string();
        ctx.ret = if needs_exit && ret != "V" {
            Some((self.temp(&ret), ret.clone()))
        } else {
            Some((0, "V".to_string()))
        };
        ctx.exc = Some((self.temp(THROWABLE), THROWABLE.to_string()));
        let start = self
            .code
            .insns
            .iter()
            .position(|i| *i == Insn::Label(body_marker))
            .expect("body marker placed")
            + 1;
        let exit = self.code.new_label();
        let returns = needs_exit && end_marker.is_none();
        if returns {
            // Single exit: every return stores its value and jumps to the exit.
            let mut out = Vec::with_capacity(self.code.insns.len() + 8);
            for (i, insn) in self.code.insns.drain(..).enumerate() {
                let is_return = i >= start && matches!(insn.opcode(), Some(172..=177));
                if is_return {
                    if let Some((l, d)) = &ctx.ret {
                        if d != "V" {
                            out.push(emit::store(d, *l));
                        }
                    }
                    out.push(Insn::Jump {
                        op: op::GOTO,
                        target: exit,
                    });
                } else {
                    out.push(insn);
                }
            }
            self.code.insns = out;
        }
        // The body is the core; the layers go around it.
        let end = match end_marker {
            Some(m) => self
                .code
                .insns
                .iter()
                .position(|i| *i == Insn::Label(m))
                .expect("end marker placed"),
            None => self.code.insns.len(),
        };
        let body: Vec<Insn> = self.code.insns.drain(start..end).collect();
        let mut core = body;
        if returns {
            core.push(Insn::Label(exit));
        }
        let mut new_body = Vec::new();
        self.shared_join_point(&matched, &mut ctx, &mut new_body)?;
        let layered = self.layer(&matched, &ctx, core, end_marker.is_none())?;
        new_body.extend(layered.body);
        if returns {
            match &ctx.ret {
                Some((l, d)) if d != "V" => {
                    new_body.push(emit::load(d, *l));
                    new_body.push(Insn::Simple(return_op(d)));
                }
                _ => new_body.push(Insn::Simple(op::RETURN)),
            }
        }
        self.code.insns.splice(start..start, new_body);
        self.code.insns.extend(layered.tail);
        self.code.handlers.extend(layered.handlers);
        self.record(kind, &matched);
        Ok(())
    }

    /// Nests the advice around `core`, innermost first.
    fn layer(
        &mut self,
        matched: &[Matched<'_, '_>],
        ctx: &Context,
        core: Vec<Insn>,
        body_is_method: bool,
    ) -> Result<Layered> {
        let mut body_is_method = body_is_method;
        let mut core = core;
        let mut core_start = self.code.new_label();
        let mut core_end = self.code.new_label();
        let mut pre: Vec<Insn> = Vec::new();
        let mut post: Vec<Insn> = Vec::new();
        let mut tail: Vec<Insn> = Vec::new();
        let mut handlers: Vec<Handler> = Vec::new();
        let (mut start, mut end) = (core_start, core_end);
        let mut extra_ranges: Vec<(Label, Label)> = Vec::new();
        for m in matched {
            if let Some(entry) = &m.advice.entry {
                // Enter the control flow (remembering whether it was entered when
                // the entry has a runtime test), leave it after, however it ends.
                let flag = (m.residue != Residue::True).then(|| self.temp("I"));
                let l = self.code.new_label();
                let mut c = vec![Insn::Label(l)];
                let skip = self.code.new_label();
                if let Some(f) = flag {
                    c.push(Insn::Simple(3)); // iconst_0
                    c.push(emit::store("I", f));
                    self.jump_if(&m.residue, false, skip, m.advice, ctx, &mut c)?;
                }
                self.cflow_enter(m.advice, entry, ctx, &mut c)?;
                if let Some(f) = flag {
                    c.push(Insn::Simple(4)); // iconst_1
                    c.push(emit::store("I", f));
                }
                c.push(Insn::Label(skip));
                let inside = self.code.new_label();
                c.push(Insn::Label(inside));
                c.append(&mut pre);
                pre = c;
                let h = self.code.new_label();
                let h_end = self.code.new_label();
                for (s, e) in std::iter::once((inside, end)).chain(extra_ranges.iter().copied()) {
                    handlers.push(Handler {
                        start: s,
                        end: e,
                        handler: h,
                        catch_type: 0,
                    });
                }
                let (exc_local, _) = ctx.exc.clone().expect("exception temp");
                tail.push(Insn::Label(h));
                tail.push(emit::store(THROWABLE, exc_local));
                self.cflow_exit(entry, flag, &mut tail)?;
                tail.push(emit::load(THROWABLE, exc_local));
                tail.push(Insn::Simple(op::ATHROW));
                tail.push(Insn::Label(h_end));
                extra_ranges.push((h, h_end));
                self.cflow_exit(entry, flag, &mut post)?;
                start = l;
                end = self.code.new_label();
                post.push(Insn::Label(end));
                continue;
            }
            match &m.advice.resolved.kind {
                AdviceKind::Before => {
                    let l = self.code.new_label();
                    let mut c = vec![Insn::Label(l)];
                    self.advice_call(m, ctx, &mut c)?;
                    c.append(&mut pre);
                    pre = c;
                    start = l;
                }
                AdviceKind::AfterReturning(_) => {
                    self.advice_call(m, ctx, &mut post)?;
                    end = self.code.new_label();
                    post.push(Insn::Label(end));
                }
                AdviceKind::AfterThrowing(_) | AdviceKind::After => {
                    let h = self.code.new_label();
                    let h_end = self.code.new_label();
                    for (s, e) in std::iter::once((start, end)).chain(extra_ranges.iter().copied())
                    {
                        handlers.push(Handler {
                            start: s,
                            end: e,
                            handler: h,
                            catch_type: 0,
                        });
                    }
                    let (exc_local, _) = ctx.exc.clone().expect("exception temp");
                    tail.push(Insn::Label(h));
                    tail.push(emit::store(THROWABLE, exc_local));
                    self.advice_call(m, ctx, &mut tail)?;
                    tail.push(emit::load(THROWABLE, exc_local));
                    tail.push(Insn::Simple(op::ATHROW));
                    tail.push(Insn::Label(h_end));
                    extra_ranges.push((h, h_end));
                    if matches!(m.advice.resolved.kind, AdviceKind::After) {
                        self.advice_call(m, ctx, &mut post)?;
                        end = self.code.new_label();
                        post.push(Insn::Label(end));
                    }
                }
                AdviceKind::Around(_) => {
                    // Everything inside moves into a proceed method; the around
                    // call takes its place.
                    let mut inner = std::mem::take(&mut pre);
                    inner.push(Insn::Label(core_start));
                    inner.append(&mut core);
                    inner.push(Insn::Label(core_end));
                    inner.append(&mut post);
                    let mut inner_handlers = std::mem::take(&mut handlers);
                    if body_is_method {
                        inner_handlers.append(&mut self.code.handlers);
                        body_is_method = false;
                    }
                    let proceed = self.proceed_method(
                        m,
                        ctx,
                        inner,
                        std::mem::take(&mut tail),
                        inner_handlers,
                    )?;
                    extra_ranges.clear();
                    core_start = self.code.new_label();
                    core_end = self.code.new_label();
                    start = core_start;
                    end = core_end;
                    core = self.around_call(m, ctx, &proceed)?;
                }
            }
        }
        let mut body = pre;
        body.push(Insn::Label(core_start));
        body.extend(core);
        body.push(Insn::Label(core_end));
        body.extend(post);
        Ok(Layered {
            body,
            tail,
            handlers,
        })
    }

    /// The index of a label that is in the code.
    fn position(&self, l: Label) -> usize {
        self.code
            .insns
            .iter()
            .position(|i| *i == Insn::Label(l))
            .expect("label placed")
    }

    /// A final field of this class that the body (after `body_marker`) sets with
    /// `store` (`putfield` in a constructor, `putstatic` in `<clinit>`), if any.
    fn final_field_set(&self, body_marker: Label, store: u8) -> Result<Option<String>> {
        let start = self
            .code
            .insns
            .iter()
            .position(|i| *i == Insn::Label(body_marker))
            .unwrap_or(0);
        let details = self.weaver.world.index().details(&self.cls.name);
        for insn in &self.code.insns[start..] {
            if let Insn::Cp { op, index } = insn {
                if *op != store {
                    continue;
                }
                let r = self.pool.member_ref(*index)?;
                if *r.owner != *self.cls.name {
                    continue;
                }
                let is_final = details
                    .as_ref()
                    .and_then(|d| d.field(&r.name))
                    .is_some_and(|f| f.access & 0x0010 != 0);
                if is_final {
                    return Ok(Some(r.name.into_owned()));
                }
            }
        }
        Ok(None)
    }

    /// Enters a cflow: `counter.inc()`, or `stack.push(new Object[] { values })`.
    fn cflow_enter(
        &mut self,
        a: &PlannedAdvice<'_>,
        entry: &plan::CflowEntry,
        ctx: &Context,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        let f = &self.weaver.cflow_fields[entry.field];
        if !f.stack {
            return cflow::call(f, "inc", "()V", self.pool, out);
        }
        cflow::get_field(f, self.pool, out)?;
        emit::push_int(entry.pushed.len() as i32, self.pool, out)?;
        let obj = self.pool.class("java/lang/Object")?;
        out.push(Insn::Cp {
            op: op::ANEWARRAY,
            index: obj,
        });
        for (i, src) in entry.pushed.iter().enumerate() {
            out.push(Insn::Simple(op::DUP));
            emit::push_int(i as i32, self.pool, out)?;
            self.load_source(*src, "Ljava/lang/Object;", ctx, out)?;
            out.push(Insn::Simple(83)); // aastore
        }
        let _ = a;
        let m = self
            .pool
            .method_ref(f.class(), "push", "([Ljava/lang/Object;)V", false)?;
        out.push(Insn::Cp {
            op: op::INVOKEVIRTUAL,
            index: m,
        });
        Ok(())
    }

    /// Leaves a cflow (only if it was entered, when `flag` records that).
    fn cflow_exit(
        &mut self,
        entry: &plan::CflowEntry,
        flag: Option<u16>,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        let skip = self.code.new_label();
        if let Some(f) = flag {
            out.push(emit::load("I", f));
            out.push(Insn::Jump {
                op: 153, // ifeq
                target: skip,
            });
        }
        let f = &self.weaver.cflow_fields[entry.field];
        let name = if f.stack { "pop" } else { "dec" };
        cflow::call(f, name, "()V", self.pool, out)?;
        out.push(Insn::Label(skip));
        Ok(())
    }

    /// The join point's state as the proceed method receives it: `this`, the
    /// target, the arguments (each with its local and descriptor).
    fn state_layout(&self, ctx: &Context) -> Vec<(u16, String)> {
        let mut v = Vec::new();
        if let Some(t) = &ctx.this {
            v.push((0, t.clone()));
        }
        if let Some((l, d)) = &ctx.target {
            if ctx.this.is_none() || *l != 0 {
                v.push((*l, d.clone()));
            }
        }
        v.extend(ctx.args.iter().cloned());
        if let Some(l) = ctx.jp {
            v.push((l, JOIN_POINT.to_string()));
        }
        v
    }

    /// Moves `inner` (with its handler code and handlers) into a new private
    /// static method `(Object[] state, Object[] formals) -> Object` that unpacks
    /// the state into the same locals, lets the around advice's formals override
    /// what they bind, runs the code and returns the result boxed. Returns the
    /// method's name.
    fn proceed_method(
        &mut self,
        m: &Matched<'_, '_>,
        ctx: &Context,
        inner: Vec<Insn>,
        tail: Vec<Insn>,
        handlers: Vec<Handler>,
    ) -> Result<String> {
        let name = format!("major$proceed${}", self.outcome.proceed_methods);
        self.outcome.proceed_methods += 1;
        let desc = "([Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;";
        let mut p = self.code.sibling();
        let state_local = self.temp("Ljava/lang/Object;");
        let formals_local = self.temp("Ljava/lang/Object;");
        let mut out = vec![
            Insn::Local {
                op: op::ALOAD,
                index: 0,
                wide: false,
            },
            emit::store("[Ljava/lang/Object;", state_local),
            Insn::Local {
                op: op::ALOAD,
                index: 1,
                wide: false,
            },
            emit::store("[Ljava/lang/Object;", formals_local),
        ];
        let layout = self.state_layout(ctx);
        for (i, (l, d)) in layout.iter().enumerate() {
            out.push(emit::load("[Ljava/lang/Object;", state_local));
            emit::push_int(i as i32, self.pool, &mut out)?;
            out.push(Insn::Simple(op::AALOAD));
            emit::convert("Ljava/lang/Object;", d, true, self.pool, &mut out)?;
            out.push(emit::store(d, *l));
        }
        // Formals passed to proceed(..) replace the values they were bound to.
        let skip = p.new_label();
        out.push(emit::load("[Ljava/lang/Object;", formals_local));
        out.push(Insn::Jump {
            op: op::IFNULL,
            target: skip,
        });
        for (k, src) in m.advice.binds.iter().enumerate() {
            let Some(src) = src else { continue };
            let Some((Some(l), d)) = ctx.value(*src) else {
                continue;
            };
            out.push(emit::load("[Ljava/lang/Object;", formals_local));
            emit::push_int(k as i32, self.pool, &mut out)?;
            out.push(Insn::Simple(op::AALOAD));
            emit::convert("Ljava/lang/Object;", &d, true, self.pool, &mut out)?;
            out.push(emit::store(&d, l));
            if *src == Source::This && ctx.target.as_ref().is_some_and(|(tl, _)| *tl == 0) {
                // For executions this and target are one local.
            }
        }
        out.push(Insn::Label(skip));
        out.extend(inner);
        match &ctx.ret {
            Some((l, d)) if d != "V" => {
                out.push(emit::load(d, *l));
                if emit::is_primitive(d) {
                    emit::boxing(d.chars().next().unwrap_or('I'), self.pool, &mut out)?;
                }
            }
            _ => out.push(Insn::Simple(op::ACONST_NULL)),
        }
        out.push(Insn::Simple(176)); // areturn
        out.extend(tail);
        p.insns = out;
        p.handlers = handlers;
        p.attributes = self
            .code
            .attributes
            .iter()
            .filter(|a| matches!(a, CodeAttr::LineNumbers { .. }))
            .cloned()
            .collect();
        p.prune_tables();
        let class_name = self.cls.name.clone();
        let ctx_m = MethodContext {
            class_name: &class_name,
            name: &name,
            descriptor: desc,
            is_static: true,
            major_version: self.major_version,
        };
        frames::compute(&mut p, &ctx_m, self.pool, self.weaver.world.index())?;
        let code_name = self.pool.utf8("Code")?;
        let mut method = Vec::new();
        method.extend_from_slice(&0x100Au16.to_be_bytes()); // private static synthetic
        method.extend_from_slice(&self.pool.utf8(&name)?.to_be_bytes());
        method.extend_from_slice(&self.pool.utf8(desc)?.to_be_bytes());
        method.extend_from_slice(&1u16.to_be_bytes());
        p.write_attribute(code_name, &p.layout(), &mut method)?;
        self.added.push(method);
        Ok(name)
    }

    /// The around advice call that replaces the code moved into `proceed`: packs
    /// the state, makes the closure, calls the advice (or, when its runtime test
    /// fails, the proceed method directly), and stores the result.
    fn around_call(
        &mut self,
        m: &Matched<'_, '_>,
        ctx: &Context,
        proceed: &str,
    ) -> Result<Vec<Insn>> {
        let a = m.advice;
        let mut out = Vec::new();
        let state_local = self.temp("Ljava/lang/Object;");
        let layout = self.state_layout(ctx);
        emit::push_int(layout.len() as i32, self.pool, &mut out)?;
        let obj = self.pool.class("java/lang/Object")?;
        out.push(Insn::Cp {
            op: op::ANEWARRAY,
            index: obj,
        });
        for (i, (l, d)) in layout.iter().enumerate() {
            out.push(Insn::Simple(op::DUP));
            emit::push_int(i as i32, self.pool, &mut out)?;
            out.push(emit::load(d, *l));
            if emit::is_primitive(d) {
                emit::boxing(d.chars().next().unwrap_or('I'), self.pool, &mut out)?;
            }
            out.push(Insn::Simple(83)); // aastore
        }
        out.push(emit::store("[Ljava/lang/Object;", state_local));
        let result = ctx.ret.clone().filter(|(_, d)| d != "V");
        let direct = self.code.new_label();
        let done = self.code.new_label();
        if m.residue != Residue::True {
            self.jump_if(&m.residue, false, direct, a, ctx, &mut out)?;
        }
        let aspect = a.aspect_class.as_str();
        let aspect_of = self
            .pool
            .method_ref(aspect, "aspectOf", &a.aspect_of, false)?;
        out.push(Insn::Cp {
            op: op::INVOKESTATIC,
            index: aspect_of,
        });
        let (params, advice_ret) = descriptor::parse_method(&a.method.descriptor)?;
        let params: Vec<String> = params.iter().map(|p| p.to_string()).collect();
        let advice_ret = advice_ret.to_string();
        for (k, p) in a.method.params.iter().enumerate() {
            let want = params.get(k).map_or("", String::as_str);
            match *p {
                crate::aspects::Param::Formal(slot) => {
                    let src = a.binds.get(slot).copied().flatten();
                    let want = a.method.formal_types.get(slot).map_or(want, String::as_str);
                    self.load_source(src, want, ctx, &mut out)?;
                }
                crate::aspects::Param::Extra(Extra::AroundClosure) => {
                    self.closure(proceed, state_local, &mut out)?;
                }
                crate::aspects::Param::Extra(Extra::JoinPoint) => {
                    self.proceeding_join_point(m, ctx, proceed, &mut out)?;
                }
                crate::aspects::Param::Extra(e) => self.push_param_extra(e, want, ctx, &mut out)?,
            }
        }
        let mref = self
            .pool
            .method_ref(aspect, &a.method.name, &a.method.descriptor, false)?;
        out.push(Insn::Cp {
            op: op::INVOKEVIRTUAL,
            index: mref,
        });
        // The advice's result becomes the join point's.
        match (&result, advice_ret.as_str()) {
            (None, "V") => {}
            (None, r) => out.push(emit::pop(r)),
            (Some((_, d)), "V") => push_default(d, &mut out),
            (Some((_, d)), r) => {
                let cast = !assignable(&self.weaver.world, r, d);
                emit::convert(r, d, cast, self.pool, &mut out)?;
            }
        }
        if let Some((l, d)) = &result {
            out.push(emit::store(d, *l));
        }
        if m.residue != Residue::True {
            out.push(Insn::Jump {
                op: op::GOTO,
                target: done,
            });
            out.push(Insn::Label(direct));
            out.push(emit::load("[Ljava/lang/Object;", state_local));
            out.push(Insn::Simple(op::ACONST_NULL));
            let pm = self.pool.method_ref(
                &self.cls.name.clone(),
                proceed,
                "([Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;",
                false,
            )?;
            out.push(Insn::Cp {
                op: op::INVOKESTATIC,
                index: pm,
            });
            match &result {
                Some((l, d)) => {
                    emit::convert("Ljava/lang/Object;", d, true, self.pool, &mut out)?;
                    out.push(emit::store(d, *l));
                }
                None => out.push(Insn::Simple(op::POP)),
            }
            out.push(Insn::Label(done));
        }
        Ok(out)
    }

    /// `new MethodHandleClosure(MethodHandles.insertArguments(<proceed>, 0, state))`.
    fn closure(&mut self, proceed: &str, state_local: u16, out: &mut Vec<Insn>) -> Result<()> {
        const CLOSURE: &str = "major/runtime/MethodHandleClosure";
        let c = self.pool.class(CLOSURE)?;
        out.push(Insn::Cp {
            op: op::NEW,
            index: c,
        });
        out.push(Insn::Simple(op::DUP));
        let pm = self.pool.method_ref(
            &self.cls.name.clone(),
            proceed,
            "([Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;",
            false,
        )?;
        let mh = self.pool.method_handle(6, pm)?; // REF_invokeStatic
        out.push(Insn::Ldc {
            index: mh,
            wide: mh > 255,
        });
        out.push(Insn::Simple(3)); // iconst_0
        out.push(Insn::Simple(4)); // iconst_1
        let obj = self.pool.class("java/lang/Object")?;
        out.push(Insn::Cp {
            op: op::ANEWARRAY,
            index: obj,
        });
        out.push(Insn::Simple(op::DUP));
        out.push(Insn::Simple(3));
        out.push(emit::load("[Ljava/lang/Object;", state_local));
        out.push(Insn::Simple(83)); // aastore
        let ins = self.pool.method_ref(
            "java/lang/invoke/MethodHandles",
            "insertArguments",
            "(Ljava/lang/invoke/MethodHandle;I[Ljava/lang/Object;)Ljava/lang/invoke/MethodHandle;",
            false,
        )?;
        out.push(Insn::Cp {
            op: op::INVOKESTATIC,
            index: ins,
        });
        let init = self.pool.method_ref(
            CLOSURE,
            "<init>",
            "(Ljava/lang/invoke/MethodHandle;)V",
            false,
        )?;
        out.push(Insn::Cp {
            op: op::INVOKESPECIAL,
            index: init,
        });
        Ok(())
    }

    /// `if (residue) Aspect.aspectOf().advice(args...)`.
    fn advice_call(
        &mut self,
        m: &Matched<'_, '_>,
        ctx: &Context,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        let a = m.advice;
        let skip = self.code.new_label();
        let has_test = m.residue != Residue::True;
        if has_test {
            self.jump_if(&m.residue, false, skip, a, ctx, out)?;
        }
        let aspect = a.aspect_class.as_str();
        let aspect_of = self
            .pool
            .method_ref(aspect, "aspectOf", &a.aspect_of, false)?;
        out.push(Insn::Cp {
            op: op::INVOKESTATIC,
            index: aspect_of,
        });
        let (params, _) = descriptor::parse_method(&a.method.descriptor)?;
        let params: Vec<String> = params.iter().map(|p| p.to_string()).collect();
        for (k, p) in a.method.params.iter().enumerate() {
            let want = params.get(k).map_or("", String::as_str);
            match *p {
                crate::aspects::Param::Formal(slot) => {
                    let src = a.binds.get(slot).copied().flatten();
                    let want = a.method.formal_types.get(slot).map_or(want, String::as_str);
                    self.load_source(src, want, ctx, out)?;
                }
                crate::aspects::Param::Extra(e) => self.push_param_extra(e, want, ctx, out)?,
            }
        }
        let mref = self
            .pool
            .method_ref(aspect, &a.method.name, &a.method.descriptor, false)?;
        out.push(Insn::Cp {
            op: op::INVOKEVIRTUAL,
            index: mref,
        });
        let ret = descriptor::parse_method(&a.method.descriptor)?
            .1
            .to_string();
        if ret != "V" {
            out.push(emit::pop(&ret));
        }
        if has_test {
            out.push(Insn::Label(skip));
        }
        Ok(())
    }

    /// Loads the value of a formal (converted to `want`), or a default for an
    /// unbound one.
    fn load_source(
        &mut self,
        src: Option<Source>,
        want: &str,
        ctx: &Context,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        if let Some(Source::Cflow { field, index }) = src {
            // The innermost entry's value: stack.get(index).
            let f = &self.weaver.cflow_fields[field];
            cflow::get_field(f, self.pool, out)?;
            emit::push_int(index as i32, self.pool, out)?;
            let m = self
                .pool
                .method_ref(f.class(), "get", "(I)Ljava/lang/Object;", false)?;
            out.push(Insn::Cp {
                op: op::INVOKEVIRTUAL,
                index: m,
            });
            return emit::convert("Ljava/lang/Object;", want, true, self.pool, out);
        }
        if let (Some(Source::Annotation), Some((owner, name, desc))) = (src, &ctx.subject) {
            let annotation = plan::internal_of(want);
            self.statics
                .annotation(owner, name, desc, &annotation, self.pool, out)?;
            return emit::convert(
                "Ljava/lang/annotation/Annotation;",
                want,
                true,
                self.pool,
                out,
            );
        }
        if let Some(s @ (Source::WithinAnnotation | Source::WithincodeAnnotation)) = src {
            let member = (s == Source::WithincodeAnnotation)
                .then(|| (self.member.name.as_str(), self.member.descriptor.as_str()));
            let annotation = plan::internal_of(want);
            self.statics.enclosing_annotation(
                &self.cls.name,
                member,
                &annotation,
                self.pool,
                out,
            )?;
            return emit::convert(
                "Ljava/lang/annotation/Annotation;",
                want,
                true,
                self.pool,
                out,
            );
        }
        let value = src.and_then(|s| ctx.value(s));
        match value {
            Some((_, d)) if d == "V" => out.push(Insn::Simple(op::ACONST_NULL)),
            Some((Some(l), d)) => {
                out.push(emit::load(&d, l));
                let cast = !assignable(&self.weaver.world, &d, want);
                emit::convert(&d, want, cast, self.pool, out)?;
            }
            _ => match want.as_bytes()[0] {
                b'J' => out.push(Insn::Simple(9)),
                b'F' => out.push(Insn::Simple(11)),
                b'D' => out.push(Insn::Simple(14)),
                b'L' | b'[' => out.push(Insn::Simple(op::ACONST_NULL)),
                _ => out.push(Insn::Simple(3)),
            },
        }
        Ok(())
    }

    /// Pushes the value of an extra advice (or `if`) parameter.
    fn push_extra(&mut self, e: Extra, ctx: &Context, out: &mut Vec<Insn>) -> Result<()> {
        match e {
            Extra::StaticPart => {
                self.statics
                    .get(ctx.sp.clone().expect("static part"), self.pool, out)
            }
            Extra::EnclosingStaticPart => self.statics.get(
                ctx.esp.clone().expect("enclosing static part"),
                self.pool,
                out,
            ),
            Extra::JoinPoint => self.join_point(ctx, out),
            Extra::AroundClosure => {
                out.push(Insn::Simple(op::ACONST_NULL));
                Ok(())
            }
        }
    }

    /// Pushes the value of extra parameter `e` of an advice method whose parameter
    /// has descriptor `param`: a join point cast to `ProceedingJoinPoint` for such a
    /// parameter, an enclosing static part made an `EnclosingStaticPart` for such
    /// a parameter (annotation style).
    fn push_param_extra(
        &mut self,
        e: Extra,
        param: &str,
        ctx: &Context,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        self.push_extra(e, ctx, out)?;
        match (e, param) {
            (Extra::JoinPoint, "Lorg/aspectj/lang/ProceedingJoinPoint;") => {
                let c = self.pool.class("org/aspectj/lang/ProceedingJoinPoint")?;
                out.push(Insn::Cp {
                    op: op::CHECKCAST,
                    index: c,
                });
            }
            (Extra::EnclosingStaticPart, "Lorg/aspectj/lang/JoinPoint$EnclosingStaticPart;") => {
                let m = self.pool.method_ref(
                    statics::FACTORY,
                    "enclosing",
                    "(Lorg/aspectj/lang/JoinPoint$StaticPart;)Lorg/aspectj/lang/JoinPoint$EnclosingStaticPart;",
                    false,
                )?;
                out.push(Insn::Cp {
                    op: op::INVOKESTATIC,
                    index: m,
                });
            }
            _ => {}
        }
        Ok(())
    }

    /// `Factory.makeJP(sp, this, target, new Object[] { args })`.
    fn join_point(&mut self, ctx: &Context, out: &mut Vec<Insn>) -> Result<()> {
        if let Some(l) = ctx.jp {
            out.push(emit::load(JOIN_POINT, l));
            return Ok(());
        }
        self.push_join_point_values(ctx, out)?;
        let m = self.pool.method_ref(
            statics::FACTORY,
            "makeJP",
            "(Lorg/aspectj/lang/JoinPoint$StaticPart;Ljava/lang/Object;Ljava/lang/Object;[Ljava/lang/Object;)Lorg/aspectj/lang/JoinPoint;",
            false,
        )?;
        out.push(Insn::Cp {
            op: op::INVOKESTATIC,
            index: m,
        });
        Ok(())
    }

    /// When some of `matched` asks for `thisJoinPoint`: makes the shadow's one
    /// join point into a new local (code appended to `out`) and records it in
    /// `ctx`, so that every advice there, inside proceed methods too, sees the
    /// same object with the values the join point started with (as in AspectJ).
    fn shared_join_point(
        &mut self,
        matched: &[Matched<'_, '_>],
        ctx: &mut Context,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        let wants = |e: &Extra| *e == Extra::JoinPoint;
        let needed = matched.iter().any(|m| {
            m.advice.method.extras().any(|e| wants(&e))
                || m.advice
                    .method
                    .if_tests
                    .iter()
                    .any(|t| t.extras.iter().any(wants))
        });
        if needed {
            self.join_point(ctx, out)?;
            let l = self.temp(JOIN_POINT);
            out.push(emit::store(JOIN_POINT, l));
            ctx.jp = Some(l);
        }
        Ok(())
    }

    /// Pushes a join point's static part, `this` (or null), target (or null) and
    /// arguments (a new `Object[]`, primitives boxed).
    fn push_join_point_values(&mut self, ctx: &Context, out: &mut Vec<Insn>) -> Result<()> {
        self.statics
            .get(ctx.sp.clone().expect("static part"), self.pool, out)?;
        match &ctx.this {
            Some(_) => out.push(Insn::Local {
                op: op::ALOAD,
                index: 0,
                wide: false,
            }),
            None => out.push(Insn::Simple(op::ACONST_NULL)),
        }
        match &ctx.target {
            Some((l, d)) => out.push(emit::load(d, *l)),
            None => out.push(Insn::Simple(op::ACONST_NULL)),
        }
        emit::push_int(ctx.args.len() as i32, self.pool, out)?;
        let obj = self.pool.class("java/lang/Object")?;
        out.push(Insn::Cp {
            op: op::ANEWARRAY,
            index: obj,
        });
        for (i, (l, d)) in ctx.args.iter().enumerate() {
            out.push(Insn::Simple(op::DUP));
            emit::push_int(i as i32, self.pool, out)?;
            out.push(emit::load(d, *l));
            if emit::is_primitive(d) {
                emit::boxing(d.chars().next().unwrap_or('I'), self.pool, out)?;
            }
            out.push(Insn::Simple(83)); // aastore
        }
        Ok(())
    }

    /// The `ProceedingJoinPoint` of around advice `m`:
    /// `Factory.makePJP(sp, this, target, args, new JoinPointClosure(<proceed>,
    /// flags, layout))`, whose `proceed(..)` runs the proceed method from AspectJ's
    /// `{this, target, args..}` (flags: what the advice binds with `this(..)` and
    /// `target(..)`; layout: what [`Self::state_layout`] holds).
    fn proceeding_join_point(
        &mut self,
        m: &Matched<'_, '_>,
        ctx: &Context,
        proceed: &str,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        const CLOSURE: &str = "major/runtime/JoinPointClosure";
        self.push_join_point_values(ctx, out)?;
        let c = self.pool.class(CLOSURE)?;
        out.push(Insn::Cp {
            op: op::NEW,
            index: c,
        });
        out.push(Insn::Simple(op::DUP));
        let pm = self.pool.method_ref(
            &self.cls.name.clone(),
            proceed,
            "([Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;",
            false,
        )?;
        let mh = self.pool.method_handle(6, pm)?; // REF_invokeStatic
        out.push(Insn::Ldc {
            index: mh,
            wide: mh > 255,
        });
        let binds = |s: Source| m.advice.binds.contains(&Some(s));
        let flags = i32::from(binds(Source::This)) | (i32::from(binds(Source::Target)) << 1);
        emit::push_int(flags, self.pool, out)?;
        let has_this = ctx.this.is_some();
        let has_target = ctx
            .target
            .as_ref()
            .is_some_and(|(l, _)| ctx.this.is_none() || *l != 0);
        let layout =
            i32::from(has_this) | (i32::from(has_target) << 1) | (i32::from(ctx.jp.is_some()) << 2);
        emit::push_int(layout, self.pool, out)?;
        let init = self.pool.method_ref(
            CLOSURE,
            "<init>",
            "(Ljava/lang/invoke/MethodHandle;II)V",
            false,
        )?;
        out.push(Insn::Cp {
            op: op::INVOKESPECIAL,
            index: init,
        });
        // With the shadow's join point: shown by this one, and handed on to the
        // proceed method's state.
        let desc = match ctx.jp {
            Some(l) => {
                out.push(emit::load(JOIN_POINT, l));
                "(Lorg/aspectj/lang/JoinPoint$StaticPart;Ljava/lang/Object;Ljava/lang/Object;[Ljava/lang/Object;Lmajor/runtime/JoinPointClosure;Lorg/aspectj/lang/JoinPoint;)Lorg/aspectj/lang/ProceedingJoinPoint;"
            }
            None => "(Lorg/aspectj/lang/JoinPoint$StaticPart;Ljava/lang/Object;Ljava/lang/Object;[Ljava/lang/Object;Lmajor/runtime/AroundClosure;)Lorg/aspectj/lang/ProceedingJoinPoint;",
        };
        let make = self
            .pool
            .method_ref(statics::FACTORY, "makePJP", desc, false)?;
        out.push(Insn::Cp {
            op: op::INVOKESTATIC,
            index: make,
        });
        Ok(())
    }

    /// Jumps to `target` when `r` evaluates to `value`.
    fn jump_if(
        &mut self,
        r: &Residue,
        value: bool,
        target: Label,
        a: &PlannedAdvice<'_>,
        ctx: &Context,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        match r {
            Residue::True => {
                if value {
                    out.push(Insn::Jump {
                        op: op::GOTO,
                        target,
                    });
                }
            }
            Residue::False => {
                if !value {
                    out.push(Insn::Jump {
                        op: op::GOTO,
                        target,
                    });
                }
            }
            Residue::Not(x) => self.jump_if(x, !value, target, a, ctx, out)?,
            Residue::And(x, y) if !value => {
                self.jump_if(x, false, target, a, ctx, out)?;
                self.jump_if(y, false, target, a, ctx, out)?;
            }
            Residue::And(x, y) => {
                let skip = self.code.new_label();
                self.jump_if(x, false, skip, a, ctx, out)?;
                self.jump_if(y, true, target, a, ctx, out)?;
                out.push(Insn::Label(skip));
            }
            Residue::Or(x, y) if value => {
                self.jump_if(x, true, target, a, ctx, out)?;
                self.jump_if(y, true, target, a, ctx, out)?;
            }
            Residue::Or(x, y) => {
                let skip = self.code.new_label();
                self.jump_if(x, true, skip, a, ctx, out)?;
                self.jump_if(y, false, target, a, ctx, out)?;
                out.push(Insn::Label(skip));
            }
            Residue::InstanceOf(s, t) => {
                self.push_instanceof(*s, t, ctx, out)?;
                out.push(Insn::Jump {
                    op: if value { 154 } else { 153 },
                    target,
                });
            }
            Residue::Cflow(f) => {
                let f = &self.weaver.cflow_fields[*f];
                cflow::call(f, "isValid", "()Z", self.pool, out)?;
                out.push(Insn::Jump {
                    op: if value { 154 } else { 153 },
                    target,
                });
            }
            Residue::If(k) => {
                let Some(t) = a.method.if_tests.get(*k).cloned() else {
                    return Err(Error::new(
                        major_classfile::ErrorKind::Unsupported,
                        None,
                        "if() test method missing",
                    ));
                };
                let (params, _) = descriptor::parse_method(&t.descriptor)?;
                for (slot, want) in t.slots.iter().zip(params.iter()) {
                    let src = a.binds.get(*slot).copied().flatten();
                    self.load_source(src, want, ctx, out)?;
                }
                for e in &t.extras {
                    self.push_extra(*e, ctx, out)?;
                }
                let m = self
                    .pool
                    .method_ref(&t.owner, &t.name, &t.descriptor, false)?;
                out.push(Insn::Cp {
                    op: op::INVOKESTATIC,
                    index: m,
                });
                out.push(Insn::Jump {
                    op: if value { 154 } else { 153 },
                    target,
                });
            }
        }
        Ok(())
    }

    fn push_instanceof(
        &mut self,
        s: Source,
        t: &str,
        ctx: &Context,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        match ctx.value(s) {
            Some((Some(l), d)) if !emit::is_primitive(&d) && d != "V" => {
                out.push(emit::load(&d, l));
                let c = self.pool.class(t)?;
                out.push(Insn::Cp { op: 193, index: c });
            }
            _ => out.push(Insn::Simple(3)), // iconst_0: no such value
        }
        Ok(())
    }
}

struct Layered {
    body: Vec<Insn>,
    tail: Vec<Insn>,
    handlers: Vec<Handler>,
}

/// Pushes the default value of descriptor `d` (0, 0L, 0.0, null).
fn push_default(d: &str, out: &mut Vec<Insn>) {
    out.push(Insn::Simple(match d.as_bytes()[0] {
        b'J' => 9,
        b'F' => 11,
        b'D' => 14,
        b'L' | b'[' => op::ACONST_NULL,
        _ => 3,
    }));
}

fn return_op(d: &str) -> u8 {
    match d.as_bytes()[0] {
        b'J' => 173,
        b'F' => 174,
        b'D' => 175,
        b'L' | b'[' => 176,
        _ => 172,
    }
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
struct LabelPositions(Vec<usize>);

impl LabelPositions {
    /// Where `l` is, if it is placed.
    fn get(&self, l: &Label) -> Option<&usize> {
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

fn dotted_list(v: &[String]) -> String {
    v.iter()
        .map(|s| s.replace('/', "."))
        .collect::<Vec<_>>()
        .join(",")
}
