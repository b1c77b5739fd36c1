//! Annotation-style aspects: `@Aspect` classes written in Java and compiled by
//! javac unchanged (see [`compile`](super::compile())).
//!
//! Two things turn such a class into an aspect the weaver can call:
//!
//! * its advice are described from the class file: each advice is the user's
//!   annotated method, whose parameters (in the user's order) are formals or
//!   join-point values (`describe_advice`); an empty `if()` in a `@Pointcut`
//!   method's string is a test by that method (`if_tests`);
//! * the class is rewritten, as ajc does when it weaves an `@Aspect` class, to
//!   hold its single instance: a private static field, `public static A
//!   aspectOf()` (throwing `org.aspectj.lang.NoAspectBoundException` when there is
//!   no instance), `public static boolean hasAspect()`, and the creation of the
//!   instance at the end of the static initializer ([`add_aspect_of`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use major_archive::{Archive, RuntimeImage};
use major_classfile::class_reader::ACC_STATIC;
use major_classfile::frames::{self, MethodContext};
use major_classfile::opcodes::op;
use major_classfile::{
    descriptor, method_with_code, write_class, ClassEdit, ClassFile, ClassHierarchy, ClassInfo,
    Code, CodeAttribute, Error, ErrorKind, Handler, Insn, PoolBuilder,
};
use major_pointcut_lang::ast::{AdviceKind, CompilationUnit, Member, Span};
use major_pointcut_lang::resolve::PcKind;
use major_pointcut_lang::{Diagnostic, Program, ResolvedAdvice};

use super::compile::{collect_ifs, contains, java_tokens, qualified, Methods, TokKind};
use super::{AdviceMethod, AspectCompileError, Extra, IfTest, Param};
use crate::index::ClassIndex;
use crate::jdk::Jdk;

/// Name of the private static field holding an aspect's instance.
pub const INSTANCE_FIELD: &str = "major$instance";
/// Name of the private static field holding why the instance could not be made.
pub const FAILURE_FIELD: &str = "major$initFailureCause";
/// Name of the private static method that makes the instance (called at the end
/// of the static initializer).
pub const POST_CLINIT: &str = "major$postClinit";

const THROWABLE: &str = "java/lang/Throwable";
const NO_ASPECT: &str = "org/aspectj/lang/NoAspectBoundException";

/// The [`Extra`] a parameter of this JVM descriptor stands for, if it is one of
/// AspectJ's join-point types.
pub fn extra_of(descriptor: &str) -> Option<Extra> {
    match descriptor {
        "Lorg/aspectj/lang/JoinPoint;" | "Lorg/aspectj/lang/ProceedingJoinPoint;" => {
            Some(Extra::JoinPoint)
        }
        "Lorg/aspectj/lang/JoinPoint$StaticPart;" => Some(Extra::StaticPart),
        "Lorg/aspectj/lang/JoinPoint$EnclosingStaticPart;" => Some(Extra::EnclosingStaticPart),
        "Lmajor/runtime/CallingContext;" => Some(Extra::CallingContext),
        _ => None,
    }
}

/// The name of the method declared in `span` of `src` (annotations first): the
/// identifier before the first `(` that is not inside an annotation, with its
/// span in `src`.
pub fn method_name(src: &str, span: Span) -> Option<(String, Span)> {
    let text = src.get(span.start..span.end)?;
    let toks = java_tokens(text);
    let word = |k: usize| &text[toks[k].start..toks[k].end];
    let mut k = 0;
    while k < toks.len() {
        match toks[k].kind {
            TokKind::Punct(b'@') => {
                // `@Name`, `@a.b.Name`, then maybe `( .. )`.
                k += 2;
                while k + 1 < toks.len()
                    && toks[k].kind == TokKind::Punct(b'.')
                    && toks[k + 1].kind == TokKind::Ident
                {
                    k += 2;
                }
                if toks.get(k).map(|t| t.kind) == Some(TokKind::Punct(b'(')) {
                    let mut depth = 0usize;
                    while k < toks.len() {
                        match toks[k].kind {
                            TokKind::Punct(b'(') => depth += 1,
                            TokKind::Punct(b')') => {
                                depth -= 1;
                                if depth == 0 {
                                    k += 1;
                                    break;
                                }
                            }
                            _ => {}
                        }
                        k += 1;
                    }
                }
            }
            TokKind::Punct(b'(') => {
                let name = k.checked_sub(1)?;
                if toks[name].kind != TokKind::Ident {
                    return None;
                }
                let t = toks[name];
                return Some((
                    word(name).to_string(),
                    Span::new(span.start + t.start, span.start + t.end),
                ));
            }
            _ => k += 1,
        }
    }
    None
}

/// The simple name a JVM descriptor's class has (`Lp/Outer$In;` → `In`), with
/// array dimensions; primitives by their Java keyword.
fn simple_type(desc: &str) -> (String, usize) {
    let dims = desc.bytes().take_while(|&b| b == b'[').count();
    let base = &desc[dims..];
    let name = match base {
        "I" => "int",
        "J" => "long",
        "S" => "short",
        "B" => "byte",
        "C" => "char",
        "Z" => "boolean",
        "F" => "float",
        "D" => "double",
        "V" => "void",
        _ => {
            let n = base.trim_start_matches('L').trim_end_matches(';');
            n.rsplit(['/', '$']).next().unwrap_or(n)
        }
    };
    (name.to_string(), dims)
}

fn error_at(
    program: &Program,
    file: usize,
    span: Span,
    message: String,
    label: &str,
) -> Diagnostic {
    Diagnostic::error("aspect::annotation-style", message, span)
        .with_label(label)
        .in_source(&program.files[file])
}

fn compile_error(d: Diagnostic) -> AspectCompileError {
    AspectCompileError::Compile {
        diagnostics: vec![d],
    }
}

/// Describes annotation-style advice `adv` from the class javac made of it: the
/// method (found by the name written in the source, overloads told apart by
/// their parameter types), its formal types per slot and its parameters in the
/// user's order.
pub(super) fn describe_advice(
    program: &Program,
    adv: &ResolvedAdvice,
    methods: &mut Methods<'_>,
) -> Result<AdviceMethod, AspectCompileError> {
    let owner = adv.declared_in.replace('.', "/");
    let src = program.files[adv.file].text();
    let (name, name_span) = method_name(src, adv.span).ok_or_else(|| {
        AspectCompileError::Internal(format!(
            "no method name found for the advice at {}..{} of {}",
            adv.span.start,
            adv.span.end,
            program.files[adv.file].name()
        ))
    })?;
    // The formals in the order the method declares them.
    let mut order: Vec<usize> = (0..adv.formals.len()).collect();
    order.sort_by_key(|&k| adv.formals[k].span.start);
    let candidates: Vec<(String, u16)> = methods
        .all(&owner)?
        .iter()
        .filter(|m| m.name == name)
        .filter(|m| {
            descriptor::parse_method(&m.descriptor).is_ok_and(|(p, _)| p.len() == order.len())
        })
        .map(|m| (m.descriptor.clone(), m.access))
        .collect();
    let matches_source = |desc: &str| {
        let Ok((params, _)) = descriptor::parse_method(desc) else {
            return false;
        };
        params.iter().zip(&order).all(|(p, &k)| {
            let ty = &adv.formals[k].ty;
            let (simple, dims) = simple_type(p);
            let written = ty.name.rsplit('.').next().unwrap_or(&ty.name);
            let written_dims = ty.dims as usize + usize::from(ty.varargs);
            simple == written && dims == written_dims
        })
    };
    let (descriptor, access) = match candidates.as_slice() {
        [one] => one.clone(),
        [] => {
            return Err(AspectCompileError::Internal(format!(
                "class {owner} has no method {name} with {} parameters",
                order.len()
            )))
        }
        many => many
            .iter()
            .find(|(d, _)| matches_source(d))
            .cloned()
            .unwrap_or_else(|| many[0].clone()),
    };
    if access & 0x0001 == 0 || access & ACC_STATIC != 0 {
        return Err(compile_error(error_at(
            program,
            adv.file,
            name_span,
            format!("advice `{name}` must be a public instance method"),
            "advice method",
        )));
    }
    let (ptypes, _) = descriptor::parse_method(&descriptor)
        .map_err(|e| AspectCompileError::Internal(e.to_string()))?;
    let around = matches!(adv.kind, AdviceKind::Around(_));
    let mut formal_types = vec![String::new(); adv.formals.len()];
    let mut params = Vec::with_capacity(order.len());
    for (p, &k) in ptypes.iter().zip(&order) {
        formal_types[k] = p.to_string();
        match extra_of(p) {
            Some(_) if *p == "Lorg/aspectj/lang/ProceedingJoinPoint;" && !around => {
                return Err(compile_error(error_at(
                    program,
                    adv.file,
                    adv.formals[k].span,
                    "only around advice can take a ProceedingJoinPoint".to_string(),
                    "use JoinPoint here",
                )));
            }
            Some(e) => params.push(Param::Extra(e)),
            None => params.push(Param::Formal(k)),
        }
    }
    Ok(AdviceMethod {
        owner,
        name,
        descriptor,
        kind: adv.kind.clone(),
        formal_types,
        params,
        if_tests: Vec::new(),
    })
}

/// The `if()` tests of annotation-style advice `adv`: each empty `if()` (in
/// pre-order) is decided by the `@Pointcut` method whose string contains it, a
/// public static boolean method taking the pointcut's formals, then its
/// join-point parameters.
pub(super) fn if_tests(
    program: &Program,
    adv: &ResolvedAdvice,
    units: &mut HashMap<usize, Option<CompilationUnit>>,
    methods: &mut Methods<'_>,
) -> Result<Vec<IfTest>, AspectCompileError> {
    let mut nodes = Vec::new();
    collect_ifs(&adv.pointcut, &mut nodes);
    let mut out = Vec::new();
    for pc in nodes {
        let PcKind::If { expr, names } = &pc.kind else {
            continue;
        };
        let unsupported = |why: String, label: &str| {
            compile_error(error_at(program, pc.file, pc.span, why, label))
        };
        if !expr.is_empty() {
            return Err(unsupported(
                format!("`if({expr})` in an annotation-style pointcut is not supported"),
                "use `if()` in a @Pointcut method that returns the test",
            ));
        }
        let unit = units
            .entry(pc.file)
            .or_insert_with(|| major_pointcut_lang::parse_file(&program.files[pc.file]).ok());
        let decl = unit.as_ref().and_then(|u| {
            let a = u.aspects.iter().find(|a| contains(a.span, pc.span))?;
            let p = a.members.iter().find_map(|m| match m {
                Member::Pointcut(p) if contains(p.span, pc.span) => Some(p),
                _ => None,
            })?;
            Some((qualified(u, &a.name.name), p))
        });
        let Some((owner, decl)) = decl else {
            return Err(unsupported(
                "`if()` outside a @Pointcut method".to_string(),
                "no method to decide this test",
            ));
        };
        let owner = owner.replace('.', "/");
        let name = decl.name.name.clone();
        let info = methods
            .all(&owner)?
            .iter()
            .find(|m| m.name == name && m.descriptor.ends_with(")Z") && m.access & ACC_STATIC != 0)
            .cloned();
        let Some(info) = info else {
            return Err(compile_error(error_at(
                program,
                pc.file,
                decl.name.span,
                format!("the @Pointcut method `{name}` with `if()` must be public static boolean"),
                "decides the `if()`",
            )));
        };
        let (ptypes, _) = descriptor::parse_method(&info.descriptor)
            .map_err(|e| AspectCompileError::Internal(e.to_string()))?;
        let mut slots = Vec::new();
        let mut extras = Vec::new();
        for (p, f) in ptypes.iter().zip(&decl.params) {
            match extra_of(p) {
                Some(e) => extras.push(if *p == "Lorg/aspectj/lang/ProceedingJoinPoint;" {
                    Extra::JoinPoint
                } else {
                    e
                }),
                None => {
                    let slot = names.iter().find(|(n, _)| *n == f.name.name).map(|s| s.1);
                    let (Some(slot), true) = (slot, extras.is_empty()) else {
                        return Err(compile_error(error_at(
                            program,
                            pc.file,
                            f.span,
                            format!(
                                "parameter `{}` of `{name}` must be bound by the pointcut and come \
                                 before the join-point parameters",
                                f.name.name
                            ),
                            "major cannot pass this parameter",
                        )));
                    };
                    slots.push(slot);
                }
            }
        }
        out.push(IfTest {
            owner,
            name,
            descriptor: info.descriptor,
            slots,
            extras,
        });
    }
    Ok(out)
}

/// The class hierarchy used to re-frame rewritten aspect classes: the compiled
/// aspect classes, the class path javac saw, and the JDK javac belongs to. Built
/// on first use (only a static initializer needs it).
pub struct AspectHierarchy<'a> {
    classpath: &'a Path,
    javac: &'a Path,
    classes: &'a [(String, Vec<u8>)],
    index: OnceLock<ClassIndex>,
}

impl<'a> AspectHierarchy<'a> {
    /// The hierarchy over `classes`, the entries of `classpath` (a path list) and
    /// the JDK of `javac` (else the JDK [`Jdk::find`] finds).
    pub fn new(classpath: &'a Path, javac: &'a Path, classes: &'a [(String, Vec<u8>)]) -> Self {
        AspectHierarchy {
            classpath,
            javac,
            classes,
            index: OnceLock::new(),
        }
    }

    fn index(&self) -> &ClassIndex {
        self.index.get_or_init(|| {
            let mut index = ClassIndex::new();
            for (_, bytes) in self.classes {
                let _ = index.add_class(bytes);
            }
            for p in std::env::split_paths(self.classpath) {
                if let Ok(a) = Archive::open(&p) {
                    index.add_shared(Arc::new(a));
                }
            }
            let home: Option<PathBuf> = std::fs::canonicalize(self.javac)
                .ok()
                .and_then(|j| Some(j.parent()?.parent()?.to_path_buf()));
            let jdk = home.and_then(|h| Jdk::at(&h)).or_else(Jdk::find);
            if let Some(a) = jdk.and_then(|j| RuntimeImage::open(&j.modules()).ok()) {
                index.add_image(Arc::new(a));
            }
            index
        })
    }
}

impl ClassHierarchy for AspectHierarchy<'_> {
    fn class_info(&self, name: &str) -> Option<ClassInfo> {
        self.index().class_info(name)
    }

    fn common_super_class(&self, a: &str, b: &str) -> major_classfile::Result<Arc<str>> {
        self.index().common_super_class(a, b)
    }
}

fn unsupported(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Unsupported, None, message)
}

/// The class methods are added to.
struct Host<'a> {
    name: &'a str,
    major_version: u16,
    hierarchy: &'a dyn ClassHierarchy,
}

/// Builds a `method_info` with `code` as its body (frames computed).
fn new_method(
    pool: &mut PoolBuilder<'_>,
    host: &Host<'_>,
    access: u16,
    name: &str,
    desc: &str,
    code: &mut Code,
) -> major_classfile::Result<Vec<u8>> {
    let ctx = MethodContext {
        class_name: host.name,
        name,
        descriptor: desc,
        is_static: access & ACC_STATIC != 0,
        major_version: host.major_version,
    };
    frames::compute(code, &ctx, pool, host.hierarchy)?;
    let code_name = pool.utf8("Code")?;
    let mut m = Vec::new();
    m.extend_from_slice(&access.to_be_bytes());
    m.extend_from_slice(&pool.utf8(name)?.to_be_bytes());
    m.extend_from_slice(&pool.utf8(desc)?.to_be_bytes());
    m.extend_from_slice(&1u16.to_be_bytes());
    code.write_attribute(code_name, &code.layout(), &mut m)?;
    Ok(m)
}

fn field_info(
    pool: &mut PoolBuilder<'_>,
    access: u16,
    name: &str,
    desc: &str,
) -> major_classfile::Result<Vec<u8>> {
    let mut f = Vec::with_capacity(8);
    f.extend_from_slice(&access.to_be_bytes());
    f.extend_from_slice(&pool.utf8(name)?.to_be_bytes());
    f.extend_from_slice(&pool.utf8(desc)?.to_be_bytes());
    f.extend_from_slice(&0u16.to_be_bytes());
    Ok(f)
}

/// Rewrites the `@Aspect` class `bytes` into a singleton aspect, as ajc does:
///
/// ```text
/// public static A major$instance;
/// private static Throwable major$initFailureCause;
/// public static A aspectOf() {
///     if (major$instance == null) throw new NoAspectBoundException("p.A", major$initFailureCause);
///     return major$instance;
/// }
/// public static boolean hasAspect() { return major$instance != null; }
/// private static void major$postClinit() {
///     try { major$instance = new A(); } catch (Throwable t) { major$initFailureCause = t; }
/// }
/// static { <the class's own initializer>; major$postClinit(); }
/// ```
///
/// The class must have a constructor without parameters and must not declare
/// `aspectOf` or `hasAspect` itself. Changed and new methods get frames computed
/// with `hierarchy`.
pub fn add_aspect_of(
    bytes: &[u8],
    hierarchy: &dyn ClassHierarchy,
) -> major_classfile::Result<Vec<u8>> {
    let class = ClassFile::parse(bytes)?;
    let name = class.name()?.into_owned();
    let dotted = name.replace('/', ".");
    let desc = format!("L{name};");
    let mut clinit = None;
    let mut has_init = false;
    for (i, m) in class.methods.iter().enumerate() {
        let n = class.member_name(m)?;
        let d = class.member_descriptor(m)?;
        match (n.as_ref(), d.as_ref()) {
            ("aspectOf" | "hasAspect", _) => {
                return Err(
                    unsupported(format!("the @Aspect class {dotted} declares {n} itself"))
                        .in_class(name.as_str()),
                )
            }
            ("<clinit>", _) => clinit = Some(i),
            ("<init>", "()V") => has_init = true,
            _ => {}
        }
    }
    if !has_init {
        return Err(unsupported(format!(
            "the @Aspect class {dotted} has no constructor without parameters"
        ))
        .in_class(name.as_str()));
    }
    let v = class.major_version;
    let host = Host {
        name: &name,
        major_version: v,
        hierarchy,
    };
    let mut edit = ClassEdit::new(&class);
    let pool = &mut edit.pool;
    const PRIVATE_STATIC_SYNTHETIC: u16 = 0x100A;
    // Public, as ajc's `ajc$perSingletonInstance`: with full coverage,
    // woven code reads it before it calls `aspectOf()`.
    const PUBLIC_STATIC_SYNTHETIC: u16 = 0x1009;
    edit.added_fields.push(field_info(
        pool,
        PUBLIC_STATIC_SYNTHETIC,
        INSTANCE_FIELD,
        &desc,
    )?);
    edit.added_fields.push(field_info(
        pool,
        PRIVATE_STATIC_SYNTHETIC,
        FAILURE_FIELD,
        &format!("L{THROWABLE};"),
    )?);
    let instance = pool.field_ref(&name, INSTANCE_FIELD, &desc)?;
    let failure = pool.field_ref(&name, FAILURE_FIELD, &format!("L{THROWABLE};"))?;
    let get_instance = Insn::Cp {
        op: op::GETSTATIC,
        index: instance,
    };

    // aspectOf()
    let mut code = Code::empty();
    let bound = code.new_label();
    let nab = pool.class(NO_ASPECT)?;
    let nab_init = pool.method_ref(
        NO_ASPECT,
        "<init>",
        &format!("(Ljava/lang/String;L{THROWABLE};)V"),
        false,
    )?;
    let aspect_name = pool.string(&dotted)?;
    code.insns = vec![
        get_instance.clone(),
        Insn::Jump {
            op: op::IFNONNULL,
            target: bound,
        },
        Insn::Cp {
            op: op::NEW,
            index: nab,
        },
        Insn::Simple(op::DUP),
        Insn::Ldc {
            index: aspect_name,
            wide: aspect_name > 255,
        },
        Insn::Cp {
            op: op::GETSTATIC,
            index: failure,
        },
        Insn::Cp {
            op: op::INVOKESPECIAL,
            index: nab_init,
        },
        Insn::Simple(op::ATHROW),
        Insn::Label(bound),
        get_instance.clone(),
        Insn::Simple(176), // areturn
    ];
    let m = new_method(
        pool,
        &host,
        0x0009,
        "aspectOf",
        &format!("(){desc}"),
        &mut code,
    )?;
    edit.added_methods.push(m);

    // hasAspect()
    let mut code = Code::empty();
    let absent = code.new_label();
    code.insns = vec![
        get_instance,
        Insn::Jump {
            op: op::IFNULL,
            target: absent,
        },
        Insn::Simple(4), // iconst_1
        Insn::Simple(op::IRETURN),
        Insn::Label(absent),
        Insn::Simple(3), // iconst_0
        Insn::Simple(op::IRETURN),
    ];
    let m = new_method(pool, &host, 0x0009, "hasAspect", "()Z", &mut code)?;
    edit.added_methods.push(m);

    // major$postClinit()
    let mut code = Code::empty();
    let (start, end, handler) = (code.new_label(), code.new_label(), code.new_label());
    let cls = pool.class(&name)?;
    let init = pool.method_ref(&name, "<init>", "()V", false)?;
    let throwable = pool.class(THROWABLE)?;
    code.insns = vec![
        Insn::Label(start),
        Insn::Cp {
            op: op::NEW,
            index: cls,
        },
        Insn::Simple(op::DUP),
        Insn::Cp {
            op: op::INVOKESPECIAL,
            index: init,
        },
        Insn::Cp {
            op: op::PUTSTATIC,
            index: instance,
        },
        Insn::Label(end),
        Insn::Simple(op::RETURN),
        Insn::Label(handler),
        Insn::Cp {
            op: op::PUTSTATIC,
            index: failure,
        },
        Insn::Simple(op::RETURN),
    ];
    code.handlers.push(Handler {
        start,
        end,
        handler,
        catch_type: throwable,
    });
    let m = new_method(
        pool,
        &host,
        PRIVATE_STATIC_SYNTHETIC,
        POST_CLINIT,
        "()V",
        &mut code,
    )?;
    edit.added_methods.push(m);

    // The static initializer calls it last.
    let post = pool.method_ref(&name, POST_CLINIT, "()V", false)?;
    let call = Insn::Cp {
        op: op::INVOKESTATIC,
        index: post,
    };
    match clinit {
        Some(i) => {
            let m = &class.methods[i];
            let attr = m
                .attribute("Code")
                .ok_or_else(|| unsupported("<clinit> without code").in_class(name.as_str()))?;
            let parsed = CodeAttribute::parse(attr, &class.pool)?;
            let mut code = Code::decode(&parsed, &class.pool)?;
            let mut insns = Vec::with_capacity(code.insns.len() + 2);
            for insn in std::mem::take(&mut code.insns) {
                if insn == Insn::Simple(op::RETURN) {
                    insns.push(call.clone());
                }
                insns.push(insn);
            }
            code.insns = insns;
            code.set_stack_map(0, None);
            let ctx = MethodContext {
                class_name: &name,
                name: "<clinit>",
                descriptor: "()V",
                is_static: true,
                major_version: v,
            };
            frames::compute(&mut code, &ctx, pool, hierarchy)?;
            let mut out = Vec::new();
            code.write_attribute(attr.name_index, &code.layout(), &mut out)?;
            edit.methods.insert(i, method_with_code(m, &out));
        }
        None => {
            let mut code = Code::empty();
            code.insns = vec![call, Insn::Simple(op::RETURN)];
            let m = new_method(pool, &host, ACC_STATIC, "<clinit>", "()V", &mut code)?;
            edit.added_methods.push(m);
        }
    }
    Ok(write_class(&class, &edit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// Compiles `sources` (name, text) with javac against the runtime into a new
    /// directory; `None` (skip) without a JDK.
    fn javac(dir: &Path, sources: &[(&str, &str)]) -> Option<(Jdk, PathBuf, PathBuf)> {
        let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
            eprintln!("SKIP: no JDK with javac");
            return None;
        };
        let rt = dir.join("rt.jar");
        crate::runtime::write_runtime_jar(&rt).unwrap();
        let src = dir.join("src");
        let classes = dir.join("classes");
        std::fs::create_dir_all(&src).unwrap();
        let mut cmd = Command::new(jdk.javac().unwrap());
        cmd.args(["--release", "8", "-nowarn", "-Xlint:-options", "-cp"])
            .arg(&rt)
            .arg("-d")
            .arg(&classes);
        for (name, text) in sources {
            std::fs::write(src.join(name), text).unwrap();
            cmd.arg(src.join(name));
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Some((jdk, rt, classes))
    }

    fn rewrite(rt: &Path, javac: &Path, classes: &Path, name: &str) -> major_classfile::Result<()> {
        let path = classes.join(format!("{name}.class"));
        let bytes = std::fs::read(&path).unwrap();
        let list = vec![(format!("{name}.class"), bytes.clone())];
        let h = AspectHierarchy::new(rt, javac, &list);
        let out = add_aspect_of(&bytes, &h)?;
        std::fs::write(&path, out).unwrap();
        Ok(())
    }

    fn run_main(jdk: &Jdk, rt: &Path, classes: &Path) -> String {
        let cp = std::env::join_paths([classes, rt]).unwrap();
        let out = Command::new(jdk.java())
            .arg("-Xverify:all")
            .arg("-cp")
            .arg(cp)
            .arg("Main")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n")
    }

    const USES: &str = "public class Main {\n\
        \x20   public static void main(String[] args) throws Exception {\n\
        \x20       for (String n : new String[] {\"Plain\", \"Inits\", \"Fails\"}) {\n\
        \x20           Class<?> c = Class.forName(n);\n\
        \x20           boolean has = (Boolean) c.getMethod(\"hasAspect\").invoke(null);\n\
        \x20           try {\n\
        \x20               Object a = c.getMethod(\"aspectOf\").invoke(null);\n\
        \x20               Object b = c.getMethod(\"aspectOf\").invoke(null);\n\
        \x20               System.out.println(n + \" \" + has + \" \" + (a == b) + \" \" + a);\n\
        \x20           } catch (java.lang.reflect.InvocationTargetException e) {\n\
        \x20               Throwable t = e.getCause();\n\
        \x20               System.out.println(n + \" \" + has + \" \" + t.getClass().getName() + \" \" + t.getCause());\n\
        \x20           }\n\
        \x20       }\n\
        \x20   }\n\
        }\n";

    #[test]
    fn rewritten_aspects_verify_and_run() {
        let dir = tempfile::tempdir().unwrap();
        let Some((jdk, rt, classes)) = javac(
            dir.path(),
            &[
                ("Plain.java", "public class Plain { public String toString() { return \"plain\"; } }\n"),
                (
                    "Inits.java",
                    "public class Inits {\n\
                     \x20   static final java.util.List<String> LOG = new java.util.ArrayList<>();\n\
                     \x20   static Number n;\n\
                     \x20   static { n = LOG.isEmpty() ? (Number) Integer.valueOf(1) : (Number) Long.valueOf(2); LOG.add(\"static\"); }\n\
                     \x20   Inits() { LOG.add(\"ctor sees \" + hasAspect()); }\n\
                     \x20   static boolean hasAspect() { return false; }\n\
                     \x20   public String toString() { return LOG.toString(); }\n\
                     }\n",
                ),
                (
                    "Fails.java",
                    "public class Fails { Fails() { throw new IllegalStateException(\"no\"); } }\n",
                ),
                ("Main.java", USES),
            ],
        ) else {
            return;
        };
        let javac = jdk.javac().unwrap();
        rewrite(&rt, &javac, &classes, "Plain").unwrap();
        // Declares hasAspect itself: refused.
        let e = rewrite(&rt, &javac, &classes, "Inits").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported);
        assert!(e.message().contains("declares hasAspect"), "{e}");
        rewrite(&rt, &javac, &classes, "Fails").unwrap();
        // Inits without its own hasAspect: the instance comes after the static block.
        let src = dir.path().join("src");
        let text = std::fs::read_to_string(src.join("Inits.java")).unwrap();
        let text = text
            .replace("\"ctor sees \" + hasAspect()", "\"ctor\"")
            .replace("    static boolean hasAspect() { return false; }\n", "");
        std::fs::write(src.join("Inits.java"), text).unwrap();
        let out = Command::new(&javac)
            .args(["--release", "8", "-nowarn", "-Xlint:-options", "-d"])
            .arg(&classes)
            .arg(src.join("Inits.java"))
            .output()
            .unwrap();
        assert!(out.status.success());
        rewrite(&rt, &javac, &classes, "Inits").unwrap();
        let out = run_main(&jdk, &rt, &classes);
        assert_eq!(
            out,
            "Plain true true plain\n\
             Inits true true [static, ctor]\n\
             Fails false org.aspectj.lang.NoAspectBoundException java.lang.IllegalStateException: no\n"
        );
        // The new methods as javap would list them.
        let bytes = std::fs::read(classes.join("Plain.class")).unwrap();
        let cf = ClassFile::parse(&bytes).unwrap();
        let ms: Vec<String> = cf
            .methods
            .iter()
            .map(|m| {
                format!(
                    "{:04x} {}{}",
                    m.access,
                    cf.member_name(m).unwrap(),
                    cf.member_descriptor(m).unwrap()
                )
            })
            .collect();
        assert_eq!(
            ms,
            vec![
                "0001 <init>()V",
                "0001 toString()Ljava/lang/String;",
                "0009 aspectOf()LPlain;",
                "0009 hasAspect()Z",
                "100a major$postClinit()V",
                "0008 <clinit>()V",
            ]
        );
    }

    #[test]
    fn aspects_need_a_constructor_without_parameters() {
        let dir = tempfile::tempdir().unwrap();
        let Some((jdk, rt, classes)) = javac(
            dir.path(),
            &[("NoCtor.java", "public class NoCtor { NoCtor(int x) { } }\n")],
        ) else {
            return;
        };
        let e = rewrite(&rt, &jdk.javac().unwrap(), &classes, "NoCtor").unwrap_err();
        assert!(
            e.message().contains("no constructor without parameters"),
            "{e}"
        );
    }

    #[test]
    fn method_names_after_annotations() {
        let src = "    @Around(value = \"execution(* f(..)) && args(x)\", argNames = \"x\")\n\
                   \x20   @SuppressWarnings({\"a\", \"b\"}) public <T> java.util.List<T> go(ProceedingJoinPoint p, int x) { }";
        let (n, sp) = method_name(src, Span::new(0, src.len())).unwrap();
        assert_eq!(n, "go");
        assert_eq!(sp.text(src), "go");
        assert_eq!(method_name("@Before(\"x()\")", Span::new(0, 14)), None);
    }

    #[test]
    fn join_point_types() {
        assert_eq!(
            extra_of("Lorg/aspectj/lang/JoinPoint;"),
            Some(Extra::JoinPoint)
        );
        assert_eq!(
            extra_of("Lorg/aspectj/lang/ProceedingJoinPoint;"),
            Some(Extra::JoinPoint)
        );
        assert_eq!(
            extra_of("Lorg/aspectj/lang/JoinPoint$EnclosingStaticPart;"),
            Some(Extra::EnclosingStaticPart)
        );
        assert_eq!(extra_of("Ljava/lang/Object;"), None);
        assert_eq!(simple_type("[[Lp/Outer$In;"), ("In".to_string(), 2));
        assert_eq!(simple_type("J"), ("long".to_string(), 0));
    }
}
