//! Join-point objects: the static part of each shadow (its kind, signature
//! and line, for [`super::statics`] to create), and `thisJoinPoint` —
//! `Factory.makeJP(..)`, made once per shadow when some advice asks for it.

use major_classfile::class_reader::ACC_STATIC;
use major_classfile::opcodes::op;
use major_classfile::{descriptor, CodeAttr, Insn, Result};
use major_pointcut_lang::matcher::ShadowKind;

use super::matching::Matched;
use super::method::{MemberData, MethodWeave};
use super::shadows::{Context, Found};
use super::statics::{self, SigSpec, StaticPartSpec};
use super::{aspect_classes, bypass, emit, kind_name};
use crate::aspects::Extra;

/// The type of the shadow's join point local.
pub(super) const JOIN_POINT: &str = "Lorg/aspectj/lang/JoinPoint;";

impl<'w, 'p> MethodWeave<'w, 'p, '_> {
    /// The static part of a point shadow: its kind, signature (the subject as
    /// declared in `decl`) and line.
    pub(super) fn point_spec(
        &mut self,
        f: &Found,
        decl: &str,
        subject: &MemberData,
        line: i32,
    ) -> StaticPartSpec {
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
        StaticPartSpec {
            kind: kind_name,
            sig,
            line,
            shadow: self.statics.next_shadow(),
        }
    }

    /// The static part of the enclosing member's execution (also the execution shadow's own).
    pub(super) fn execution_spec(&mut self, line_of: &[i32], body_start: usize) -> StaticPartSpec {
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
            _ => {
                let sig = SigSpec::Method {
                    access: m.access,
                    name: m.name.clone(),
                    declaring,
                    descriptor: m.descriptor.clone(),
                    params: self.param_names(),
                    exceptions: dotted_list(&m.exceptions),
                };
                match self.advice_name() {
                    Some(n) => ("adviceexecution", statics::advice_sig(sig, n)),
                    None => ("method-execution", sig),
                }
            }
        };
        StaticPartSpec {
            kind,
            sig,
            line: first_line,
            shadow: self.statics.next_shadow(),
        }
    }

    /// How the advice signature shows the woven method, if it is an advice.
    pub(super) fn advice_name(&self) -> Option<aspect_classes::AdviceName> {
        match self.weaver.roles.role(
            &self.cls.name,
            &self.member.name,
            &self.member.descriptor,
            false,
        ) {
            aspect_classes::Role::Advice(n) => Some(n),
            _ => None,
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

    /// With full coverage: sets the DIB for the advice dispatch that follows
    /// (it calls library code, which is woven too), keeping the previous
    /// value in a new local, which is returned for [`bypass::restore`].
    pub(super) fn enter_dib(&mut self, out: &mut Vec<Insn>) -> Result<Option<u16>> {
        if !self.weaver.full_coverage {
            return Ok(None);
        }
        let prev = self.temp("Z");
        bypass::enter(prev, self.pool, out)?;
        Ok(Some(prev))
    }

    /// `Factory.makeJP(sp, this, target, new Object[] { args })`, or the
    /// shadow's shared join point when it has one.
    pub(super) fn join_point(&mut self, ctx: &Context, out: &mut Vec<Insn>) -> Result<()> {
        if let Some(l) = ctx.jp {
            out.push(emit::load(JOIN_POINT, l));
            return Ok(());
        }
        // Boxing the arguments calls library code, which is woven too: with
        // full coverage it runs with the DIB set.
        let dib = self.enter_dib(out)?;
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
        if let Some(prev) = dib {
            bypass::restore(prev, self.pool, out)?;
        }
        Ok(())
    }

    /// When some of `matched` asks for `thisJoinPoint`: makes the shadow's one
    /// join point into a new local (code appended to `out`) and records it in
    /// `ctx`, so that every advice there, inside proceed methods too, sees the
    /// same object with the values the join point started with (as in AspectJ).
    /// With `guard` (an execution woven with guards), the local is null while
    /// a bypass is on.
    pub(super) fn shared_join_point(
        &mut self,
        matched: &[Matched<'_, '_>],
        ctx: &mut Context,
        guard: Option<u16>,
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
            let bypassed = self.code.new_label();
            let done = self.code.new_label();
            if let Some(s) = guard {
                bypass::guard(s, bypassed, out);
            }
            self.join_point(ctx, out)?;
            if guard.is_some() {
                out.push(Insn::Jump {
                    op: op::GOTO,
                    target: done,
                });
                out.push(Insn::Label(bypassed));
                out.push(Insn::Simple(op::ACONST_NULL));
                out.push(Insn::Label(done));
            }
            let l = self.temp(JOIN_POINT);
            out.push(emit::store(JOIN_POINT, l));
            ctx.jp = Some(l);
        }
        Ok(())
    }

    /// Pushes a join point's static part, `this` (or null), target (or null) and
    /// arguments (a new `Object[]`, primitives boxed).
    pub(super) fn push_join_point_values(
        &mut self,
        ctx: &Context,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        self.statics.get(
            ctx.sp.as_deref().cloned().expect("static part"),
            self.pool,
            out,
        )?;
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
        emit::boxed_array(&ctx.args, self.pool, out)
    }
}

/// Internal names as a comma-separated list of dotted names (a signature's exceptions).
fn dotted_list(v: &[String]) -> String {
    v.iter()
        .map(|s| s.replace('/', "."))
        .collect::<Vec<_>>()
        .join(",")
}
