//! The extra class that holds a woven class's join-point static parts.
//!
//! Static state the weaver adds must not live in the woven class: its static
//! initializer may already have run (unwoven, during JVM bootstrap, for class
//! library classes). Each woven class `p/C` that needs static parts gets a class
//! `p/C$MajorStatics` with one `public static final JoinPoint$StaticPart` field per
//! static part, created by `major.runtime.Factory` in its own static initializer
//! (split into methods of [`PARTS_PER_METHOD`] parts), which runs lazily on the
//! first advice that asks for one.

use std::collections::HashMap;

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
}

impl Statics {
    /// For woven class `woven` compiled from `source_file`.
    pub fn new(woven: &str, source_file: &str) -> Self {
        Statics {
            class_name: format!("{woven}$MajorStatics"),
            woven: woven.to_string(),
            source_file: source_file.to_string(),
            parts: Vec::new(),
            index: HashMap::new(),
        }
    }

    /// True when no static part was asked for.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// How many static parts there are: pass to [`Statics::rollback`] to drop
    /// the ones asked for later (by a method then left unwoven).
    pub fn mark(&self) -> usize {
        self.parts.len()
    }

    /// Forgets the static parts created since `mark`.
    pub fn rollback(&mut self, mark: usize) {
        for p in self.parts.drain(mark.min(self.parts.len())..) {
            self.index.remove(&p);
        }
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
