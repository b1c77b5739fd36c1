//! The shadows of a method body: the call sites, field accesses and handler
//! entries in it ([`Found`], by [`MethodWeave::find_shadows`]), the
//! declaration of each one's subject, and the values available at a shadow
//! for bindings, residues and join points ([`Context`]).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::rc::Rc;

use major_classfile::class_reader::ACC_STATIC;
use major_classfile::opcodes::op;
use major_classfile::{descriptor, Insn, Label, Result};
use major_pointcut_lang::matcher::ShadowKind;

use super::method::{ClassData, MemberData, MethodWeave};
use super::plan::Source;
use super::statics::StaticPartSpec;
use super::THROWABLE;
use super::{aspect_classes, emit};

/// `ACC_SYNTHETIC` of a class member.
const ACC_SYNTHETIC: u16 = 0x1000;

/// One shadow found in a body.
#[derive(Debug, Clone)]
pub(super) struct Found {
    pub(super) kind: ShadowKind,
    /// Instruction index (the call/field instruction; the first instruction of a handler).
    pub(super) at: usize,
    /// Owner (internal name), name, descriptor of the subject.
    pub(super) owner: String,
    pub(super) name: String,
    pub(super) descriptor: String,
    pub(super) handler_type: Option<String>,
    /// Constructor calls: the index of the `new` (followed by `dup`) when the
    /// weaver may move it next to the call.
    pub(super) new_at: Option<usize>,
}

/// A point shadow as [`MethodWeave::point_shadow`] describes it.
pub(super) struct PointShadow {
    /// The subject's class (the static type of the reference for calls).
    pub(super) subject_class: ClassData,
    /// The subject as declared.
    pub(super) subject: MemberData,
    /// The target operand's descriptor (instance calls and fields).
    pub(super) target: Option<String>,
    /// The arguments' descriptors (a field set's value; a handler's exception).
    pub(super) args: Vec<String>,
    /// What the instruction leaves on the stack, if anything.
    pub(super) result: Option<String>,
    /// The context for matching: every value in local 0.
    pub(super) ctx: Context,
}

/// Values available at a shadow, for bindings, residues and join points.
#[derive(Debug, Clone, Default)]
pub(super) struct Context {
    /// `this` is in local 0 with this descriptor.
    pub(super) this: Option<String>,
    /// The target: local and descriptor.
    pub(super) target: Option<(u16, String)>,
    /// The arguments: locals and descriptors.
    pub(super) args: Vec<(u16, String)>,
    /// The returned value: local and descriptor (set when after advice exist).
    pub(super) ret: Option<(u16, String)>,
    /// The exception: local (descriptor `Ljava/lang/Throwable;` or the handler's type).
    pub(super) exc: Option<(u16, String)>,
    /// The shadow's static part (shared, not copied, by the contexts of one
    /// method's shadows).
    pub(super) sp: Option<Rc<StaticPartSpec>>,
    /// The enclosing execution's static part.
    pub(super) esp: Option<Rc<StaticPartSpec>>,
    /// The subject member (declaring class, name, descriptor), for
    /// `@annotation(a)` bindings.
    pub(super) subject: Option<(String, String, String)>,
    /// The local holding the shadow's one `JoinPoint` (made before the
    /// outermost advice, handed to proceed methods in their state), when some
    /// advice asks for `thisJoinPoint`.
    pub(super) jp: Option<u16>,
}

impl Context {
    /// The local (if any) and descriptor of a bound value at the shadow.
    pub(super) fn value(&self, s: Source) -> Option<(Option<u16>, String)> {
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

impl<'w, 'p> MethodWeave<'w, 'p, '_> {
    /// The point shadows of the body, in code order (`super_call`: a
    /// constructor's `super(..)`/`this(..)` call; `ctor_calls`: the
    /// `invokespecial <init>` of each `new`, with the `new` when it may move).
    pub(super) fn find_shadows(
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
        // The bypass decision the weaver put first is no join point: a call
        // pointcut that matched its `MajorBypass.bypassed()` would guard it
        // by the local it has not stored yet.
        let start = self.decision_end.map_or(0, |end| self.position(end) + 1);
        for (i, insn) in self.code.insns.iter().enumerate().skip(start) {
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
                    if !could(kind)
                        || aspect_classes::is_generated_name(&r.name)
                        || (kind == ShadowKind::ConstructorCall
                            && self
                                .weaver
                                .roles
                                .is_instance_creation(&self.cls.name, &r.owner))
                    {
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
                    if super_call.is_some_and(|s| i < s)
                        || aspect_classes::is_generated_name(&r.name)
                    {
                        continue;
                    }
                    // Neither are accesses of synthetic fields (this$0, val$x,
                    // $VALUES, $assertionsDisabled, $SwitchMap$..), as in ajc.
                    // Compilers give them names with `$`: only those are looked up.
                    if r.name.contains('$')
                        && self
                            .resolve_member(&r.owner, &r.name, &r.descriptor, true)
                            .1
                            .access
                            & ACC_SYNTHETIC
                            != 0
                    {
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

    /// The class `name` as pointcuts see it (access, annotations), from the index.
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

    /// What a point shadow (call, field access, handler entry) offers: its
    /// subject, its operands and result, and the context matching sees (every
    /// value in local 0 until the weaving gives them temps).
    pub(super) fn point_shadow(
        &mut self,
        f: &Found,
        line: i32,
        esp: Option<&Rc<StaticPartSpec>>,
    ) -> Result<PointShadow> {
        let (decl, subject) = match f.kind {
            ShadowKind::ExceptionHandler => (self.cls.name.clone(), self.member.clone()),
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
        let opcode = self.code.insns[f.at].opcode().unwrap_or(0);
        let is_static_target = matches!(opcode, op::INVOKESTATIC | op::GETSTATIC | op::PUTSTATIC)
            || f.kind == ShadowKind::ConstructorCall;
        let before_super = self.super_call.is_some_and(|s| f.at < s);
        let this = (self.member.access & ACC_STATIC == 0 && !before_super)
            .then(|| emit::object_descriptor(&self.cls.name));
        // Operand descriptors (bottom to top) and the result.
        let (target_desc, arg_descs, result): (Option<String>, Vec<String>, Option<String>) =
            match f.kind {
                ShadowKind::MethodCall | ShadowKind::ConstructorCall => {
                    let (params, ret) = descriptor::parse_method(&f.descriptor)?;
                    let target = (!is_static_target).then(|| {
                        if f.owner.starts_with('[') {
                            f.owner.clone()
                        } else {
                            emit::object_descriptor(&f.owner)
                        }
                    });
                    let result = if f.kind == ShadowKind::ConstructorCall {
                        Some(emit::object_descriptor(&f.owner))
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
                    (!is_static_target).then(|| emit::object_descriptor(&f.owner)),
                    Vec::new(),
                    Some(f.descriptor.clone()),
                ),
                ShadowKind::FieldSet => (
                    (!is_static_target).then(|| emit::object_descriptor(&f.owner)),
                    vec![f.descriptor.clone()],
                    None,
                ),
                _ => (
                    None,
                    vec![emit::object_descriptor(
                        f.handler_type.as_deref().unwrap_or_default(),
                    )],
                    None,
                ),
            };
        let sp = Rc::new(self.point_spec(f, &decl, &subject, line));
        let mut ctx = Context {
            this,
            esp: Some(esp.cloned().unwrap_or_else(|| sp.clone())),
            sp: Some(sp),
            subject: Some((decl, subject.name.clone(), subject.descriptor.clone())),
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
        Ok(PointShadow {
            subject_class,
            subject,
            target: target_desc,
            args: arg_descs,
            result,
            ctx,
        })
    }
}
