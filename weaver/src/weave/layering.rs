//! Layering: the matched advice nested around a shadow, innermost first —
//! before advice prepended, after returning appended, after (throwing)
//! handlers at the end of the method, around advice moving everything inside
//! into a proceed method ([`super::around`]). A point shadow's operands go to
//! temps first and its woven code replaces the instruction; an execution's
//! returns become jumps to a single exit.

use std::rc::Rc;

use major_classfile::class_reader::ACC_STATIC;
use major_classfile::opcodes::op;
use major_classfile::{descriptor, Handler, Insn, Label, Result};
use major_pointcut_lang::ast::AdviceKind;
use major_pointcut_lang::matcher::ShadowKind;

use super::kind_name;
use super::matching::Matched;
use super::method::{label_index, MethodWeave};
use super::plan::Residue;
use super::shadows::{Context, Found, PointShadow};
use super::statics::StaticPartSpec;
use super::{bypass, emit, outline};
use super::{is_around, THROWABLE};

/// Whether a method is annotated `@CallerSensitive` (JDK 9+ or JDK 8): it asks
/// for its caller's class by stack depth, so no frame may come between them.
fn is_caller_sensitive(annotations: &[String]) -> bool {
    annotations
        .iter()
        .any(|a| a == "jdk/internal/reflect/CallerSensitive" || a == "sun/reflect/CallerSensitive")
}

/// Whether a method is a HotSpot intrinsic candidate
/// (`@IntrinsicCandidate`, JDK 16+; `@HotSpotIntrinsicCandidate` before): the
/// JIT may replace its body, at the calls it compiles, by code of its own.
pub(super) fn is_intrinsic(annotations: &[String]) -> bool {
    annotations.iter().any(|a| {
        a == "jdk/internal/vm/annotation/IntrinsicCandidate"
            || a == "jdk/internal/HotSpotIntrinsicCandidate"
    })
}

impl<'w, 'p> MethodWeave<'w, 'p, '_> {
    /// Weaves a call site, field access or handler entry; its temps are free for
    /// the next point shadow afterwards.
    pub(super) fn weave_point(
        &mut self,
        f: &Found,
        line: i32,
        esp: Option<&Rc<StaticPartSpec>>,
    ) -> Result<()> {
        self.taken_temps = Some(Vec::new());
        let r = self.weave_point_with_temps(f, line, esp);
        let taken = self.taken_temps.take().unwrap_or_default();
        self.free_temps.extend(taken);
        r
    }

    fn weave_point_with_temps(
        &mut self,
        f: &Found,
        line: i32,
        esp: Option<&Rc<StaticPartSpec>>,
    ) -> Result<()> {
        let PointShadow {
            subject_class,
            subject,
            target: target_desc,
            args: arg_descs,
            result,
            mut ctx,
        } = self.point_shadow(f, line, esp)?;
        let insn = self.code.insns[f.at].clone();
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
        let matched = if f.kind == ShadowKind::ConstructorCall
            && !moves_new
            && matched.iter().any(|m| is_around(m.advice))
        {
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
        // Full coverage: a call of each advice's dispatch where they all have
        // one, the instruction left in place (`straight`).
        if let Some(code) = self.straight_line(f, &matched, result.as_deref(), moves_new, &insn)? {
            self.replacements.push((f.at, true, code));
            self.record(f.kind, &matched);
            return Ok(());
        }
        // Real temps. In a compact method, operands no advice looks at stay
        // on the stack (a moved `new; dup` must go under them: not there).
        let keep_operands = !self.compact || moves_new || outline::uses_operands(&matched);
        // The replacement begins with the stores: sized once for what follows
        // (an advice call with its guard and join point takes some 30).
        let mut pre_store = Vec::with_capacity(48);
        let mut reload = Vec::new();
        if !keep_operands {
            ctx.target = None;
            ctx.args = Vec::new();
        } else if f.kind == ShadowKind::ExceptionHandler {
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
            || (matched
                .iter()
                .any(|m| m.advice.is_after() || is_around(m.advice))
                && (!self.compact || outline::uses_result(&matched)));
        ctx.ret = match (&result, needs_ret) {
            (Some(d), true) => Some((self.temp(d), d.to_string())),
            (None, _) => Some((0, "V".to_string())),
            _ => None,
        };
        ctx.exc = Some((self.temp(THROWABLE), THROWABLE.to_string()));
        // The core: reload operands, the instruction, keep the result.
        let mut core = Vec::with_capacity(reload.len() + 4);
        if let (true, Some(n)) = (moves_new, f.new_at) {
            core.push(self.code.insns[n].clone());
            core.push(Insn::Simple(op::DUP));
        }
        core.extend(reload);
        // With guards, the shadow as it was: what runs when a bypass is on.
        let mut plain = Vec::new();
        if f.kind != ShadowKind::ExceptionHandler {
            core.push(insn);
            if self.guard.is_some() {
                plain.clone_from(&core);
            }
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
        let bypassed = self.code.new_label();
        if let Some(s) = self.guard {
            bypass::guard(s, bypassed, &mut replacement);
        }
        self.shared_join_point(&matched, &mut ctx, None, &mut replacement)?;
        let layered = self.layer(&matched, &ctx, core, false, None)?;
        replacement.extend(layered.body);
        if let (Some((l, d)), true) = (&ctx.ret, needs_ret) {
            if d != "V" {
                replacement.push(emit::load(d, *l));
            }
        }
        if self.guard.is_some() {
            // Bypassed: the operands the replacement stored, reloaded, and
            // the instruction.
            if plain.is_empty() {
                replacement.push(Insn::Label(bypassed));
            } else {
                let done = self.code.new_label();
                replacement.push(Insn::Jump {
                    op: op::GOTO,
                    target: done,
                });
                replacement.push(Insn::Label(bypassed));
                replacement.extend(plain);
                replacement.push(Insn::Label(done));
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

    /// Weaves the execution (or static initialization) of the whole body.
    /// With `end_marker`, only the code between the markers (which has no
    /// `return`, e.g. preinitialization): the join point ends where it falls
    /// through to the marker.
    pub(super) fn weave_execution(
        &mut self,
        kind: ShadowKind,
        body_marker: Label,
        end_marker: Option<Label>,
        esp: &StaticPartSpec,
    ) -> Result<()> {
        // No advice, cflow entry or declare could match a shadow of this
        // kind: nothing to match (point shadows of such kinds are not even
        // found, see `Weaver::could_match`).
        if !self.weaver.could_match(kind) {
            return Ok(());
        }
        let m = self.member;
        let is_static = m.access & ACC_STATIC != 0;
        let this = (!is_static).then(|| emit::object_descriptor(&self.cls.name));
        let (params, ret) = descriptor::parse_method(&m.descriptor)?;
        let mut slot = u16::from(!is_static);
        let mut args = Vec::new();
        for p in &params {
            args.push((slot, p.to_string()));
            slot += emit::size(p);
        }
        let shared = Rc::new(esp.clone());
        let mut ctx = Context {
            this: this.clone(),
            target: this.clone().map(|d| (0, d)),
            args,
            sp: Some(shared.clone()),
            esp: Some(shared),
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
        if self.guard.is_some() && matched.iter().any(|m| is_around(m.advice)) {
            // Bypassing around advice on the body means running the body,
            // which moves into the proceed method: the method is woven again
            // and duplicated.
            self.wants_duplicate = true;
            return Ok(());
        }
        if kind == ShadowKind::MethodExecution && is_intrinsic(&self.member.annotations) {
            // HotSpot replaces the body of an intrinsic when it compiles a
            // call to it: advice woven there would run only while the caller
            // is interpreted. The advice matched; the method stays as it is,
            // and the weave counts it.
            for m in &matched {
                self.outcome.hit(m.advice.id, kind_name(kind));
            }
            self.outcome.intrinsics += 1;
            return Ok(());
        }
        if kind == ShadowKind::MethodExecution && self.is_empty_finalize() {
            // The advice matched (no "did not match" warning), but the
            // method stays as it is.
            for m in &matched {
                self.outcome.hit(m.advice.id, kind_name(kind));
            }
            self.outcome.empty_finalizers += 1;
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
        let start = self.position(body_marker) + 1;
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
            Some(m) => self.position(m),
            None => self.code.insns.len(),
        };
        let body: Vec<Insn> = self.code.insns.drain(start..end).collect();
        let mut core = body;
        if returns {
            core.push(Insn::Label(exit));
        }
        let mut new_body = Vec::new();
        let guard = self.guard;
        self.shared_join_point(&matched, &mut ctx, guard, &mut new_body)?;
        let layered = self.layer(&matched, &ctx, core, end_marker.is_none(), guard)?;
        new_body.extend(layered.body);
        if returns {
            match &ctx.ret {
                Some((l, d)) if d != "V" => {
                    new_body.push(emit::load(d, *l));
                    new_body.push(Insn::Simple(emit::return_op(d)));
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

    /// Nests the advice around `core`, innermost first. With `guard` (the
    /// local of the bypass decision: an execution woven with guards), each
    /// advice call and cflow entry is skipped while a bypass is on.
    fn layer(
        &mut self,
        matched: &[Matched<'_, '_>],
        ctx: &Context,
        core: Vec<Insn>,
        body_is_method: bool,
        guard: Option<u16>,
    ) -> Result<Layered> {
        let mut body_is_method = body_is_method;
        let mut core = core;
        let mut core_start = self.code.new_label();
        let mut core_end = self.code.new_label();
        // `pre` becomes the body, the core and `post` appended.
        let mut pre: Vec<Insn> = Vec::with_capacity(32 + core.len());
        let mut post: Vec<Insn> = Vec::with_capacity(16);
        let mut tail: Vec<Insn> = Vec::new();
        let mut handlers: Vec<Handler> = Vec::new();
        let (mut start, mut end) = (core_start, core_end);
        let mut extra_ranges: Vec<(Label, Label)> = Vec::new();
        for m in matched {
            if let Some(entry) = &m.advice.entry {
                // Enter the control flow (remembering whether it was entered when
                // the entry has a runtime test), leave it after, however it ends.
                let flag = (m.residue != Residue::True || guard.is_some()).then(|| self.temp("I"));
                let l = self.code.new_label();
                let mut c = vec![Insn::Label(l)];
                let skip = self.code.new_label();
                if let Some(f) = flag {
                    c.push(Insn::Simple(3)); // iconst_0
                    c.push(emit::store("I", f));
                    if let Some(s) = guard {
                        bypass::guard(s, skip, &mut c);
                    }
                    if m.residue != Residue::True {
                        self.jump_if(&m.residue, false, skip, m.advice, ctx, &mut c)?;
                    }
                }
                self.cflow_enter(entry, ctx, &mut c)?;
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
                    self.guarded_call(m, ctx, guard, &mut c)?;
                    c.append(&mut pre);
                    pre = c;
                    start = l;
                }
                AdviceKind::AfterReturning(_) => {
                    self.guarded_call(m, ctx, guard, &mut post)?;
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
                    self.guarded_call(m, ctx, guard, &mut tail)?;
                    tail.push(emit::load(THROWABLE, exc_local));
                    tail.push(Insn::Simple(op::ATHROW));
                    tail.push(Insn::Label(h_end));
                    extra_ranges.push((h, h_end));
                    if matches!(m.advice.resolved.kind, AdviceKind::After) {
                        self.guarded_call(m, ctx, guard, &mut post)?;
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
                    // The body's own handlers first: the JVM takes the first
                    // matching entry, and the advice handlers must not come
                    // before the body's catch/finally/monitor-exit entries.
                    let mut inner_handlers = std::mem::take(&mut handlers);
                    if body_is_method {
                        let mut own = std::mem::take(&mut self.code.handlers);
                        own.append(&mut inner_handlers);
                        inner_handlers = own;
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

    /// [`Self::advice_call`], skipped while the bypass decision in `guard`
    /// says a bypass is on.
    fn guarded_call(
        &mut self,
        m: &Matched<'_, '_>,
        ctx: &Context,
        guard: Option<u16>,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        let Some(s) = guard else {
            return self.advice_call(m, ctx, out);
        };
        let bypassed = self.code.new_label();
        if m.residue == Residue::True
            && matches!(m.advice.resolved.kind, AdviceKind::Before)
            && self
                .weaver
                .dispatch
                .get(m.advice.id)
                .is_some_and(Option::is_some)
        {
            // The call may become a dispatch (`fuse_dispatch`).
            let start = self.code.new_label();
            out.push(Insn::Label(start));
            self.dispatchable.push((start, bypassed, m.advice.id));
        }
        bypass::guard(s, bypassed, out);
        self.advice_call(m, ctx, out)?;
        out.push(Insn::Label(bypassed));
        Ok(())
    }

    /// A final field of this class that the body (after `body_marker`) sets with
    /// `store` (`putfield` in a constructor, `putstatic` in `<clinit>`), if any.
    fn final_field_set(&self, body_marker: Label, store: u8) -> Result<Option<String>> {
        let start = label_index(self.code, body_marker).unwrap_or(0);
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
}

/// Advice nested around a core: the code in place of the core, the code
/// that goes to the end of the method (handlers), and the exception-table
/// entries of the handlers.
struct Layered {
    body: Vec<Insn>,
    tail: Vec<Insn>,
    handlers: Vec<Handler>,
}
