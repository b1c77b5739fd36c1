//! Matching a shadow against the advice: each advice's compiled pointcut
//! answers yes, no or maybe; a maybe leaves a [`Residue`] (the runtime test
//! woven before the advice call). `declare warning/error` hits and
//! conflicting precedence are recorded on the way; the matches come out in
//! precedence order, innermost first.

use major_classfile::class_reader::ACC_STATIC;
use major_classfile::{Error, ErrorKind};
use major_pointcut_lang::ast::AdviceKind;
use major_pointcut_lang::matcher::{ClassView, Fuzzy, Shadow, ShadowKind, TypeWorld};

use super::driver::{DeclareHit, Weaver};
use super::method::{ClassData, MemberData, MethodWeave};
use super::plan::{self, PlannedAdvice, Residue, ShadowTypes, Source};
use super::shadows::Context;
use super::world::IndexWorld;
use super::{describe_short, is_around, kind_name, THROWABLE};

/// The static types at a shadow, as residue planning asks for them.
struct Types<'a> {
    ctx: &'a Context,
    world: &'a IndexWorld<'a>,
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
pub(super) fn assignable(world: &IndexWorld<'_>, sub: &str, sup: &str) -> bool {
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

/// One advice that matched a shadow.
pub(super) struct Matched<'a, 'p> {
    /// The advice.
    pub(super) advice: &'a PlannedAdvice<'p>,
    /// What must hold at run time for it to run.
    pub(super) residue: Residue,
}

impl<'w, 'p> MethodWeave<'w, 'p, '_> {
    /// `matched` without its around advice, each noted as "<advice>: around
    /// advice <what>" (once per class).
    pub(super) fn without_around(
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

    /// The advice matching a shadow, lowest precedence (innermost) first, with
    /// their residual tests. Also records `declare` hits.
    pub(super) fn matching(
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
            // Instance code without a `this`: a point shadow in the arguments
            // of the super(..)/this(..) call (see `MethodWeave::super_call`).
            before_super: self.member.access & ACC_STATIC == 0 && ctx.this.is_none(),
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
                    method: format!("{}{}", self.member.name, self.member.descriptor),
                    line: u32::try_from(line).ok(),
                };
                if !self.outcome.declares.iter().any(|d| d.same_report(&hit)) {
                    self.outcome.declares.push(hit);
                }
            }
        }
        let types = Types { ctx, world };
        let mut out = Vec::new();
        for a in weaver.advice.iter().rev() {
            let (r, missing) = world.recording(|| match a.pointcut.matches(&shadow, world) {
                Fuzzy::No => None,
                Fuzzy::Yes => Some(Residue::True),
                Fuzzy::Maybe => plan::residue(a, &shadow, &types, world),
            });
            let Some(mut r) = r else {
                // A "no" that depended on a class missing from the class path
                // is a guess: the method cannot be woven soundly.
                if let (Some(m), None) = (missing.first(), &self.undecided) {
                    self.undecided = Some(Error::new(
                        ErrorKind::UnknownClass,
                        None,
                        format!(
                            "whether {} applies at {} of {} depends on class {m}, which is not in the class hierarchy (add it to the class path)",
                            describe_short(a),
                            kind_name(kind),
                            subject.name
                        ),
                    ));
                }
                continue;
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
                            match plan::value_type_test(Source::Returning, have, &want, &types) {
                                Residue::True => {}
                                Residue::False => continue,
                                test => r = Residue::And(Box::new(r), Box::new(test)),
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
        // The global order may not hold for these few (precedence is not
        // transitive within an aspect): order them among themselves.
        out.reverse();
        weaver
            .precedence
            .sort(&mut out, |m| m.advice.entry.is_none().then_some(m.advice));
        out.reverse();
        for (x, y) in &weaver.precedence_conflicts {
            let has = |c: &str| out.iter().any(|m| m.advice.aspect_class == *c);
            if has(x) && has(y) {
                let file = if self.cls.source_file.is_empty() {
                    &self.cls.name
                } else {
                    &self.cls.source_file
                };
                let hit = DeclareHit {
                    is_error: true,
                    message: format!(
                        "conflicting declare precedence orderings for aspects: {} and {}",
                        x.replace('/', "."),
                        y.replace('/', ".")
                    ),
                    location: format!("{file}:{line}"),
                    method: format!("{}{}", self.member.name, self.member.descriptor),
                    line: u32::try_from(line).ok(),
                };
                if !self.outcome.declares.iter().any(|d| d.same_report(&hit)) {
                    self.outcome.declares.push(hit);
                }
            }
        }
        out
    }
}
