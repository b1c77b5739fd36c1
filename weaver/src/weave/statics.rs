//! The extra class that holds a woven class's join-point static parts.
//!
//! Static state the weaver adds must not live in the woven class: its static
//! initializer may already have run (unwoven, during JVM bootstrap, for class
//! library classes). Each woven class `p/C` that needs static parts gets a class
//! `p/C$MajorStatics` with one `public static final JoinPoint$StaticPart` field per
//! static part, created by `major.runtime.Factory` in its own static initializer
//! (split into methods of [`PARTS_PER_METHOD`] parts), which runs lazily on the
//! first advice that asks for one.

use rustc_hash::FxHashMap as HashMap;

use major_classfile::opcodes::op;
use major_classfile::{ClassBuilder, ClassHierarchy, Code, Insn, PoolBuilder, Result};

use super::emit::{push_int, push_string};

/// The static part descriptor type.
pub const STATIC_PART: &str = "Lorg/aspectj/lang/JoinPoint$StaticPart;";
/// The factory class of the runtime.
pub const FACTORY: &str = "major/runtime/Factory";

/// A member signature, as the runtime's factory takes it.
#[allow(missing_docs)] // fields named as the variant doc says
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SigSpec {
    /// A method: access, name, declaring type (binary name), descriptor, parameter names, exceptions.
    Method {
        access: u16,
        name: String,
        declaring: String,
        descriptor: String,
        params: String,
        exceptions: String,
    },
    /// A constructor.
    Constructor {
        access: u16,
        declaring: String,
        descriptor: String,
        params: String,
        exceptions: String,
    },
    /// A field.
    Field {
        access: u16,
        name: String,
        declaring: String,
        descriptor: String,
    },
    /// A static initializer.
    Initializer { access: u16, declaring: String },
    /// An advice method (`adviceexecution`): as [`SigSpec::Method`], plus the
    /// name its string forms show (`before`, `afterReturning`, .. or the
    /// method's own name).
    Advice {
        access: u16,
        shown: String,
        name: String,
        declaring: String,
        descriptor: String,
        params: String,
        exceptions: String,
    },
    /// A catch clause.
    Catch {
        declaring: String,
        exception: String,
        param: String,
    },
}

/// One static part: kind, signature, line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StaticPartSpec {
    /// `method-execution`, ...
    pub kind: &'static str,
    /// The signature.
    pub sig: SigSpec,
    /// Source line.
    pub line: i32,
}

/// The static parts one woven class needs.
pub struct Statics {
    /// Internal name of the extra class.
    pub class_name: String,
    /// The woven class.
    woven: String,
    source_file: String,
    parts: Vec<StaticPartSpec>,
    index: HashMap<StaticPartSpec, usize>,
    /// `@annotation(a)` values: declaring class, member name, descriptor,
    /// annotation type (internal names), one field `an<i>` each.
    annotations: Vec<AnnotationSpec>,
}

/// The annotation of one type on one member (declaring class, name, descriptor,
/// annotation type).
type AnnotationSpec = (String, String, String, String);

/// The runtime method that finds a member's annotation.
const ANNOTATION_LOOKUP: &str =
    "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/annotation/Annotation;";
/// The type of the annotation fields.
const ANNOTATION: &str = "Ljava/lang/annotation/Annotation;";

impl Statics {
    /// For woven class `woven` compiled from `source_file`.
    pub fn new(woven: &str, source_file: &str) -> Self {
        Statics {
            class_name: format!("{woven}$MajorStatics"),
            woven: woven.to_string(),
            source_file: source_file.to_string(),
            parts: Vec::new(),
            index: HashMap::default(),
            annotations: Vec::new(),
        }
    }

    /// True when no static part or annotation was asked for.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty() && self.annotations.is_empty()
    }

    /// How many static parts and annotations there are: pass to
    /// [`Statics::rollback`] to drop the ones asked for later (by a method then
    /// left unwoven).
    pub fn mark(&self) -> (usize, usize) {
        (self.parts.len(), self.annotations.len())
    }

    /// Forgets the static parts and annotations created since `mark`.
    pub fn rollback(&mut self, mark: (usize, usize)) {
        for p in self.parts.drain(mark.0.min(self.parts.len())..) {
            self.index.remove(&p);
        }
        self.annotations
            .truncate(mark.1.min(self.annotations.len()));
    }

    /// `@within(a)` / `@withincode(a)` bindings: emits `getstatic` of the
    /// annotation `annotation` of the class `owner` itself (`member` None) or of
    /// its method or constructor `member` (name, descriptor), looked up once
    /// like [`Statics::annotation`]'s (the runtime reads an empty name and
    /// descriptor as the class's own declared annotation).
    pub fn enclosing_annotation(
        &mut self,
        owner: &str,
        member: Option<(&str, &str)>,
        annotation: &str,
        pool: &mut PoolBuilder<'_>,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        let (name, descriptor) = member.unwrap_or(("", ""));
        self.annotation(owner, name, descriptor, annotation, pool, out)
    }

    /// Emits `getstatic` of the annotation `annotation` of member `name`
    /// `descriptor` of `owner` (looked up once, when the class initializes;
    /// `null` if absent).
    pub fn annotation(
        &mut self,
        owner: &str,
        name: &str,
        descriptor: &str,
        annotation: &str,
        pool: &mut PoolBuilder<'_>,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        let spec = (
            owner.to_string(),
            name.to_string(),
            descriptor.to_string(),
            annotation.to_string(),
        );
        let i = match self.annotations.iter().position(|a| *a == spec) {
            Some(i) => i,
            None => {
                self.annotations.push(spec);
                self.annotations.len() - 1
            }
        };
        let f = pool.field_ref(&self.class_name, &format!("an{i}"), ANNOTATION)?;
        out.push(Insn::Cp {
            op: op::GETSTATIC,
            index: f,
        });
        Ok(())
    }

    /// Emits `getstatic` of the static part `spec` (created on first use).
    pub fn get(
        &mut self,
        spec: StaticPartSpec,
        pool: &mut PoolBuilder<'_>,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        let n = self.parts.len();
        let i = *self.index.entry(spec.clone()).or_insert(n);
        if i == n {
            self.parts.push(spec);
        }
        let f = pool.field_ref(&self.class_name, &format!("sp{i}"), STATIC_PART)?;
        out.push(Insn::Cp {
            op: op::GETSTATIC,
            index: f,
        });
        Ok(())
    }

    /// Builds the extra class. The static initializer creates the factory and
    /// hands it to `init0`, `init1`, ..., each creating [`PARTS_PER_METHOD`]
    /// static parts, so that no method nears the JVM's 64 KiB code limit.
    pub fn build(&self, hierarchy: &dyn ClassHierarchy) -> Result<Vec<u8>> {
        const INIT_DESC: &str = "(Lmajor/runtime/Factory;)V";
        let mut b = ClassBuilder::new(52, 0x1031, &self.class_name, "java/lang/Object")?; // public final synthetic super
        for i in 0..self.parts.len() {
            b.add_field(0x1019, &format!("sp{i}"), STATIC_PART)?; // public static final synthetic
        }
        for i in 0..self.annotations.len() {
            b.add_field(0x1019, &format!("an{i}"), ANNOTATION)?;
        }
        let chunks: Vec<&[StaticPartSpec]> = self.parts.chunks(PARTS_PER_METHOD).collect();
        let mut code = Code::empty();
        {
            let pool = b.pool();
            let out = &mut code.insns;
            let fc = pool.class(FACTORY)?;
            out.push(Insn::Cp {
                op: op::NEW,
                index: fc,
            });
            out.push(Insn::Simple(op::DUP));
            push_string(&self.source_file, pool, out)?;
            let woven = pool.class(&self.woven)?;
            out.push(Insn::Ldc {
                index: woven,
                wide: woven > 255,
            });
            let init = pool.method_ref(
                FACTORY,
                "<init>",
                "(Ljava/lang/String;Ljava/lang/Class;)V",
                false,
            )?;
            out.push(Insn::Cp {
                op: op::INVOKESPECIAL,
                index: init,
            });
            out.push(Insn::Local {
                op: op::ASTORE,
                index: 0,
                wide: false,
            });
            for c in 0..chunks.len() {
                out.push(Insn::Local {
                    op: op::ALOAD,
                    index: 0,
                    wide: false,
                });
                let m = pool.method_ref(&self.class_name, &format!("init{c}"), INIT_DESC, false)?;
                out.push(Insn::Cp {
                    op: op::INVOKESTATIC,
                    index: m,
                });
            }
            for c in 0..self.annotations.len().div_ceil(PARTS_PER_METHOD) {
                let m =
                    pool.method_ref(&self.class_name, &format!("annotations{c}"), "()V", false)?;
                out.push(Insn::Cp {
                    op: op::INVOKESTATIC,
                    index: m,
                });
            }
            out.push(Insn::Simple(op::RETURN));
        }
        b.add_method(0x0008, "<clinit>", "()V", Some(&mut code), hierarchy)?;
        for (c, chunk) in chunks.iter().enumerate() {
            let mut code = Code::empty();
            let first = c * PARTS_PER_METHOD;
            self.init_parts(b.pool(), first, chunk, &mut code.insns)?;
            // private static synthetic
            b.add_method(
                0x100a,
                &format!("init{c}"),
                INIT_DESC,
                Some(&mut code),
                hierarchy,
            )?;
        }
        for (c, chunk) in self.annotations.chunks(PARTS_PER_METHOD).enumerate() {
            let mut code = Code::empty();
            let pool = b.pool();
            for (i, (owner, name, desc, annotation)) in (c * PARTS_PER_METHOD..).zip(chunk) {
                let out = &mut code.insns;
                let k = pool.class(owner)?;
                out.push(Insn::Ldc {
                    index: k,
                    wide: k > 255,
                });
                push_string(name, pool, out)?;
                push_string(desc, pool, out)?;
                let k = pool.class(annotation)?;
                out.push(Insn::Ldc {
                    index: k,
                    wide: k > 255,
                });
                let m = pool.method_ref(FACTORY, "annotation", ANNOTATION_LOOKUP, false)?;
                out.push(Insn::Cp {
                    op: op::INVOKESTATIC,
                    index: m,
                });
                let f = pool.field_ref(&self.class_name, &format!("an{i}"), ANNOTATION)?;
                out.push(Insn::Cp {
                    op: op::PUTSTATIC,
                    index: f,
                });
            }
            code.insns.push(Insn::Simple(op::RETURN));
            // private static synthetic
            let name = format!("annotations{c}");
            b.add_method(0x100a, &name, "()V", Some(&mut code), hierarchy)?;
        }
        Ok(b.finish())
    }

    /// The code creating static parts `first..first + parts.len()` from the
    /// factory in local 0.
    fn init_parts(
        &self,
        pool: &mut PoolBuilder<'_>,
        first: usize,
        parts: &[StaticPartSpec],
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        {
            for (i, p) in (first..).zip(parts) {
                out.push(Insn::Local {
                    op: op::ALOAD,
                    index: 0,
                    wide: false,
                });
                push_string(p.kind, pool, out)?;
                out.push(Insn::Local {
                    op: op::ALOAD,
                    index: 0,
                    wide: false,
                });
                let (name, desc) = match &p.sig {
                    SigSpec::Method {
                        access,
                        name,
                        declaring,
                        descriptor,
                        params,
                        exceptions,
                    } => {
                        push_int(*access as i32, pool, out)?;
                        for s in [name, declaring, descriptor, params, exceptions] {
                            push_string(s, pool, out)?;
                        }
                        ("makeMethodSig", "(ILjava/lang/String;Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)Lorg/aspectj/lang/reflect/MethodSignature;")
                    }
                    SigSpec::Constructor {
                        access,
                        declaring,
                        descriptor,
                        params,
                        exceptions,
                    } => {
                        push_int(*access as i32, pool, out)?;
                        for s in [declaring, descriptor, params, exceptions] {
                            push_string(s, pool, out)?;
                        }
                        ("makeConstructorSig", "(ILjava/lang/String;Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)Lorg/aspectj/lang/reflect/ConstructorSignature;")
                    }
                    SigSpec::Field {
                        access,
                        name,
                        declaring,
                        descriptor,
                    } => {
                        push_int(*access as i32, pool, out)?;
                        for s in [name, declaring, descriptor] {
                            push_string(s, pool, out)?;
                        }
                        ("makeFieldSig", "(ILjava/lang/String;Ljava/lang/String;Ljava/lang/String;)Lorg/aspectj/lang/reflect/FieldSignature;")
                    }
                    SigSpec::Advice {
                        access,
                        shown,
                        name,
                        declaring,
                        descriptor,
                        params,
                        exceptions,
                    } => {
                        push_int(*access as i32, pool, out)?;
                        for s in [shown, name, declaring, descriptor, params, exceptions] {
                            push_string(s, pool, out)?;
                        }
                        ("makeAdviceSig", "(ILjava/lang/String;Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)Lorg/aspectj/lang/reflect/AdviceSignature;")
                    }
                    SigSpec::Initializer { access, declaring } => {
                        push_int(*access as i32, pool, out)?;
                        push_string(declaring, pool, out)?;
                        (
                            "makeInitializerSig",
                            "(ILjava/lang/String;)Lorg/aspectj/lang/reflect/InitializerSignature;",
                        )
                    }
                    SigSpec::Catch {
                        declaring,
                        exception,
                        param,
                    } => {
                        for s in [declaring, exception, param] {
                            push_string(s, pool, out)?;
                        }
                        ("makeCatchClauseSig", "(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)Lorg/aspectj/lang/reflect/CatchClauseSignature;")
                    }
                };
                let m = pool.method_ref(FACTORY, name, desc, false)?;
                out.push(Insn::Cp {
                    op: op::INVOKEVIRTUAL,
                    index: m,
                });
                push_int(p.line, pool, out)?;
                let sjp = pool.method_ref(FACTORY, "makeSJP", "(Ljava/lang/String;Lorg/aspectj/lang/Signature;I)Lorg/aspectj/lang/JoinPoint$StaticPart;", false)?;
                out.push(Insn::Cp {
                    op: op::INVOKEVIRTUAL,
                    index: sjp,
                });
                let f = pool.field_ref(&self.class_name, &format!("sp{i}"), STATIC_PART)?;
                out.push(Insn::Cp {
                    op: op::PUTSTATIC,
                    index: f,
                });
            }
            out.push(Insn::Simple(op::RETURN));
        }
        Ok(())
    }
}

/// Static parts created per initializer method: about 40 bytes of code each.
pub const PARTS_PER_METHOD: usize = 500;

/// The signature of an advice method (`adviceexecution` join points): the
/// method's signature `method`, shown under the advice kind for code-style
/// advice (as ajc shows `before(int)`), under its own name otherwise.
pub fn advice_sig(method: SigSpec, shown: super::aspect_classes::AdviceName) -> SigSpec {
    let SigSpec::Method {
        access,
        name,
        declaring,
        descriptor,
        params,
        exceptions,
    } = method
    else {
        return method;
    };
    let shown = match shown {
        super::aspect_classes::AdviceName::Kind(k) => k.to_string(),
        super::aspect_classes::AdviceName::Method => name.clone(),
    };
    SigSpec::Advice {
        access,
        shown,
        name,
        declaring,
        descriptor,
        params,
        exceptions,
    }
}
