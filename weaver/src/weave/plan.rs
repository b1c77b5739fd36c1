//! The advice to weave, prepared once per run: each advice's pointcut compiled
//! for static matching, its formals' sources (bindings), and the precedence
//! order in which advice at one join point nest.

use major_pointcut_lang::ast::AdviceKind;
use major_pointcut_lang::matcher::{
    primitive_widens, CompiledPointcut, CompiledTypePattern, Fuzzy, Shadow, TypeWorld,
};
use major_pointcut_lang::patterns::{TypePattern, TypePatternKind};
use major_pointcut_lang::resolve::{ArgCtx, Ctx, Pc, PcKind};
use major_pointcut_lang::{Program, ResolvedAdvice};

use crate::aspects::{AdviceMethod, CompiledAspects};

/// Where a formal's value comes from at a join point.
#[allow(missing_docs)] // fields named as the variant doc says
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The executing object.
    This,
    /// The target object.
    Target,
    /// Argument `i` (counted from the end when `from_end`).
    Arg { index: usize, from_end: bool },
    /// The returned value (`after returning (T x)`).
    Returning,
    /// The thrown exception (`after throwing (T x)`).
    Throwing,
    /// Value `index` of the innermost entry of the `cflow(..)` whose per-thread
    /// state is [`CflowField`] number `field`.
    Cflow { field: usize, index: usize },
    /// The annotation `@annotation(a)` names (the formal's type) on the subject
    /// of the join point: the executing or called method or constructor, the
    /// accessed field.
    Annotation,
    /// The annotation `@within(a)` names on the class whose code holds the
    /// shadow.
    WithinAnnotation,
    /// The annotation `@withincode(a)` names on the method or constructor
    /// whose code holds the shadow.
    WithincodeAnnotation,
}

/// A runtime test left after static matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Residue {
    /// Always true.
    True,
    /// Always false.
    False,
    /// Both.
    And(Box<Residue>, Box<Residue>),
    /// Either.
    Or(Box<Residue>, Box<Residue>),
    /// Negation.
    Not(Box<Residue>),
    /// The value is an instance of the class or array type (internal name or descriptor).
    InstanceOf(Source, String),
    /// Call `if` test number `n` of the advice.
    If(usize),
    /// The current thread is in the control flow of the entries of [`CflowField`] `n`.
    Cflow(usize),
}

impl Residue {
    fn and(a: Residue, b: Residue) -> Residue {
        match (a, b) {
            (Residue::False, _) | (_, Residue::False) => Residue::False,
            (Residue::True, x) | (x, Residue::True) => x,
            (x, y) => Residue::And(Box::new(x), Box::new(y)),
        }
    }
    fn or(a: Residue, b: Residue) -> Residue {
        match (a, b) {
            (Residue::True, _) | (_, Residue::True) => Residue::True,
            (Residue::False, x) | (x, Residue::False) => x,
            (x, y) => Residue::Or(Box::new(x), Box::new(y)),
        }
    }
    fn not(a: Residue) -> Residue {
        match a {
            Residue::True => Residue::False,
            Residue::False => Residue::True,
            Residue::Not(x) => *x,
            x => Residue::Not(Box::new(x)),
        }
    }
}

/// The per-thread state of one `cflow(..)`/`cflowbelow(..)` of an advice: a
/// `major.runtime.CFlowCounter` (nothing bound inside), or a
/// `major.runtime.CFlowStack` of the values bound inside. Held in a static field
/// of an extra class of the aspect, never in a woven class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CflowField {
    /// Internal name of the class holding the field.
    pub owner: String,
    /// Field name.
    pub name: String,
    /// A `CFlowStack` (true) or a `CFlowCounter`.
    pub stack: bool,
}

impl CflowField {
    /// The field's descriptor.
    pub fn descriptor(&self) -> &'static str {
        if self.stack {
            "Lmajor/runtime/CFlowStack;"
        } else {
            "Lmajor/runtime/CFlowCounter;"
        }
    }

    /// The field's class.
    pub fn class(&self) -> &'static str {
        if self.stack {
            "major/runtime/CFlowStack"
        } else {
            "major/runtime/CFlowCounter"
        }
    }
}

/// What a cflow entry does where its pointcut matches: enter the control flow
/// (increment the counter, or push the bound values) before the join point and
/// leave it after, however the join point ends.
#[derive(Debug, Clone)]
pub struct CflowEntry {
    /// Index of its [`CflowField`].
    pub field: usize,
    /// `cflowbelow`: entered innermost (advice at the entering join point do not
    /// see it); `cflow`: entered outermost.
    pub below: bool,
    /// The sources of the values pushed (stack entries only), in formal-slot
    /// order (`None`: not available at this shadow, a default is pushed).
    pub pushed: Vec<Option<Source>>,
}

/// One advice ready to weave.
pub struct PlannedAdvice<'p> {
    /// Internal name of the concrete aspect (`aspectOf` is called on it).
    pub aspect_class: String,
    /// The descriptor of that aspect's `aspectOf()`: `()L<aspect_class>;`.
    pub aspect_of: String,
    /// The checked advice.
    pub resolved: &'p ResolvedAdvice,
    /// Its method.
    pub method: AdviceMethod,
    /// Its pointcut, compiled.
    pub pointcut: CompiledPointcut,
    /// Rank in precedence order: 0 is the highest precedence (outermost).
    pub rank: usize,
    /// Where each formal's value comes from.
    pub binds: Vec<Option<Source>>,
    /// Static part and join-point counters: how many shadows it was woven into.
    pub id: usize,
    /// The pointcut its residues come from: the advice's, or for a cflow entry
    /// the pointcut inside the `cflow(..)`.
    pub pc: &'p Pc,
    /// Number of `if(..)` before `pc` in the pre-order of the advice's pointcut
    /// (`if` test numbers are counted over the whole advice).
    pub if_base: usize,
    /// The [`CflowField`]s of the `cflow`/`cflowbelow` nodes of `pc`, in
    /// pre-order (not counting cflows nested inside them).
    pub cflows: Vec<usize>,
    /// Set for the entry of a `cflow(..)` of `resolved`, which is no advice of
    /// its own.
    pub entry: Option<CflowEntry>,
}

impl PlannedAdvice<'_> {
    /// Whether the advice runs after the join point (after, after returning, after throwing).
    pub fn is_after(&self) -> bool {
        self.entry.is_none()
            && matches!(
                self.resolved.kind,
                AdviceKind::After | AdviceKind::AfterReturning(_) | AdviceKind::AfterThrowing(_)
            )
    }
}

/// Why an advice cannot be woven (yet); reported, the advice is skipped.
pub fn unsupported(advice: &ResolvedAdvice) -> Option<&'static str> {
    fn walk(pc: &Pc) -> Option<&'static str> {
        match &pc.kind {
            PcKind::And(a, b) | PcKind::Or(a, b) => walk(a).or_else(|| walk(b)),
            PcKind::Not(a) => walk(a),
            PcKind::Cflow(a) | PcKind::CflowBelow(a) => walk(a),
            PcKind::AtThis(_) | PcKind::AtTarget(_) | PcKind::AtArgs(_) => {
                Some("@this/@target/@args are not supported by this weaver yet")
            }
            _ => None,
        }
    }
    walk(&advice.pointcut)
}

/// The precedence between two advice, as AspectJ decides it: `declare
/// precedence` between aspects (else program order); in one aspect hierarchy
/// the sub-aspect's advice first; within one aspect the lexical rule (when
/// either is after advice, the later declared has precedence; otherwise the
/// earlier). The relation is total but not transitive across an aspect's
/// advice (around₁, after₂, around₃ is a cycle): a linear order for all advice
/// may be wrong for the few that meet at one join point, so the advice
/// matching a shadow are ordered again among themselves ([`Precedence::sort`]).
pub struct Precedence {
    /// For each `declare precedence` list, the rank of each concrete aspect
    /// (internal name) in it, if some pattern of the list names it.
    lists: Vec<std::collections::HashMap<String, usize>>,
    /// Program order of the aspects, by internal name.
    program_pos: std::collections::HashMap<String, usize>,
    /// For each concrete aspect, the aspects its effective advice list comes
    /// from, most derived first.
    depths: std::collections::HashMap<String, Vec<String>>,
}

impl Precedence {
    /// The precedence of `program`'s aspects.
    pub fn new(program: &Program, world: &dyn TypeWorld) -> Self {
        // In a list, `*` stands for the aspects no other pattern of the list matches.
        let lists = program
            .aspects
            .iter()
            .flat_map(|a| &a.precedence)
            .map(|l| {
                let l: Vec<CompiledTypePattern> = l
                    .iter()
                    .map(|tp| CompiledTypePattern::compile(tp, world))
                    .collect();
                program
                    .aspects
                    .iter()
                    .filter_map(|a| {
                        let d = format!("L{};", a.internal_name);
                        l.iter()
                            .position(|p| !p.is_any() && p.matches_descriptor(&d, world))
                            .or_else(|| l.iter().position(|p| p.is_any()))
                            .map(|r| (a.internal_name.clone(), r))
                    })
                    .collect()
            })
            .collect();
        let program_pos = program
            .aspects
            .iter()
            .enumerate()
            .map(|(i, a)| (a.internal_name.clone(), i))
            .collect();
        let depths = program
            .aspects
            .iter()
            .map(|a| {
                let mut from: Vec<String> = Vec::new();
                for r in &a.advice {
                    if !from.contains(&r.declared_in) {
                        from.push(r.declared_in.clone());
                    }
                }
                (a.internal_name.clone(), from)
            })
            .collect();
        Precedence {
            lists,
            program_pos,
            depths,
        }
    }

    /// Whether `a` has precedence over `b` (runs outside it).
    pub fn higher(&self, a: &PlannedAdvice<'_>, b: &PlannedAdvice<'_>) -> bool {
        if a.aspect_class != b.aspect_class {
            let declared = self.lists.iter().find_map(|l| {
                match (l.get(&a.aspect_class), l.get(&b.aspect_class)) {
                    (Some(ra), Some(rb)) if ra != rb => Some(ra < rb),
                    _ => None,
                }
            });
            if let Some(first) = declared {
                return first;
            }
            let pos = |c: &str| self.program_pos.get(c).copied().unwrap_or(usize::MAX);
            return pos(&a.aspect_class) < pos(&b.aspect_class);
        }
        // In one aspect hierarchy, advice of a sub-aspect has precedence over
        // advice inherited from its super-aspects (the effective advice list
        // has the most derived aspect first).
        if a.resolved.declared_in != b.resolved.declared_in {
            let depth = |declared_in: &str| {
                self.depths
                    .get(&a.aspect_class)
                    .and_then(|d| d.iter().position(|x| x == declared_in))
                    .unwrap_or(usize::MAX)
            };
            let (da, db) = (
                depth(&a.resolved.declared_in),
                depth(&b.resolved.declared_in),
            );
            if da != db {
                return da < db;
            }
        }
        let (pa, pb) = (position(a), position(b));
        if a.is_after() || b.is_after() {
            pa > pb
        } else {
            pa < pb
        }
    }

    /// Sorts `items` highest precedence first (an insertion sort: the relation
    /// is total, and acyclic among the advice that ajc lets meet at one join
    /// point). Items for which `advice` gives `None` (cflow entries) stay
    /// where they are and nothing moves past them.
    pub fn sort<'a, 'b: 'a, T>(
        &self,
        items: &mut [T],
        advice: impl Fn(&T) -> Option<&'a PlannedAdvice<'b>>,
    ) {
        for i in 1..items.len() {
            let mut j = i;
            while j > 0 {
                let up = match (advice(&items[j]), advice(&items[j - 1])) {
                    (Some(a), Some(b)) => self.higher(a, b),
                    _ => false,
                };
                if !up {
                    break;
                }
                items.swap(j, j - 1);
                j -= 1;
            }
        }
    }
}

/// Orders advice by precedence, highest first (see [`Precedence`]), and sets
/// their ranks.
pub fn order(advice: &mut [PlannedAdvice<'_>], precedence: &Precedence) {
    let n = advice.len();
    let mut idx: Vec<usize> = (0..n).collect();
    {
        let all: &[PlannedAdvice<'_>] = advice;
        precedence.sort(&mut idx, |&i| Some(&all[i]));
    }
    for (rank, &i) in idx.iter().enumerate() {
        advice[i].rank = rank;
    }
    advice.sort_by_key(|a| a.rank);
}

/// The pairs of concrete aspects (later, earlier in program order) that one
/// `declare precedence` list puts one way and another list the other way.
pub fn precedence_conflicts(program: &Program, world: &dyn TypeWorld) -> Vec<(String, String)> {
    let lists: Vec<Vec<CompiledTypePattern>> = program
        .aspects
        .iter()
        .flat_map(|a| &a.precedence)
        .map(|l| {
            l.iter()
                .map(|tp| CompiledTypePattern::compile(tp, world))
                .collect()
        })
        .collect();
    if lists.len() < 2 {
        return Vec::new();
    }
    let rank_in = |list: &[CompiledTypePattern], class: &str| -> Option<usize> {
        let d = format!("L{class};");
        list.iter()
            .position(|p| !p.is_any() && p.matches_descriptor(&d, world))
            .or_else(|| list.iter().position(|p| p.is_any()))
    };
    let concrete: Vec<&str> = program
        .aspects
        .iter()
        .filter(|a| !a.is_abstract)
        .map(|a| a.internal_name.as_str())
        .collect();
    let mut out = Vec::new();
    for (i, a) in concrete.iter().enumerate() {
        for b in &concrete[i + 1..] {
            let orders: Vec<bool> = lists
                .iter()
                .filter_map(|l| match (rank_in(l, a), rank_in(l, b)) {
                    (Some(ra), Some(rb)) if ra != rb => Some(ra < rb),
                    _ => None,
                })
                .collect();
            if orders.contains(&true) && orders.contains(&false) {
                out.push((b.to_string(), a.to_string()));
            }
        }
    }
    out
}

/// Lexical position of an advice inside its aspect hierarchy: the declaration span.
fn position(a: &PlannedAdvice<'_>) -> (usize, usize) {
    (a.resolved.file, a.resolved.span.start)
}

/// The internal names an exact type pattern may denote.
pub fn exact_names(tp: &TypePattern) -> Vec<String> {
    match &tp.kind {
        TypePatternKind::Named(n) if n.name.is_exact() => {
            if n.candidates.is_empty() {
                vec![n.name.text.replace('.', "/")]
            } else {
                n.candidates.clone()
            }
        }
        _ => Vec::new(),
    }
}

/// The JVM descriptor an exact type pattern denotes (`I`, `Ljava/lang/String;`,
/// `[I`), choosing the first candidate the world knows.
pub fn exact_descriptor(tp: &TypePattern, world: &dyn TypeWorld) -> Option<String> {
    let TypePatternKind::Named(n) = &tp.kind else {
        return None;
    };
    if !n.name.is_exact() {
        return None;
    }
    let dims = "[".repeat(n.dims as usize + usize::from(n.varargs));
    let prim = match n.name.text.as_str() {
        "int" => Some("I"),
        "long" => Some("J"),
        "short" => Some("S"),
        "byte" => Some("B"),
        "char" => Some("C"),
        "boolean" => Some("Z"),
        "float" => Some("F"),
        "double" => Some("D"),
        "void" => Some("V"),
        _ => None,
    };
    if let Some(p) = prim {
        return Some(format!("{dims}{p}"));
    }
    let names = exact_names(tp);
    let name = names.iter().find(|c| world.exists(c)).or(names.first())?;
    Some(format!("{dims}L{name};"))
}

/// The sources of each formal slot, from the `this`/`target`/`args` bindings of
/// `pc` (the first binding found on any branch), plus returning/throwing.
pub fn bindings(advice: &ResolvedAdvice, cflows: &[usize]) -> Vec<Option<Source>> {
    let mut out = pc_bindings(&advice.pointcut, advice.slot_count(), cflows);
    match &advice.kind {
        AdviceKind::AfterReturning(Some(_)) => {
            if let Some(l) = out.last_mut() {
                *l = Some(Source::Returning);
            }
        }
        AdviceKind::AfterThrowing(Some(_)) => {
            if let Some(l) = out.last_mut() {
                *l = Some(Source::Throwing);
            }
        }
        _ => {}
    }
    out
}

/// The sources of the formal slots `pc` binds (of `n` slots): `this`, target,
/// arguments, and the values pushed by its `cflow(..)`s, whose fields `cflows`
/// lists in pre-order.
pub fn pc_bindings(pc: &Pc, n: usize, cflows: &[usize]) -> Vec<Option<Source>> {
    let mut out = vec![None; n];
    let mut next_cflow = 0;
    walk(pc, &mut out, cflows, &mut next_cflow);
    fn walk(pc: &Pc, out: &mut Vec<Option<Source>>, cflows: &[usize], next: &mut usize) {
        let mut bind = |c: &Ctx, s: Source| {
            if let Ctx::Bind { slot, .. } = c {
                if let Some(o) = out.get_mut(*slot) {
                    o.get_or_insert(s);
                }
            }
        };
        match &pc.kind {
            PcKind::And(a, b) | PcKind::Or(a, b) => {
                walk(a, out, cflows, next);
                walk(b, out, cflows, next);
            }
            PcKind::Not(a) => walk(a, out, cflows, next),
            PcKind::Cflow(inner) | PcKind::CflowBelow(inner) => {
                let k = *next;
                *next += 1;
                let Some(&field) = cflows.get(k) else { return };
                for (index, slot) in cflow_pushed_slots(inner, out.len()).into_iter().enumerate() {
                    out[slot].get_or_insert(Source::Cflow { field, index });
                }
            }
            PcKind::This(c) => bind(c, Source::This),
            PcKind::Target(c) => bind(c, Source::Target),
            PcKind::AtAnnotation(c) => bind(c, Source::Annotation),
            PcKind::AtWithin(c) => bind(c, Source::WithinAnnotation),
            PcKind::AtWithinCode(c) => bind(c, Source::WithincodeAnnotation),
            PcKind::Args(list) => {
                let dots = list.iter().position(|a| matches!(a, ArgCtx::Ellipsis));
                for (i, a) in list.iter().enumerate() {
                    if let ArgCtx::Ctx(c) = a {
                        let src = match dots {
                            Some(d) if i > d => Source::Arg {
                                index: list.len() - 1 - i,
                                from_end: true,
                            },
                            _ => Source::Arg {
                                index: i,
                                from_end: false,
                            },
                        };
                        bind(c, src);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The formal slots bound inside a `cflow(..)`'s pointcut, in slot order: the
/// values its entry pushes.
pub fn cflow_pushed_slots(inner: &Pc, n: usize) -> Vec<usize> {
    fn walk(pc: &Pc, out: &mut Vec<bool>) {
        let mut bind = |c: &Ctx| {
            if let Ctx::Bind { slot, .. } = c {
                if let Some(o) = out.get_mut(*slot) {
                    *o = true;
                }
            }
        };
        match &pc.kind {
            PcKind::And(a, b) | PcKind::Or(a, b) => {
                walk(a, out);
                walk(b, out);
            }
            PcKind::Not(a) | PcKind::Cflow(a) | PcKind::CflowBelow(a) => walk(a, out),
            PcKind::This(c) | PcKind::Target(c) => bind(c),
            PcKind::Args(list) => {
                for a in list {
                    if let ArgCtx::Ctx(c) = a {
                        bind(c);
                    }
                }
            }
            _ => {}
        }
    }
    let mut bound = vec![false; n];
    walk(inner, &mut bound);
    (0..n).filter(|&s| bound[s]).collect()
}

/// The `cflow(..)`/`cflowbelow(..)` nodes of `pc` in pre-order (not those
/// nested inside them): the inner pointcut, whether it is `cflowbelow`, and how
/// many `if(..)` precede the inner pointcut in the pre-order of `pc` (plus
/// `if_base`).
pub fn cflow_nodes(pc: &Pc, if_base: usize) -> Vec<(&Pc, bool, usize)> {
    fn walk<'a>(pc: &'a Pc, ifs: &mut usize, out: &mut Vec<(&'a Pc, bool, usize)>) {
        match &pc.kind {
            PcKind::And(a, b) | PcKind::Or(a, b) => {
                walk(a, ifs, out);
                walk(b, ifs, out);
            }
            PcKind::Not(a) => walk(a, ifs, out),
            PcKind::Cflow(a) | PcKind::CflowBelow(a) => {
                out.push((a, matches!(pc.kind, PcKind::CflowBelow(_)), *ifs));
                *ifs += count_ifs(a);
            }
            PcKind::If { .. } => *ifs += 1,
            _ => {}
        }
    }
    let mut out = Vec::new();
    let mut ifs = if_base;
    walk(pc, &mut ifs, &mut out);
    out
}

/// Number of `if(..)` nodes in `pc`, cflows included.
fn count_ifs(pc: &Pc) -> usize {
    match &pc.kind {
        PcKind::And(a, b) | PcKind::Or(a, b) => count_ifs(a) + count_ifs(b),
        PcKind::Not(a) | PcKind::Cflow(a) | PcKind::CflowBelow(a) => count_ifs(a),
        PcKind::If { .. } => 1,
        _ => 0,
    }
}

/// What the static types at a shadow say about a value, for residues.
pub trait ShadowTypes {
    /// The static descriptor of a value source at this shadow (`None`: not available).
    fn static_type(&self, s: Source) -> Option<String>;
    /// Number of arguments at the shadow.
    fn arg_count(&self) -> usize;
    /// Whether `sub` (descriptor) is statically assignable to `sup` (descriptor).
    fn assignable(&self, sub: &str, sup: &str) -> bool;
}

/// The runtime test an advice needs at a shadow, or `None` when it cannot match.
/// `formal_types` are the descriptors of the advice's formals.
pub fn residue(
    advice: &PlannedAdvice<'_>,
    shadow: &Shadow<'_>,
    types: &dyn ShadowTypes,
    world: &dyn TypeWorld,
) -> Option<Residue> {
    let mut counters = (advice.if_base, 0);
    let r = node(advice.pc, advice, shadow, types, world, &mut counters);
    match in_evaluation_order(r) {
        Residue::False => None,
        r => Some(r),
    }
}

/// How costly ajc deems a runtime test (its pointcut rewriter orders the
/// terms of each `&&` by this): `this`/`target` type tests, then `args` type
/// tests, then `cflow`, then `if(..)` last. A compound test costs its most
/// costly part.
fn cost(r: &Residue) -> u8 {
    match r {
        Residue::True | Residue::False => 0,
        Residue::InstanceOf(Source::This | Source::Target, _) => 11,
        Residue::InstanceOf(_, _) => 15,
        Residue::Cflow(_) => 17,
        Residue::If(_) => 18,
        Residue::Not(x) => cost(x),
        Residue::And(a, b) | Residue::Or(a, b) => cost(a).max(cost(b)),
    }
}

/// `r` with the terms of every `&&` chain in ajc's evaluation order (see
/// [`cost`]; equal costs keep the pointcut's order): an `if(..)` runs only
/// after the type tests that bind its formals, wherever it is written.
pub fn in_evaluation_order(r: Residue) -> Residue {
    fn conjuncts(r: Residue, out: &mut Vec<Residue>) {
        match r {
            Residue::And(a, b) => {
                conjuncts(*a, out);
                conjuncts(*b, out);
            }
            r => out.push(in_evaluation_order(r)),
        }
    }
    match r {
        Residue::And(..) => {
            let mut terms = Vec::new();
            conjuncts(r, &mut terms);
            terms.sort_by_key(cost); // stable
            terms
                .into_iter()
                .reduce(|a, b| Residue::And(Box::new(a), Box::new(b)))
                .unwrap_or(Residue::True)
        }
        Residue::Or(a, b) => Residue::Or(
            Box::new(in_evaluation_order(*a)),
            Box::new(in_evaluation_order(*b)),
        ),
        Residue::Not(x) => Residue::Not(Box::new(in_evaluation_order(*x))),
        r => r,
    }
}

fn node(
    pc: &Pc,
    advice: &PlannedAdvice<'_>,
    shadow: &Shadow<'_>,
    types: &dyn ShadowTypes,
    world: &dyn TypeWorld,
    counters: &mut (usize, usize),
) -> Residue {
    // A formal's type; past the formals, a slot bound for `if(..)` tests
    // alone has the type of the test's parameter that reads it.
    let formal_type = |slot: usize| {
        advice.method.formal_types.get(slot).cloned().or_else(|| {
            advice.method.if_tests.iter().find_map(|t| {
                let at = t.slots.iter().position(|&s| s == slot)?;
                let (params, _) = major_classfile::descriptor::parse_method(&t.descriptor).ok()?;
                params.get(at).map(|p| p.to_string())
            })
        })
    };
    let ctx_test = |c: &Ctx, s: Source| -> Residue {
        let want = match c {
            Ctx::Type(tp) => match exact_descriptor(tp, world) {
                Some(d) => d,
                None => return Residue::True, // `*`: any value
            },
            Ctx::Bind { slot, .. } => match formal_type(*slot) {
                Some(d) => d,
                None => return Residue::False,
            },
        };
        type_test(s, &want, types)
    };
    match &pc.kind {
        PcKind::And(a, b) => Residue::and(
            node(a, advice, shadow, types, world, counters),
            node(b, advice, shadow, types, world, counters),
        ),
        PcKind::Or(a, b) => Residue::or(
            node(a, advice, shadow, types, world, counters),
            node(b, advice, shadow, types, world, counters),
        ),
        PcKind::Not(a) => Residue::not(node(a, advice, shadow, types, world, counters)),
        PcKind::This(c) => ctx_test(c, Source::This),
        PcKind::Target(c) => ctx_test(c, Source::Target),
        PcKind::Args(list) => {
            let n = types.arg_count();
            let fixed = list
                .iter()
                .filter(|a| !matches!(a, ArgCtx::Ellipsis))
                .count();
            let has_dots = list.len() != fixed;
            if (!has_dots && n != fixed) || (has_dots && n < fixed) {
                return Residue::False;
            }
            let dots = list.iter().position(|a| matches!(a, ArgCtx::Ellipsis));
            let mut r = Residue::True;
            for (i, a) in list.iter().enumerate() {
                if let ArgCtx::Ctx(c) = a {
                    let src = match dots {
                        Some(d) if i > d => Source::Arg {
                            index: list.len() - 1 - i,
                            from_end: true,
                        },
                        _ => Source::Arg {
                            index: i,
                            from_end: false,
                        },
                    };
                    r = Residue::and(r, ctx_test(c, src));
                }
            }
            r
        }
        PcKind::If { .. } => {
            let k = counters.0;
            counters.0 += 1;
            Residue::If(k)
        }
        PcKind::Cflow(inner) | PcKind::CflowBelow(inner) => {
            counters.0 += count_ifs(inner);
            let k = counters.1;
            counters.1 += 1;
            match advice.cflows.get(k) {
                Some(&field) => Residue::Cflow(field),
                None => Residue::False,
            }
        }
        _ => {
            // Everything else is static: ask the matcher about this node alone.
            let compiled = CompiledPointcut::compile(pc, &|_| None, world);
            match compiled.matches(shadow, world) {
                Fuzzy::Yes => Residue::True,
                Fuzzy::No => Residue::False,
                Fuzzy::Maybe => Residue::False,
            }
        }
    }
}

/// The test that the value from `s` has type `want` (a descriptor).
fn type_test(s: Source, want: &str, types: &dyn ShadowTypes) -> Residue {
    match types.static_type(s) {
        Some(have) => value_type_test(s, &have, want, types),
        None => Residue::False,
    }
}

/// The test that the value from `s`, of static type `have`, has type `want`
/// (descriptors), with ajc's rules for primitives (the matcher's
/// `value_test`): a primitive matches a primitive it widens to, its box and
/// `Object`; a box matches its primitive; references are tested at run time
/// unless the static type decides.
pub fn value_type_test(s: Source, have: &str, want: &str, types: &dyn ShadowTypes) -> Residue {
    if types.assignable(have, want) {
        return Residue::True;
    }
    let is_ref = |d: &str| d.starts_with('L') || d.starts_with('[');
    let boxed = |primitive: &str| {
        primitive
            .chars()
            .next()
            .and_then(crate::weave::emit::box_class)
            .map(|b| format!("L{b};"))
    };
    match (is_ref(have), is_ref(want)) {
        (true, true) => Residue::InstanceOf(s, internal_of(want)),
        (true, false) if boxed(want).as_deref() == Some(have) => Residue::True,
        (false, true) if boxed(have).as_deref() == Some(want) || want == "Ljava/lang/Object;" => {
            Residue::True
        }
        (false, false) => match (primitive_keyword(have), primitive_keyword(want)) {
            (Some(h), Some(w)) if primitive_widens(h, w) => Residue::True,
            _ => Residue::False,
        },
        _ => Residue::False,
    }
}

/// The keyword (`int`) of a primitive descriptor (`I`).
fn primitive_keyword(d: &str) -> Option<&str> {
    major_pointcut_lang::descriptor::field_type(d)
        .filter(|t| t.is_primitive())
        .map(|t| t.name)
}

/// `Lp/A;` → `p/A`; arrays stay descriptors.
pub fn internal_of(desc: &str) -> String {
    desc.strip_prefix('L')
        .and_then(|d| d.strip_suffix(';'))
        .unwrap_or(desc)
        .to_string()
}

/// Ensures advice methods from compiled aspects line up with the program's advice.
pub fn method_for<'a>(
    aspects: &'a CompiledAspects,
    aspect_class: &str,
    index: usize,
) -> Option<&'a AdviceMethod> {
    aspects
        .aspects
        .iter()
        .find(|a| a.internal_name == aspect_class)?
        .advice
        .get(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn and(a: Residue, b: Residue) -> Residue {
        Residue::And(Box::new(a), Box::new(b))
    }

    #[test]
    fn type_tests_come_before_cflow_and_if() {
        let arg = |i| {
            Residue::InstanceOf(
                Source::Arg {
                    index: i,
                    from_end: false,
                },
                "E".into(),
            )
        };
        let this = Residue::InstanceOf(Source::This, "T".into());
        // if(0) && (args(E) && cflow) && this(T) && if(1) && args(E)
        let r = and(
            and(
                and(
                    and(Residue::If(0), and(arg(0), Residue::Cflow(3))),
                    this.clone(),
                ),
                Residue::If(1),
            ),
            arg(1),
        );
        let want = and(
            and(
                and(and(and(this, arg(0)), arg(1)), Residue::Cflow(3)),
                Residue::If(0),
            ),
            Residue::If(1),
        );
        assert_eq!(in_evaluation_order(r), want);
    }

    #[test]
    fn disjuncts_are_ordered_each_on_its_own() {
        let arg = Residue::InstanceOf(Source::Target, "E".into());
        let r = Residue::Or(
            Box::new(and(Residue::If(0), arg.clone())),
            Box::new(Residue::Not(Box::new(and(Residue::If(1), arg.clone())))),
        );
        let want = Residue::Or(
            Box::new(and(arg.clone(), Residue::If(0))),
            Box::new(Residue::Not(Box::new(and(arg, Residue::If(1))))),
        );
        assert_eq!(in_evaluation_order(r), want);
    }
}
