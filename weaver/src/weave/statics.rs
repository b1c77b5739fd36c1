//! The static state woven code needs: join-point static parts, and the
//! annotations `@annotation(a)` binds.
//!
//! Static state the weaver adds must not live in the woven class's static
//! initializer (it may already have run, unwoven, during JVM bootstrap for class
//! library classes), and must not need a class that a class loader has to find
//! (a program that defines classes from bytes would not find it). So each value
//! is created lazily, in the woven class itself, by a bootstrap method of the
//! runtime (`major.runtime.StaticParts`), in the form the class file version
//! allows ([`StaticsForm`]):
//!
//! * version 55+: `ldc` of a dynamically computed constant (`CONSTANT_Dynamic`);
//! * versions 51–54: an `invokedynamic` site linked to a constant;
//! * older class files (no `invokedynamic`): an extra class `p/C$MajorStatics`
//!   with one `public static final` field per value, created by its own static
//!   initializer (split into methods of [`PARTS_PER_METHOD`] parts).
//!
//! Each shadow has its own static part (numbered per class: its id), shared by
//! every advice at that shadow; the runtime keeps one object per class and id.

use rustc_hash::FxHashMap as HashMap;

use major_classfile::opcodes::op;
use major_classfile::{ClassBuilder, ClassHierarchy, Code, Insn, PoolBuilder, Result};

use super::emit::{push_int, push_string};

/// The static part descriptor type.
pub const STATIC_PART: &str = "Lorg/aspectj/lang/JoinPoint$StaticPart;";
/// The factory class of the runtime.
pub const FACTORY: &str = "major/runtime/Factory";
/// The runtime class with the bootstrap methods.
pub const STATIC_PARTS: &str = "major/runtime/StaticParts";
/// The runtime class that finds a class by its frame on the stack.
pub const FRAME_CLASSES: &str = "major/runtime/FrameClasses";

/// Whether `class` (an internal name) is one of the reflection accessors
/// that JDK 17 (and 9 on) generates at run time (`GeneratedMethodAccessor1`,
/// `GeneratedConstructorAccessor2`, `GeneratedSerializationConstructorAccessor3`
/// in `jdk/internal/reflect`). Their class files are of Java 5, so their
/// static parts need an extra class, and the JDK defines each in a fresh
/// `DelegatingClassLoader`, through whose parent HotSpot resolves every name
/// in the accessor's code: the single-phase agent defines the extra class in
/// that parent, and the extra class's initializer, which the parent cannot
/// resolve the accessor's name for, finds the accessor by its frame
/// (`major.runtime.FrameClasses`, implemented by the agent). No class of the
/// run-time image has such a name: the two-phase mode never sees one.
pub fn reflection_accessor(class: &str) -> bool {
    class.starts_with("jdk/internal/reflect/Generated")
}
/// Descriptor of a bootstrap method for a dynamically computed constant.
const CONSTANT_BOOTSTRAP: &str = "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/Class;[Ljava/lang/Object;)Ljava/lang/Object;";
/// Descriptor of a bootstrap method for a call site.
const SITE_BOOTSTRAP: &str = "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;[Ljava/lang/Object;)Ljava/lang/invoke/CallSite;";
/// Descriptor of the annotation bootstrap method for a constant.
const ANNOTATION_CONSTANT_BOOTSTRAP: &str = "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/Class;Ljava/lang/Class;Ljava/lang/String;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/Object;";
/// Descriptor of the annotation bootstrap method for a call site.
const ANNOTATION_SITE_BOOTSTRAP: &str = "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;Ljava/lang/Class;Ljava/lang/String;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/invoke/CallSite;";
/// `REF_invokeStatic`.
const REF_INVOKE_STATIC: u8 = 6;

/// Where a woven class's static state lives, by class file version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaticsForm {
    /// `ldc` of `CONSTANT_Dynamic` entries (class files 55+).
    Constant,
    /// `invokedynamic` sites linked to constants (class files 51–54).
    CallSite,
    /// Fields of an extra class `C$MajorStatics` (class files before 51).
    ExtraClass,
}

impl StaticsForm {
    /// The form for a class file of major version `major`.
    pub fn for_version(major: u16) -> Self {
        match major {
            55.. => StaticsForm::Constant,
            51..=54 => StaticsForm::CallSite,
            _ => StaticsForm::ExtraClass,
        }
    }
}

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

/// One static part: kind, signature, line, and the shadow it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StaticPartSpec {
    /// `method-execution`, ...
    pub kind: &'static str,
    /// The signature.
    pub sig: SigSpec,
    /// Source line (negative: unknown).
    pub line: i32,
    /// The shadow, numbered per class ([`Statics::next_shadow`]): two shadows
    /// that look alike still have a static part each, as in AspectJ.
    pub shadow: u32,
}

/// The static parts one woven class needs.
pub struct Statics {
    /// Where they live.
    pub form: StaticsForm,
    /// Internal name of the extra class (used in [`StaticsForm::ExtraClass`]).
    pub class_name: String,
    /// The woven class.
    woven: String,
    source_file: String,
    parts: Vec<StaticPartSpec>,
    index: HashMap<StaticPartSpec, usize>,
    /// `@annotation(a)` values: declaring class, member name, descriptor,
    /// annotation type (internal names), one field `an<i>` each.
    annotations: Vec<AnnotationSpec>,
    /// The next shadow number.
    shadows: u32,
    /// Whether the extra class's initializer runs with the DIB set (full
    /// coverage: it calls library code that is woven).
    pub with_dib: bool,
    /// Per part: where it was first asked for, which orders the ids
    /// ([`OrderKey`]).
    keys: Vec<OrderKey>,
    /// Per part: its bootstrap method entry (lazily resolved forms).
    bootstraps: Vec<Option<u16>>,
    /// The method being woven (counted from 1) and the position of the shadow
    /// being woven in it.
    at: (u32, usize),
}

/// Where a static part was first asked for: method (in class order), shadow
/// position in it (the execution shadow last), and 0 for a shadow's own part,
/// 1 for the enclosing part asked for at that shadow. AspectJ numbers a class's
/// static parts in this order.
type OrderKey = (u32, usize, u8);

/// The annotation of one type on one member (declaring class, name, descriptor,
/// annotation type).
type AnnotationSpec = (String, String, String, String);

/// The runtime method that finds a member's annotation.
const ANNOTATION_LOOKUP: &str =
    "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/annotation/Annotation;";
/// The type of the annotation fields.
const ANNOTATION: &str = "Ljava/lang/annotation/Annotation;";

impl Statics {
    /// For woven class `woven` of class file version `major`, compiled from
    /// `source_file` (`""`: the class has no `SourceFile`; AspectJ then says
    /// `<Unknown>`).
    pub fn new(woven: &str, source_file: &str, major: u16) -> Self {
        let source_file = if source_file.is_empty() {
            "<Unknown>"
        } else {
            source_file
        };
        Statics {
            form: StaticsForm::for_version(major),
            class_name: format!("{woven}$MajorStatics"),
            woven: woven.to_string(),
            source_file: source_file.to_string(),
            parts: Vec::new(),
            index: HashMap::default(),
            annotations: Vec::new(),
            shadows: 0,
            with_dib: false,
            keys: Vec::new(),
            bootstraps: Vec::new(),
            at: (0, 0),
        }
    }

    /// Starts weaving the next method of the class (in class order).
    pub fn begin_method(&mut self) {
        self.at = (self.at.0 + 1, 0);
    }

    /// Says which shadow of the current method is being woven: its position
    /// in the method (`usize::MAX` for the execution and initialization
    /// shadows, which AspectJ weaves after the others).
    pub fn at_shadow(&mut self, position: usize) {
        self.at.1 = position;
    }

    /// A new shadow number for [`StaticPartSpec::shadow`].
    pub fn next_shadow(&mut self) -> u32 {
        self.shadows += 1;
        self.shadows
    }

    /// True when the woven class needs an extra class (built by
    /// [`Statics::build`]): static parts or annotations were asked for and the
    /// class file is too old for the lazily resolved forms.
    pub fn needs_extra_class(&self) -> bool {
        self.form == StaticsForm::ExtraClass
            && !(self.parts.is_empty() && self.annotations.is_empty())
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
        self.keys.truncate(self.parts.len());
        self.bootstraps.truncate(self.parts.len());
        self.annotations
            .truncate(mark.1.min(self.annotations.len()));
    }

    /// `@within(a)` / `@withincode(a)` bindings: loads the annotation
    /// `annotation` of the class `owner` itself (`member` None) or of its
    /// method or constructor `member` (name, descriptor), looked up once like
    /// [`Statics::annotation`]'s (the runtime reads an empty name and
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

    /// Emits the code loading the annotation `annotation` of member `name`
    /// `descriptor` of `owner` (looked up once, on first use; `null` if absent).
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
        if self.form == StaticsForm::ExtraClass {
            let f = pool.field_ref(&self.class_name, &format!("an{i}"), ANNOTATION)?;
            out.push(Insn::Cp {
                op: op::GETSTATIC,
                index: f,
            });
            return Ok(());
        }
        let args = [
            pool.class(owner)?,
            pool.string(name)?,
            pool.string(descriptor)?,
            pool.class(annotation)?,
        ];
        let (bsm_name, bsm_desc) = match self.form {
            StaticsForm::Constant => ("annotation", ANNOTATION_CONSTANT_BOOTSTRAP),
            _ => ("annotationSite", ANNOTATION_SITE_BOOTSTRAP),
        };
        self.load_lazily(
            "annotation",
            ANNOTATION,
            bsm_name,
            bsm_desc,
            &args,
            pool,
            out,
        )
        .map(|_| ())
    }

    /// Emits the code loading a value made by bootstrap method `bsm_name` of
    /// the runtime with static arguments `args`: `ldc` of a dynamic constant,
    /// or `invokedynamic` of a constant call site. The entries of all values
    /// share one `name` (they differ by bootstrap method entry), so each costs
    /// the constant pool only its own arguments and the `Dynamic` entry.
    #[allow(clippy::too_many_arguments)]
    fn load_lazily(
        &self,
        name: &str,
        descriptor: &str,
        bsm_name: &str,
        bsm_desc: &str,
        args: &[u16],
        pool: &mut PoolBuilder<'_>,
        out: &mut Vec<Insn>,
    ) -> Result<u16> {
        let m = pool.method_ref(STATIC_PARTS, bsm_name, bsm_desc, false)?;
        let handle = pool.method_handle(REF_INVOKE_STATIC, m)?;
        let bsm = pool.bootstrap_method(handle, args)?;
        match self.form {
            StaticsForm::Constant => {
                let c = pool.dynamic_constant(bsm, name, descriptor)?;
                out.push(Insn::Ldc {
                    index: c,
                    wide: c > 255,
                });
            }
            _ => {
                let c = pool.invoke_dynamic(bsm, name, &format!("(){descriptor}"))?;
                out.push(Insn::InvokeDynamic { index: c });
            }
        }
        Ok(bsm)
    }

    /// The static arguments of static part `i`, as `major.runtime.StaticParts`
    /// reads them.
    fn part_arguments(
        &self,
        i: usize,
        p: &StaticPartSpec,
        pool: &mut PoolBuilder<'_>,
    ) -> Result<Vec<u16>> {
        let mut args = vec![
            pool.integer(i as i32)?,
            pool.string(p.kind)?,
            pool.string(&self.source_file)?,
            pool.integer(p.line.max(0))?,
        ];
        let strings: Vec<&str> = match &p.sig {
            SigSpec::Method {
                access,
                name,
                declaring,
                descriptor,
                params,
                exceptions,
            } => {
                args.push(pool.string("method")?);
                args.push(pool.integer(*access as i32)?);
                vec![name, declaring, descriptor, params, exceptions]
            }
            SigSpec::Constructor {
                access,
                declaring,
                descriptor,
                params,
                exceptions,
            } => {
                args.push(pool.string("constructor")?);
                args.push(pool.integer(*access as i32)?);
                vec![declaring, descriptor, params, exceptions]
            }
            SigSpec::Field {
                access,
                name,
                declaring,
                descriptor,
            } => {
                args.push(pool.string("field")?);
                args.push(pool.integer(*access as i32)?);
                vec![name, declaring, descriptor]
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
                args.push(pool.string("advice")?);
                args.push(pool.integer(*access as i32)?);
                vec![shown, name, declaring, descriptor, params, exceptions]
            }
            SigSpec::Initializer { access, declaring } => {
                args.push(pool.string("initializer")?);
                args.push(pool.integer(*access as i32)?);
                vec![declaring]
            }
            SigSpec::Catch {
                declaring,
                exception,
                param,
            } => {
                args.push(pool.string("catch")?);
                vec![declaring, exception, param]
            }
        };
        for s in strings {
            args.push(pool.string(s)?);
        }
        Ok(args)
    }

    /// Emits the code loading the static part `spec` (created on first use)
    /// of the shadow being woven.
    pub fn get(
        &mut self,
        spec: StaticPartSpec,
        pool: &mut PoolBuilder<'_>,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        self.load(spec, 0, pool, out)
    }

    /// Emits the code loading the enclosing static part `spec` asked for at
    /// the shadow being woven.
    pub fn get_enclosing(
        &mut self,
        spec: StaticPartSpec,
        pool: &mut PoolBuilder<'_>,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        self.load(spec, 1, pool, out)
    }

    fn load(
        &mut self,
        spec: StaticPartSpec,
        role: u8,
        pool: &mut PoolBuilder<'_>,
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        let n = self.parts.len();
        let i = *self.index.entry(spec.clone()).or_insert(n);
        let key = (self.at.0, self.at.1, role);
        if i == n {
            self.parts.push(spec);
            self.keys.push(key);
            self.bootstraps.push(None);
        } else {
            self.keys[i] = self.keys[i].min(key);
        }
        if self.form == StaticsForm::ExtraClass {
            let f = pool.field_ref(&self.class_name, &format!("sp{i}"), STATIC_PART)?;
            out.push(Insn::Cp {
                op: op::GETSTATIC,
                index: f,
            });
            return Ok(());
        }
        let args = self.part_arguments(i, &self.parts[i], pool)?;
        let (bsm_name, bsm_desc) = match self.form {
            StaticsForm::Constant => ("staticPart", CONSTANT_BOOTSTRAP),
            _ => ("staticPartSite", SITE_BOOTSTRAP),
        };
        let bsm = self.load_lazily(
            "staticPart",
            STATIC_PART,
            bsm_name,
            bsm_desc,
            &args,
            pool,
            out,
        )?;
        self.bootstraps[i] = Some(bsm);
        Ok(())
    }

    /// The id of each static part: its rank in the order AspectJ creates
    /// them (see [`OrderKey`]), not the order the weaver asked for them.
    fn ids(&self) -> Vec<u32> {
        let mut order: Vec<usize> = (0..self.parts.len()).collect();
        order.sort_by_key(|&i| (self.keys[i], i));
        let mut ids = vec![0; order.len()];
        for (rank, i) in order.into_iter().enumerate() {
            ids[i] = rank as u32;
        }
        ids
    }

    /// Gives each static part its final id (the first static argument of its
    /// bootstrap method entry): call once, after the whole class is woven.
    pub fn finish(&self, pool: &mut PoolBuilder<'_>) -> Result<()> {
        if self.form == StaticsForm::ExtraClass {
            return Ok(());
        }
        for (i, id) in self.ids().into_iter().enumerate() {
            if let Some(bsm) = self.bootstraps[i] {
                let c = pool.integer(id as i32)?;
                pool.set_bootstrap_argument(bsm, 0, c);
            }
        }
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
        let ids = self.ids();
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
            if reflection_accessor(&self.woven) {
                // The extra class cannot name the accessor (see
                // `reflection_accessor`): the runtime finds it by its frame.
                push_string(&self.woven, pool, out)?;
                let m = pool.method_ref(
                    FRAME_CLASSES,
                    "onStack",
                    "(Ljava/lang/String;)Ljava/lang/Class;",
                    false,
                )?;
                out.push(Insn::Cp {
                    op: op::INVOKESTATIC,
                    index: m,
                });
            } else {
                let woven = pool.class(&self.woven)?;
                out.push(Insn::Ldc {
                    index: woven,
                    wide: woven > 255,
                });
            }
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
        if self.with_dib {
            code.max_locals = 1;
            super::bypass::wrap_in_dib(&mut code, b.pool())?;
        }
        b.add_method(0x0008, "<clinit>", "()V", Some(&mut code), hierarchy)?;
        for (c, chunk) in chunks.iter().enumerate() {
            let mut code = Code::empty();
            let first = c * PARTS_PER_METHOD;
            self.init_parts(b.pool(), first, chunk, &ids, &mut code.insns)?;
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
        ids: &[u32],
        out: &mut Vec<Insn>,
    ) -> Result<()> {
        {
            for (i, p) in (first..).zip(parts) {
                out.push(Insn::Local {
                    op: op::ALOAD,
                    index: 0,
                    wide: false,
                });
                push_int(ids[i] as i32, pool, out)?;
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
                push_int(p.line.max(0), pool, out)?;
                let sjp = pool.method_ref(FACTORY, "makeSJP", "(ILjava/lang/String;Lorg/aspectj/lang/Signature;I)Lorg/aspectj/lang/JoinPoint$StaticPart;", false)?;
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
