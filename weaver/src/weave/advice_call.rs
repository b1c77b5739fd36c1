//! One advice call: `if (residue) Aspect.aspectOf().advice(args...)` — the
//! residue's runtime test as branches, the advice's arguments loaded from
//! the shadow's context (bound values converted to the formals' types,
//! cflow-bound values, annotations, join points and static parts).

use major_classfile::opcodes::op;
use major_classfile::{descriptor, Error, Insn, Label, Result};

use super::matching::{assignable, Matched};
use super::method::MethodWeave;
use super::plan::{self, PlannedAdvice, Residue, Source};
use super::shadows::Context;
use super::{cflow, emit, statics};
use crate::aspects::annotation_style::INSTANCE_FIELD;
use crate::aspects::{Extra, Param};

impl<'w, 'p> MethodWeave<'w, 'p, '_> {
    /// `if (residue) Aspect.aspectOf().advice(args...)`; in a compact method
    /// ([`MethodWeave::compact`]), a call of a helper method doing that.
    pub(super) fn advice_call(
        &mut self,
        m: &Matched<'_, '_>,
        ctx: &Context,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        if self.compact {
            let mut dispatch = Vec::new();
            self.advice_call_inline(m, ctx, &mut dispatch)?;
            return self.outline(dispatch, ctx, out);
        }
        self.advice_call_inline(m, ctx, out)
    }

    /// [`Self::advice_call`] as code in place.
    fn advice_call_inline(
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
        let bound = self.code.new_label();
        if self.weaver.full_coverage {
            if let Some(singleton) = a.aspect_of.strip_prefix("()") {
                // The singleton itself, and `aspectOf()` (which throws) only
                // when there is none: one call fewer per advice while
                // interpreted, where most of the class library's code runs.
                let field = self.pool.field_ref(aspect, INSTANCE_FIELD, singleton)?;
                out.extend([
                    Insn::Cp {
                        op: op::GETSTATIC,
                        index: field,
                    },
                    Insn::Simple(op::DUP),
                    Insn::Jump {
                        op: op::IFNONNULL,
                        target: bound,
                    },
                    Insn::Simple(op::POP),
                ]);
            }
        }
        out.push(Insn::Cp {
            op: op::INVOKESTATIC,
            index: aspect_of,
        });
        out.push(Insn::Label(bound));
        let (params, ret) = descriptor::parse_method(&a.method.descriptor)?;
        for (k, p) in a.method.params.iter().enumerate() {
            let want = params.get(k).copied().unwrap_or("");
            match *p {
                Param::Formal(slot) => {
                    let src = a.binds.get(slot).copied().flatten();
                    let want = a.method.formal_types.get(slot).map_or(want, String::as_str);
                    self.load_source(src, want, ctx, out)?;
                }
                Param::Extra(e) => self.push_param_extra(e, want, ctx, out)?,
            }
        }
        let mref = self
            .pool
            .method_ref(aspect, &a.method.name, &a.method.descriptor, false)?;
        out.push(Insn::Cp {
            op: op::INVOKEVIRTUAL,
            index: mref,
        });
        if ret != "V" {
            out.push(emit::pop(ret));
        }
        if has_test {
            out.push(Insn::Label(skip));
        }
        Ok(())
    }

    /// Loads the value of a formal (converted to `want`), or a default for an
    /// unbound one.
    pub(super) fn load_source(
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
                .then_some((self.member.name.as_str(), self.member.descriptor.as_str()));
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
            _ => emit::push_default(want, out),
        }
        Ok(())
    }

    /// Pushes the value of an extra advice (or `if`) parameter.
    fn push_extra(&mut self, e: Extra, ctx: &Context, out: &mut Vec<Insn>) -> Result<()> {
        match e {
            Extra::StaticPart => self.statics.get(
                ctx.sp.as_deref().cloned().expect("static part"),
                self.pool,
                out,
            ),
            Extra::EnclosingStaticPart => self.statics.get_enclosing(
                ctx.esp.as_deref().cloned().expect("enclosing static part"),
                self.pool,
                out,
            ),
            Extra::JoinPoint => self.join_point(ctx, out),
            Extra::CallingContext => {
                super::context::push_current(self.weaver.full_coverage, self.pool, out)
            }
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
    pub(super) fn push_param_extra(
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

    /// Jumps to `target` when `r` evaluates to `value`.
    pub(super) fn jump_if(
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
