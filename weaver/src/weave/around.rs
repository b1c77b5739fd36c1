//! Around advice: everything inside the around layer moves into a proceed
//! method (`major$proceed$N`, private static synthetic), which the advice
//! reaches through a closure (a `MethodHandle` with the join point's state
//! bound) or, when the advice takes a `ProceedingJoinPoint`, through that
//! join point's closure in AspectJ's `{this, target, args}` layout.

use major_classfile::frames::{self, MethodContext};
use major_classfile::opcodes::op;
use major_classfile::{descriptor, CodeAttr, Handler, Insn, Result};

use super::join_points::JOIN_POINT;
use super::matching::{assignable, Matched};
use super::method::{method_info, MethodWeave};
use super::plan::{Residue, Source};
use super::shadows::Context;
use super::{bypass, emit, statics};
use crate::aspects::{Extra, Param};

/// The descriptor of proceed methods: `(Object[] state, Object[] formals) -> Object`.
const PROCEED_DESC: &str = "([Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;";

impl<'w, 'p> MethodWeave<'w, 'p, '_> {
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
    pub(super) fn proceed_method(
        &mut self,
        m: &Matched<'_, '_>,
        ctx: &Context,
        inner: Vec<Insn>,
        tail: Vec<Insn>,
        handlers: Vec<Handler>,
    ) -> Result<String> {
        let name = format!("major$proceed${}", self.outcome.proceed_methods);
        self.outcome.proceed_methods += 1;
        let desc = PROCEED_DESC;
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
            emit::convert_from_advice("Ljava/lang/Object;", &d, true, self.pool, &mut out)?;
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
        emit::compact_locals(&mut p.insns);
        let class_name = self.cls.name.clone();
        let ctx_m = MethodContext {
            class_name: &class_name,
            name: &name,
            descriptor: desc,
            is_static: true,
            major_version: self.major_version,
        };
        if self.weaver.full_coverage {
            p.max_locals = 2; // the two arrays
            bypass::wrap_clear_dib(&mut p, self.pool)?;
        }
        frames::compute(&mut p, &ctx_m, self.pool, self.weaver.world.index())?;
        // private static synthetic
        let method = method_info(0x100A, &name, desc, &p, self.pool)?;
        self.added.push(method);
        Ok(name)
    }

    /// The around advice call that replaces the code moved into `proceed`: packs
    /// the state, makes the closure, calls the advice (or, when its runtime test
    /// fails, the proceed method directly), and stores the result.
    pub(super) fn around_call(
        &mut self,
        m: &Matched<'_, '_>,
        ctx: &Context,
        proceed: &str,
    ) -> Result<Vec<Insn>> {
        let a = m.advice;
        let mut out = Vec::new();
        // With full coverage, the dispatch (boxing the state, the closure's
        // method handle, residues) runs with the DIB set: it calls library
        // code, which is woven too.
        let dib = self.enter_dib(&mut out)?;
        let state_local = self.temp("Ljava/lang/Object;");
        let layout = self.state_layout(ctx);
        emit::boxed_array(&layout, self.pool, &mut out)?;
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
                Param::Formal(slot) => {
                    let src = a.binds.get(slot).copied().flatten();
                    let want = a.method.formal_types.get(slot).map_or(want, String::as_str);
                    self.load_source(src, want, ctx, &mut out)?;
                }
                Param::Extra(Extra::AroundClosure) => {
                    self.closure(proceed, state_local, &mut out)?;
                }
                Param::Extra(Extra::JoinPoint) => {
                    self.proceeding_join_point(m, ctx, proceed, &mut out)?;
                }
                Param::Extra(e) => self.push_param_extra(e, want, ctx, &mut out)?,
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
            (Some((_, d)), "V") => emit::push_default(d, &mut out),
            (Some((_, d)), r) => {
                let cast = !assignable(&self.weaver.world, r, d);
                emit::convert_from_advice(r, d, cast, self.pool, &mut out)?;
            }
        }
        if let Some((l, d)) = &result {
            out.push(emit::store(d, *l));
        }
        if let Some(prev) = dib {
            bypass::restore(prev, self.pool, &mut out)?;
        }
        if m.residue != Residue::True {
            out.push(Insn::Jump {
                op: op::GOTO,
                target: done,
            });
            out.push(Insn::Label(direct));
            if let Some(prev) = dib {
                bypass::restore(prev, self.pool, &mut out)?;
            }
            out.push(emit::load("[Ljava/lang/Object;", state_local));
            out.push(Insn::Simple(op::ACONST_NULL));
            let pm = self
                .pool
                .method_ref(&self.cls.name.clone(), proceed, PROCEED_DESC, false)?;
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

    /// `new <closure>(…` up to its first argument: `new C; dup; ldc
    /// MethodHandle(<proceed>)`.
    fn new_closure(&mut self, closure: &str, proceed: &str, out: &mut Vec<Insn>) -> Result<()> {
        let c = self.pool.class(closure)?;
        out.push(Insn::Cp {
            op: op::NEW,
            index: c,
        });
        out.push(Insn::Simple(op::DUP));
        let pm = self
            .pool
            .method_ref(&self.cls.name.clone(), proceed, PROCEED_DESC, false)?;
        let mh = self.pool.method_handle(6, pm)?; // REF_invokeStatic
        out.push(Insn::Ldc {
            index: mh,
            wide: mh > 255,
        });
        Ok(())
    }

    /// `new MethodHandleClosure(MethodHandles.insertArguments(<proceed>, 0, state))`.
    fn closure(&mut self, proceed: &str, state_local: u16, out: &mut Vec<Insn>) -> Result<()> {
        const CLOSURE: &str = "major/runtime/MethodHandleClosure";
        self.new_closure(CLOSURE, proceed, out)?;
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
        self.new_closure(CLOSURE, proceed, out)?;
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
}
