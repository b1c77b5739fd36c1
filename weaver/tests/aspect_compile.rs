//! Aspect compilation end to end: real aspects through javac, descriptors and
//! extras read back, around/proceed and if() methods that run, javac errors
//! reported on the `.aj` text, and annotation-style (`@Aspect`) classes compiled
//! as they are, described and given `aspectOf()`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use major_classfile::ClassFile;
use major_pointcut_lang::ast::AdviceKind;
use major_pointcut_lang::{Program, SourceFile};
use major_weaver::aspects::{compile, AspectCompileError, CompiledAspects, Extra, Param};

fn jdk_tool(name: &str) -> Option<PathBuf> {
    if let Some(p) = major_weaver::jdk::Jdk::find()
        .map(|j| j.home.join("bin").join(name))
        .filter(|p| p.is_file())
    {
        return Some(p);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

const ASPECTJRT: &str = "/usr/share/java/aspectjrt.jar";

const STUB_CLOSURE: &str = "package major.runtime;\n\
    public abstract class AroundClosure {\n\
    \x20   public abstract Object run(Object[] args) throws Throwable;\n\
    }\n";

/// What the calling-context aspects (`thisCallingContext`) use of the runtime's
/// `major.runtime.CallingContext`.
const STUB_CONTEXT: &str = "package major.runtime;
public final class CallingContext {
    public long calls, wall, cpu, mark, cpuMark;
    public Object data;
    public static void writeAtExit(CallingContext main) {}
    public static void writeAtExit(CallingContext main, boolean times) {}
    public static void writeAtExit(CallingContext main, boolean times, boolean cpu) {}
    public static String describeThrow(Throwable t, CallingContext within) { return null; }
}
";

const STUB_CONVERSIONS: &str = "package major.runtime;\n\
    public final class Conversions {\n\
    \x20   public static boolean booleanValue(Object o) { return o != null && (Boolean) o; }\n\
    \x20   public static char charValue(Object o) { return o == null ? 0 : (Character) o; }\n\
    \x20   public static byte byteValue(Object o) { return o == null ? 0 : ((Number) o).byteValue(); }\n\
    \x20   public static short shortValue(Object o) { return o == null ? 0 : ((Number) o).shortValue(); }\n\
    \x20   public static int intValue(Object o) { return o == null ? 0 : ((Number) o).intValue(); }\n\
    \x20   public static long longValue(Object o) { return o == null ? 0 : ((Number) o).longValue(); }\n\
    \x20   public static float floatValue(Object o) { return o == null ? 0 : ((Number) o).floatValue(); }\n\
    \x20   public static double doubleValue(Object o) { return o == null ? 0 : ((Number) o).doubleValue(); }\n\
    \x20   public static RuntimeException rethrow(Throwable t) { return Conversions.<RuntimeException>raise(t); }\n\
    \x20   @SuppressWarnings(\"unchecked\")\n\
    \x20   static <T extends Throwable> T raise(Throwable t) throws T { throw (T) t; }\n\
    }\n";

struct Env {
    javac: PathBuf,
    java: Option<PathBuf>,
    /// Stub runtime classes directory.
    stubs: PathBuf,
    /// Stubs plus aspectjrt, as a class path.
    classpath: PathBuf,
}

/// javac, and the stub runtime compiled once per test process; `None` to skip.
fn env() -> Option<&'static Env> {
    static ENV: OnceLock<Option<Env>> = OnceLock::new();
    ENV.get_or_init(|| {
        let Some(javac) = jdk_tool("javac") else {
            eprintln!("SKIP: javac not found");
            return None;
        };
        if !Path::new(ASPECTJRT).is_file() {
            eprintln!("SKIP: {ASPECTJRT} not found");
            return None;
        }
        let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("aspect_compile_stubs");
        let _ = std::fs::remove_dir_all(&root);
        let src = root.join("src/major/runtime");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("AroundClosure.java"), STUB_CLOSURE).unwrap();
        std::fs::write(src.join("Conversions.java"), STUB_CONVERSIONS).unwrap();
        std::fs::write(src.join("CallingContext.java"), STUB_CONTEXT).unwrap();
        let stubs = root.join("classes");
        let st = Command::new(&javac)
            .args(["--release", "8", "-nowarn", "-Xlint:-options", "-d"])
            .arg(&stubs)
            .arg(src.join("AroundClosure.java"))
            .arg(src.join("Conversions.java"))
            .arg(src.join("CallingContext.java"))
            .status()
            .unwrap();
        assert!(st.success(), "stub runtime does not compile");
        let classpath =
            PathBuf::from(std::env::join_paths([stubs.as_os_str(), ASPECTJRT.as_ref()]).unwrap());
        Some(Env {
            javac,
            java: jdk_tool("java"),
            stubs,
            classpath,
        })
    })
    .as_ref()
}

struct Compiled {
    program: Program,
    result: Result<CompiledAspects, AspectCompileError>,
    work: tempfile::TempDir,
}

fn program(files: &[(&str, &str)]) -> Program {
    let sources = files.iter().map(|(n, t)| SourceFile::new(n, *t)).collect();
    match major_pointcut_lang::compile(sources) {
        Ok(p) => p,
        Err(e) => panic!("aspects do not check:\n{}", e.render()),
    }
}

fn compile_files(env: &Env, files: &[(&str, &str)]) -> Compiled {
    let program = program(files);
    let work = tempfile::tempdir().unwrap();
    let result = compile(&program, &env.classpath, &env.javac, work.path(), None);
    Compiled {
        program,
        result,
        work,
    }
}

fn ok(c: &Compiled) -> &CompiledAspects {
    match &c.result {
        Ok(r) => r,
        Err(e) => panic!("compile failed:\n{}", e.render()),
    }
}

fn err(c: &Compiled) -> &AspectCompileError {
    match &c.result {
        Ok(_) => panic!("compile succeeded"),
        Err(e) => e,
    }
}

fn class<'a>(r: &'a CompiledAspects, entry: &str) -> &'a [u8] {
    &r.classes
        .iter()
        .find(|(n, _)| n == entry)
        .unwrap_or_else(|| panic!("no {entry} among {:?}", names(r)))
        .1
}

fn names(r: &CompiledAspects) -> Vec<&str> {
    r.classes.iter().map(|(n, _)| n.as_str()).collect()
}

fn method_names(bytes: &[u8]) -> Vec<String> {
    let cf = ClassFile::parse(bytes).unwrap();
    cf.methods
        .iter()
        .map(|m| cf.member_name(m).unwrap().into_owned())
        .collect()
}

fn aspect<'a>(r: &'a CompiledAspects, internal: &str) -> &'a major_weaver::aspects::CompiledAspect {
    r.aspects
        .iter()
        .find(|a| a.internal_name == internal)
        .unwrap_or_else(|| panic!("no compiled aspect {internal}"))
}

/// Compiles `driver` (class `Driver`, default package) against the compiled
/// aspects and runs it; returns stdout.
fn run_driver(env: &Env, c: &Compiled, driver: &str) -> Option<String> {
    let Some(java) = &env.java else {
        eprintln!("SKIP: java not found");
        return None;
    };
    let dir = c.work.path().join("driver");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Driver.java"), driver).unwrap();
    let cp = std::env::join_paths([
        c.work.path().join("classes").as_os_str(),
        env.stubs.as_os_str(),
        ASPECTJRT.as_ref(),
        dir.as_os_str(),
    ])
    .unwrap();
    let o = Command::new(&env.javac)
        .arg("-nowarn")
        .arg("-cp")
        .arg(&cp)
        .arg("-d")
        .arg(&dir)
        .arg(dir.join("Driver.java"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "driver does not compile:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = Command::new(java)
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(&cp)
        .arg("Driver")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "driver failed:\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    Some(String::from_utf8_lossy(&o.stdout).replace("\r\n", "\n"))
}

const SP: &str = "Lorg/aspectj/lang/JoinPoint$StaticPart;";

#[test]
fn real_aspects_compile() {
    let Some(env) = env() else { return };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../aspects");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "aj" || x == "java"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    assert!(files.len() >= 8, "{files:?}");
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let c = compile_files(env, &refs);
    let r = ok(&c);

    // Every concrete aspect, in program order (the annotation-style
    // AnnotatedTracer.java compiled as it is); sorted class entries.
    assert!(c.program.aspects.iter().any(|a| a.annotation_style));
    let concrete: Vec<&str> = c
        .program
        .concrete_aspects()
        .map(|a| a.internal_name.as_str())
        .collect();
    assert!(names(r).contains(&"major/aspects/AnnotatedTracer.class"));
    assert!(names(r).contains(&"major/aspects/AnnotatedTracer$Cached.class"));
    let got: Vec<&str> = r.aspects.iter().map(|a| a.internal_name.as_str()).collect();
    assert_eq!(got, concrete);
    let mut sorted = names(r);
    sorted.sort();
    assert_eq!(sorted, names(r));
    for a in &r.aspects {
        assert_eq!(
            c.program.aspects[a.program_index].internal_name,
            a.internal_name
        );
        let ms = method_names(class(r, &format!("{}.class", a.internal_name)));
        assert!(ms.iter().any(|m| m == "aspectOf"), "{ms:?}");
        assert!(ms.iter().any(|m| m == "hasAspect"), "{ms:?}");
    }

    // Annotation style: the user's methods, parameters in the user's order.
    let at = aspect(r, "major/aspects/AnnotatedTracer");
    let d: Vec<(&str, &str)> = at
        .advice
        .iter()
        .map(|a| (a.name.as_str(), a.descriptor.as_str()))
        .collect();
    assert_eq!(
        d,
        vec![
            ("enter", "(Lorg/aspectj/lang/JoinPoint;Ljava/lang/String;)V"),
            ("leave", format!("({SP}Ljava/lang/Object;)V").as_str()),
            (
                "cache",
                "(Lorg/aspectj/lang/ProceedingJoinPoint;Lmajor/aspects/AnnotatedTracer$Cached;)Ljava/lang/Object;"
            ),
        ]
    );
    assert_eq!(
        at.advice[0].params,
        vec![Param::Extra(Extra::JoinPoint), Param::Formal(1)]
    );
    assert_eq!(at.advice[0].formal_types[1], "Ljava/lang/String;");
    assert_eq!(
        at.advice[1].params,
        vec![Param::Extra(Extra::StaticPart), Param::Formal(1)]
    );
    assert_eq!(
        at.advice[2].params,
        vec![Param::Extra(Extra::JoinPoint), Param::Formal(1)]
    );
    assert!(at
        .advice
        .iter()
        .all(|a| a.owner == "major/aspects/AnnotatedTracer"));

    let ot = aspect(r, "major/aspects/ObjectTracker");
    assert_eq!(ot.advice.len(), 1);
    let a = &ot.advice[0];
    assert_eq!(a.owner, "major/aspects/ObjectTracker");
    assert_eq!(a.name, "major$advice$ObjectTracker$0");
    assert_eq!(a.descriptor, "(Ljava/lang/Object;)V");
    assert_eq!(a.formal_types, vec!["Ljava/lang/Object;"]);
    assert!(a.extras().next().is_none());
    assert_eq!(a.params, vec![Param::Formal(0)]);
    assert!(matches!(a.kind, AdviceKind::AfterReturning(Some(_))));

    let et = aspect(r, "major/aspects/ExecutionTracer");
    let d: Vec<&str> = et.advice.iter().map(|a| a.descriptor.as_str()).collect();
    assert_eq!(
        d,
        vec![
            format!("({SP})V").as_str(),
            "()V",
            format!("(Ljava/lang/Throwable;{SP})V").as_str()
        ]
    );
    assert_eq!(
        et.advice[0].extras().collect::<Vec<_>>(),
        vec![Extra::StaticPart]
    );
    assert_eq!(et.advice[2].formal_types, vec!["Ljava/lang/Throwable;"]);

    let ta = aspect(r, "major/aspects/TimingAspect");
    assert_eq!(
        ta.advice[0].descriptor,
        format!("(Lmajor/runtime/AroundClosure;{SP})Ljava/lang/Object;")
    );
    assert_eq!(
        ta.advice[0].params,
        vec![
            Param::Extra(Extra::AroundClosure),
            Param::Extra(Extra::StaticPart)
        ]
    );
    assert_eq!(ta.advice[1].descriptor, "(ILmajor/runtime/AroundClosure;)I");
    assert_eq!(ta.advice[1].formal_types, vec!["I"]);
    assert_eq!(ta.advice[1].if_tests.len(), 1);
    let t = &ta.advice[1].if_tests[0];
    assert_eq!(
        (t.owner.as_str(), t.name.as_str(), t.descriptor.as_str()),
        (
            "major/aspects/TimingAspect",
            "major$if$TimingAspect$1$0",
            "(I)Z"
        )
    );
    assert_eq!(t.slots, vec![0]);

    // Inherited advice lives in the abstract aspect's class.
    let ct = aspect(r, "major/aspects/CollectionTracing");
    let owners: Vec<(&str, &str, &str)> = ct
        .advice
        .iter()
        .map(|a| (a.owner.as_str(), a.name.as_str(), a.descriptor.as_str()))
        .collect();
    assert_eq!(
        owners,
        vec![
            (
                "major/aspects/AbstractTracing",
                "major$advice$AbstractTracing$0",
                format!("(Ljava/lang/Object;{SP})V").as_str()
            ),
            (
                "major/aspects/AbstractTracing",
                "major$advice$AbstractTracing$1",
                format!("(Ljava/lang/Object;Ljava/lang/Object;{SP})V").as_str()
            ),
        ]
    );
    let abs = ClassFile::parse(class(r, "major/aspects/AbstractTracing.class")).unwrap();
    assert_ne!(abs.access & 0x0400, 0, "AbstractTracing is abstract");
    let ms = method_names(class(r, "major/aspects/AbstractTracing.class"));
    assert!(!ms.iter().any(|m| m == "aspectOf"), "{ms:?}");
    let sub = ClassFile::parse(class(r, "major/aspects/CollectionTracing.class")).unwrap();
    assert_eq!(
        sub.super_name().unwrap().as_deref(),
        Some("major/aspects/AbstractTracing")
    );

    let cc = aspect(r, "major/aspects/CallCounter");
    assert_eq!(cc.advice[0].descriptor, format!("({SP})V"));
    let cp = aspect(r, "major/aspects/CflowProfiler");
    assert_eq!(
        cp.advice
            .iter()
            .map(|a| a.descriptor.as_str())
            .collect::<Vec<_>>(),
        vec!["(Ljava/lang/Object;)V", "()V", "()V"]
    );

    // Line numbers of advice bodies are those of the .aj file.
    let src = std::fs::read_to_string(c.work.path().join("src/major/aspects/ObjectTracker.java"))
        .unwrap();
    let aj = &files
        .iter()
        .find(|(n, _)| n == "ObjectTracker.aj")
        .unwrap()
        .1;
    let line = |t: &str, needle: &str| t.lines().position(|l| l.contains(needle)).unwrap();
    assert_eq!(
        line(&src, "refs.add(new WeakReference<Object>(o, queue));"),
        line(aj, "refs.add(new WeakReference<Object>(o, queue));")
    );
}

const AROUNDS: &str = r#"package p;

import java.util.ArrayList;
import java.util.List;

public aspect Arounds {
    public static final List<String> log = new ArrayList<String>();
    static int made;
    static { log.add("static"); }

    Arounds() {
        made++;
        log.add("ctor after " + log.size() + " entries");
    }

    int around(int n): execution(int *.twice(int)) && args(n) {
        return proceed(n + 1) * 10;
    }

    void around(): execution(void *.run()) {
        log.add("before");
        proceed();
        log.add("after");
        if (log.size() > 100) {
            return;
        }
    }

    String around(String s, Object t): call(String *.join(String)) && args(s) && target(t) {
        Runnable r = () -> log.add("lambda");
        r.run();
        String x = proceed ( s.toUpperCase(), t );
        return x + "!" + String.valueOf(proceed(s, t)).length();
    }

    Object around(): execution(* *.boxed()) {
        Object o = proceed();
        return o;
    }

    long around(long a, double b): execution(long *.m(long, double)) && args(a, b) {
        return proceed(a, b) + (long) b;
    }

    java.util.List<String> around(): execution(java.util.List *.names()) {
        List<String> l = proceed();
        return l;
    }
}
"#;

const AROUNDS_DRIVER: &str = r#"
import major.runtime.AroundClosure;
import p.Arounds;

public class Driver {
    static AroundClosure echo(final String tag) {
        return new AroundClosure() {
            public Object run(Object[] a) {
                StringBuilder b = new StringBuilder(tag + "(");
                for (Object o : a) b.append(o).append(';');
                System.out.println(b.append(")"));
                if (tag.equals("int")) return ((Integer) a[0]) * 2;
                if (tag.equals("long")) return ((Long) a[0]) + 1;
                if (tag.equals("list")) return java.util.Arrays.asList("x", "y");
                if (tag.equals("void")) return null;
                return "r" + a.length;
            }
        };
    }

    public static void main(String[] args) throws Throwable {
        Arounds a = Arounds.aspectOf();
        System.out.println(Arounds.hasAspect());
        System.out.println(a.major$advice$Arounds$0(4, echo("int")));
        a.major$advice$Arounds$1(echo("void"));
        System.out.println(a.major$advice$Arounds$2("ab", "T", echo("str")));
        System.out.println(a.major$advice$Arounds$3(echo("obj")));
        System.out.println(a.major$advice$Arounds$4(5L, 2.5, echo("long")));
        System.out.println(a.major$advice$Arounds$5(echo("list")));
        System.out.println(Arounds.aspectOf() == a);
    }
}
"#;

#[test]
fn around_advice_with_proceed() {
    let Some(env) = env() else { return };
    let c = compile_files(env, &[("Arounds.aj", AROUNDS)]);
    let r = ok(&c);
    let a = aspect(r, "p/Arounds");
    let d: Vec<&str> = a.advice.iter().map(|a| a.descriptor.as_str()).collect();
    assert_eq!(
        d,
        vec![
            "(ILmajor/runtime/AroundClosure;)I",
            "(Lmajor/runtime/AroundClosure;)V",
            "(Ljava/lang/String;Ljava/lang/Object;Lmajor/runtime/AroundClosure;)Ljava/lang/String;",
            "(Lmajor/runtime/AroundClosure;)Ljava/lang/Object;",
            "(JDLmajor/runtime/AroundClosure;)J",
            "(Lmajor/runtime/AroundClosure;)Ljava/util/List;",
        ]
    );
    assert_eq!(a.advice[4].formal_types, vec!["J", "D"]);
    assert!(a
        .advice
        .iter()
        .all(|m| m.extras().collect::<Vec<_>>() == vec![Extra::AroundClosure]));
    // Java 8 class files when nothing newer is needed.
    let cf = ClassFile::parse(class(r, "p/Arounds.class")).unwrap();
    assert_eq!(cf.major_version, 52);

    let Some(out) = run_driver(env, &c, AROUNDS_DRIVER) else {
        return;
    };
    assert_eq!(
        out,
        "true\n\
         int(5;)\n\
         100\n\
         void()\n\
         str(AB;T;)\n\
         str(ab;T;)\n\
         r2!2\n\
         obj()\n\
         r0\n\
         long(5;2.5;)\n\
         8\n\
         list()\n\
         [x, y]\n\
         true\n"
    );
}

#[test]
fn static_initialization_order_and_failure() {
    let Some(env) = env() else { return };
    let c = compile_files(
        env,
        &[
            ("Arounds.aj", AROUNDS),
            (
                "Broken.aj",
                "package p;\npublic aspect Broken {\n    Broken() { throw new IllegalStateException(\"no\"); }\n    before(): execution(* *(..)) && !within(Broken) { }\n}\n",
            ),
        ],
    );
    ok(&c);
    let Some(out) = run_driver(
        env,
        &c,
        r#"
public class Driver {
    public static void main(String[] args) {
        System.out.println(p.Arounds.hasAspect() + " " + p.Arounds.log);
        System.out.println(p.Broken.hasAspect());
        try {
            p.Broken.aspectOf();
        } catch (org.aspectj.lang.NoAspectBoundException e) {
            System.out.println("NoAspectBound " + e.getCause());
        }
    }
}
"#,
    ) else {
        return;
    };
    assert_eq!(
        out,
        "true [static, ctor after 1 entries]\nfalse\nNoAspectBound java.lang.IllegalStateException: no\n"
    );
}

const IFS: &str = r#"package q;

import java.util.List;

public aspect Ifs {
    static int LIMIT = 3;

    pointcut big(Object o, int k): args(k, ..) && target(o) && if(k > LIMIT && o != null);

    before(int n, String s): call(* *.f(int, String)) && args(n, s)
        && if(n > 3 && s.length() > 1) && if(thisJoinPointStaticPart != null) {
    }

    before(int n, String t): call(* *.g(int, ..)) && big(t, n) {
    }

    after(List l) returning(Object r): call(* *.h(..)) && target(l) && if(l.isEmpty() // no r here
    ) {
    }
}
"#;

#[test]
fn if_test_methods() {
    let Some(env) = env() else { return };
    let c = compile_files(env, &[("Ifs.aj", IFS)]);
    let r = ok(&c);
    let a = aspect(r, "q/Ifs");
    let tests: Vec<(String, String, Vec<usize>, Vec<Extra>)> = a
        .advice
        .iter()
        .flat_map(|m| &m.if_tests)
        .map(|t| {
            assert_eq!(t.owner, "q/Ifs");
            (
                t.name.clone(),
                t.descriptor.clone(),
                t.slots.clone(),
                t.extras.clone(),
            )
        })
        .collect();
    assert_eq!(
        tests,
        vec![
            (
                "major$if$Ifs$0$0".to_string(),
                "(ILjava/lang/String;)Z".to_string(),
                vec![0, 1],
                vec![]
            ),
            (
                "major$if$Ifs$0$1".to_string(),
                format!("({SP})Z"),
                vec![],
                vec![Extra::StaticPart]
            ),
            // Types as the named pointcut declares them; slots of the advice.
            (
                "major$if$Ifs$1$0".to_string(),
                "(ILjava/lang/Object;)Z".to_string(),
                vec![0, 1],
                vec![]
            ),
            (
                "major$if$Ifs$2$0".to_string(),
                "(Ljava/util/List;)Z".to_string(),
                vec![0],
                vec![]
            ),
        ]
    );
    let Some(out) = run_driver(
        env,
        &c,
        r#"
public class Driver {
    public static void main(String[] args) {
        System.out.println(q.Ifs.major$if$Ifs$0$0(4, "ab") + " " + q.Ifs.major$if$Ifs$0$0(4, "a"));
        System.out.println(q.Ifs.major$if$Ifs$1$0(4, "x") + " " + q.Ifs.major$if$Ifs$1$0(3, "x"));
        System.out.println(q.Ifs.major$if$Ifs$2$0(new java.util.ArrayList<Object>()));
    }
}
"#,
    ) else {
        return;
    };
    assert_eq!(out, "true false\ntrue false\ntrue\n");
}

const BASE: &str = r#"package r;

public abstract aspect Base {
    private static int calls;

    protected abstract pointcut scope(Object x);

    before(Object x): scope(x) && if(x != null) {
        calls++;
        note("before " + x + " " + calls);
    }

    Object around(Object x): scope(x) {
        return "[" + proceed(x) + "]";
    }

    protected abstract void note(String s);
}
"#;

const CONCRETE: &str = r#"package r.sub;

import r.Base;

public aspect Concrete extends Base {
    static boolean on = true;

    protected pointcut scope(Object x): execution(* *.*(..)) && this(x) && if(on);

    protected void note(String s) {
        System.out.println("note " + s);
    }
}
"#;

#[test]
fn abstract_aspect_and_concrete_sub_aspect() {
    let Some(env) = env() else { return };
    let c = compile_files(env, &[("Base.aj", BASE), ("Concrete.aj", CONCRETE)]);
    let r = ok(&c);
    assert_eq!(r.aspects.len(), 1);
    let a = aspect(r, "r/sub/Concrete");
    let m: Vec<(&str, &str, &str)> = a
        .advice
        .iter()
        .map(|m| (m.owner.as_str(), m.name.as_str(), m.descriptor.as_str()))
        .collect();
    assert_eq!(
        m,
        vec![
            ("r/Base", "major$advice$Base$0", "(Ljava/lang/Object;)V"),
            (
                "r/Base",
                "major$advice$Base$1",
                "(Ljava/lang/Object;Lmajor/runtime/AroundClosure;)Ljava/lang/Object;"
            ),
        ]
    );
    // The if() of the sub-aspect's pointcut is in the sub-aspect, the advice's own in Base.
    let ifs: Vec<(&str, &str, &str)> = a
        .advice
        .iter()
        .flat_map(|m| &m.if_tests)
        .map(|t| (t.owner.as_str(), t.name.as_str(), t.descriptor.as_str()))
        .collect();
    assert_eq!(
        ifs,
        vec![
            ("r/sub/Concrete", "major$if$Concrete$0$0", "()Z"),
            ("r/Base", "major$if$Concrete$0$1", "(Ljava/lang/Object;)Z"),
            ("r/sub/Concrete", "major$if$Concrete$1$0", "()Z"),
        ]
    );
    assert!(!method_names(class(r, "r/Base.class"))
        .iter()
        .any(|m| m == "aspectOf"));
    let Some(out) = run_driver(
        env,
        &c,
        r#"
public class Driver {
    public static void main(String[] args) throws Throwable {
        r.sub.Concrete c = r.sub.Concrete.aspectOf();
        c.major$advice$Base$0("a");
        c.major$advice$Base$0("b");
        System.out.println(c.major$advice$Base$1("y", new major.runtime.AroundClosure() {
            public Object run(Object[] a) { return a[0] + "!"; }
        }));
        System.out.println(r.sub.Concrete.major$if$Concrete$0$0() + " " + r.Base.major$if$Concrete$0$1(null));
    }
}
"#,
    ) else {
        return;
    };
    assert_eq!(out, "note before a 1\nnote before b 2\n[y!]\ntrue false\n");
}

const TYPE_ERRORS: &str = r#"package e;

public aspect TypeErrors {
    static int count;

    pointcut p(int n): execution(* *(int)) && args(n) && if(n.isBig());

    before(int n): p(n) {
        count++;
        int x = "oops";
    }

    int around(): execution(int *(..)) {
        String s = proceed();
        return 1;
    }

    void helper() { undefinedCall(); }
}
"#;

#[test]
fn javac_errors_point_at_the_aj_text() {
    let Some(env) = env() else { return };
    let c = compile_files(env, &[("errors/TypeErrors.aj", TYPE_ERRORS)]);
    let e = err(&c);
    let ds = e.diagnostics();
    let shown: Vec<String> = ds.iter().map(|d| d.to_string()).collect();
    let find = |needle: &str| {
        shown
            .iter()
            .find(|s| s.contains(needle))
            .unwrap_or_else(|| panic!("no `{needle}` in {shown:#?}"))
            .clone()
    };
    // Each at the .aj file, line and column of the offending text.
    assert!(
        find("incompatible types: String cannot be converted to int")
            .starts_with("errors/TypeErrors.aj:10:17:"),
        "{shown:#?}"
    );
    assert!(find("int cannot be dereferenced").starts_with("errors/TypeErrors.aj:6:62:"));
    assert!(find("int cannot be converted to String").starts_with("errors/TypeErrors.aj:14:20:"));
    assert!(find("cannot find symbol").starts_with("errors/TypeErrors.aj:18:21:"));
    assert_eq!(ds.len(), 4, "{shown:#?}");

    let rendered = e.render();
    assert!(
        rendered.contains("errors/TypeErrors.aj:10:17"),
        "{rendered}"
    );
    assert!(rendered.contains("int x = \"oops\";"), "{rendered}");
    assert!(rendered.contains("if(n.isBig())"), "{rendered}");
    let proceed = ds.iter().find(|d| d.message.contains("to String")).unwrap();
    assert_eq!(proceed.span.text(TYPE_ERRORS), "proceed()");
    assert!(
        rendered.contains("symbol: method undefinedCall()"),
        "{rendered}"
    );
    assert!(!rendered.contains("major$"), "{rendered}");
    // The Display is the headline; miette renders the diagnostics after it.
    let display = e.to_string();
    assert!(display.contains("4 errors"), "{display}");
}

#[test]
fn errors_in_generated_glue_are_placed_on_the_aspect() {
    let Some(env) = env() else { return };
    let c = compile_files(
        env,
        &[(
            "NoCtor.aj",
            "package g;\n\npublic aspect NoCtor {\n    NoCtor(int x) { }\n    before(): execution(* *(..)) && !within(NoCtor) { }\n}\n",
        )],
    );
    let e = err(&c);
    let d = &e.diagnostics()[0];
    assert_eq!(d.file_name(), Some("NoCtor.aj"));
    assert_eq!(d.line_col(), Some((3, 15)), "{}", e.render());
    assert!(d.message.contains("constructor NoCtor"), "{}", d.message);
}

#[test]
fn newer_java_falls_back_from_release_8() {
    let Some(env) = env() else { return };
    let c = compile_files(
        env,
        &[(
            "Newer.aj",
            "public aspect Newer {\n    before(): execution(* *(..)) && !within(Newer) {\n        var s = \"-\".repeat(3);\n        System.out.println(s);\n    }\n}\n",
        )],
    );
    let r = ok(&c);
    let cf = ClassFile::parse(class(r, "Newer.class")).unwrap();
    assert!(cf.major_version > 52, "{}", cf.major_version);
    assert_eq!(r.aspects[0].advice[0].descriptor, "()V");
}

#[test]
fn top_level_types_of_an_aj_file_are_compiled() {
    let Some(env) = env() else { return };
    let c = compile_files(
        env,
        &[(
            "Helpers.aj",
            "package h;\n\nimport java.util.Map;\n\npublic aspect Helpers {\n    before(): execution(* *(..)) && !within(Helpers) { Counter.hit(); new Box().v = Tag.A; }\n}\n\npublic class Counter { static int n; static void hit() { n++; } }\n\nclass Box { Tag v; Map<String, String> m; }\n\nenum Tag { A, B }\n",
        )],
    );
    let r = ok(&c);
    assert_eq!(
        names(r),
        vec![
            "h/Box.class",
            "h/Counter.class",
            "h/Helpers.class",
            "h/Tag.class"
        ]
    );
}

#[test]
fn missing_javac_says_how_to_install() {
    let p = program(&[(
        "A.aj",
        "aspect A { before(): execution(* *(..)) && !within(A) { } }",
    )]);
    let work = tempfile::tempdir().unwrap();
    let e = compile(
        &p,
        Path::new("/usr/share/java/aspectjrt.jar"),
        Path::new("/nonexistent/bin/javac"),
        work.path(),
        None,
    )
    .unwrap_err();
    assert!(
        matches!(e, AspectCompileError::JavacNotFound { .. }),
        "{e:?}"
    );
    let shown = format!("{:?}", miette::Report::new(e));
    assert!(shown.contains("/nonexistent/bin/javac"), "{shown}");
    assert!(shown.contains("install a JDK"), "{shown}");
}

const ANNOTATED_ERRORS: &str = r#"package errs;

import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.Before;

@Aspect
public class Broken {
    @Before("execution(* *.run(..)) && args(n)")
    public void before(JoinPoint jp, int n) {
        String s = n;
        jp.noSuchMethod();
    }
}
"#;

#[test]
fn annotation_style_javac_errors_point_at_the_java_file() {
    let Some(env) = env() else { return };
    let c = compile_files(
        env,
        &[
            ("errs/Broken.java", ANNOTATED_ERRORS),
            (
                "errs/Also.aj",
                "package errs;\n\npublic aspect Also {\n    before(): execution(* *.run(..)) {\n        int k = \"k\";\n    }\n}\n",
            ),
        ],
    );
    let e = err(&c);
    let shown: Vec<String> = e.diagnostics().iter().map(|d| d.to_string()).collect();
    let find = |needle: &str| {
        shown
            .iter()
            .find(|s| s.contains(needle))
            .unwrap_or_else(|| panic!("no `{needle}` in {shown:#?}"))
            .clone()
    };
    // The user's own file, line and column, as javac saw them.
    assert!(
        find("int cannot be converted to String").starts_with("errs/Broken.java:11:20:"),
        "{shown:#?}"
    );
    assert!(
        find("cannot find symbol").starts_with("errs/Broken.java:12:11:"),
        "{shown:#?}"
    );
    // Errors of code-style aspects of the same javac run are still on the .aj.
    assert!(
        find("String cannot be converted to int").starts_with("errs/Also.aj:5:17:"),
        "{shown:#?}"
    );
    assert_eq!(shown.len(), 3, "{shown:#?}");
    let rendered = e.render();
    assert!(rendered.contains("String s = n;"), "{rendered}");
    assert!(
        rendered.contains("symbol: method noSuchMethod()"),
        "{rendered}"
    );
}

const ORDERED: &str = r#"package ord;

import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.AfterReturning;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.Before;
import org.aspectj.lang.annotation.Pointcut;

@Aspect
public class Ordered {
    static final StringBuilder LOG = new StringBuilder("log:");

    public Ordered() {
        LOG.append(" made");
    }

    @Before("execution(* ord.Target.run(..)) && args(n, s) && this(t)")
    public void before(JoinPoint jp, String s, JoinPoint.StaticPart sp, Target t, int n) {
        LOG.append(" before " + s + n);
    }

    @AfterReturning(pointcut = "execution(* ord.Target.run(..))", returning = "r")
    public void returned(int r, JoinPoint.EnclosingStaticPart esp) {
    }

    @Around("execution(* ord.Target.run(..)) && args(n, ..)")
    public Object around(int n, ProceedingJoinPoint pjp) throws Throwable {
        return pjp.proceed();
    }

    @Pointcut("execution(* ord.Target.run(..)) && args(n, ..) && if()")
    public static boolean big(int n) {
        return n > 10;
    }

    @Before("big(n)")
    public void whenBig(int n) {
    }

    public static String log() {
        return LOG.toString();
    }
}
"#;

const TARGET: &str =
    "package ord;\n\npublic class Target {\n    public int run(int n, String s) { return n; }\n}\n";

#[test]
fn annotation_style_parameters_in_any_order() {
    let Some(env) = env() else { return };
    let c = compile_files(
        env,
        &[("ord/Ordered.java", ORDERED), ("ord/Target.java", TARGET)],
    );
    let r = ok(&c);
    // Compiled as written, and the plain class next to it.
    assert_eq!(
        names(r),
        vec!["ord/Ordered.class", "ord/Target.class"],
        "{:?}",
        names(r)
    );
    let a = aspect(r, "ord/Ordered");
    let m = &a.advice[0];
    assert_eq!(
        (m.owner.as_str(), m.name.as_str()),
        ("ord/Ordered", "before")
    );
    assert_eq!(
        m.descriptor,
        format!("(Lorg/aspectj/lang/JoinPoint;Ljava/lang/String;{SP}Lord/Target;I)V")
    );
    // Slots are the resolved advice's formals, join-point parameters included.
    assert_eq!(
        m.params,
        vec![
            Param::Extra(Extra::JoinPoint),
            Param::Formal(1),
            Param::Extra(Extra::StaticPart),
            Param::Formal(3),
            Param::Formal(4)
        ]
    );
    assert_eq!(m.formal_types[1], "Ljava/lang/String;");
    assert_eq!(m.formal_types[3], "Lord/Target;");
    assert_eq!(m.formal_types[4], "I");
    // The returning formal is the last slot wherever it is written.
    let m = &a.advice[1];
    assert_eq!(
        m.params,
        vec![Param::Formal(1), Param::Extra(Extra::EnclosingStaticPart)]
    );
    assert_eq!(m.formal_types[1], "I");
    assert!(matches!(m.kind, AdviceKind::AfterReturning(Some(_))));
    let m = &a.advice[2];
    assert_eq!(
        m.params,
        vec![Param::Formal(0), Param::Extra(Extra::JoinPoint)]
    );
    assert_eq!(
        m.descriptor,
        "(ILorg/aspectj/lang/ProceedingJoinPoint;)Ljava/lang/Object;"
    );
    // if() is decided by the @Pointcut method, given the formals it names.
    let m = &a.advice[3];
    assert_eq!(m.name, "whenBig");
    assert_eq!(m.if_tests.len(), 1);
    let t = &m.if_tests[0];
    assert_eq!(
        (t.owner.as_str(), t.name.as_str(), t.descriptor.as_str()),
        ("ord/Ordered", "big", "(I)Z")
    );
    assert_eq!((t.slots.clone(), t.extras.clone()), (vec![0], vec![]));

    // The class is an aspect now: one instance, made after the static fields.
    let ms = method_names(class(r, "ord/Ordered.class"));
    assert!(ms.iter().any(|m| m == "aspectOf"), "{ms:?}");
    // (the driver runs against the class files on disk: put the rewritten ones there)
    for (name, bytes) in &r.classes {
        std::fs::write(c.work.path().join("classes").join(name), bytes).unwrap();
    }
    let out = run_driver(
        env,
        &c,
        "public class Driver {\n    public static void main(String[] a) {\n        System.out.println(ord.Ordered.hasAspect() + \" \" + (ord.Ordered.aspectOf() == ord.Ordered.aspectOf()) + \" \" + ord.Ordered.log());\n    }\n}\n",
    );
    if let Some(out) = out {
        assert_eq!(out, "true true log: made\n");
    }
}

#[test]
fn annotation_style_mistakes_are_reported_on_the_java_file() {
    let Some(env) = env() else { return };
    let pjp_in_before = "import org.aspectj.lang.ProceedingJoinPoint;\nimport org.aspectj.lang.annotation.*;\n\n@Aspect\npublic class P {\n    @Before(\"execution(* *.run(..))\")\n    public void b(ProceedingJoinPoint pjp) { }\n}\n";
    let c = compile_files(env, &[("P.java", pjp_in_before)]);
    let d = &err(&c).diagnostics()[0];
    assert_eq!(d.file_name(), Some("P.java"));
    assert_eq!(d.line_col(), Some((7, 19)), "{}", d);
    assert!(d.message.contains("only around advice"), "{}", d.message);

    let private = "import org.aspectj.lang.annotation.*;\n\n@Aspect\npublic class Q {\n    @Before(\"execution(* *.run(..))\")\n    void b() { }\n}\n";
    let c = compile_files(env, &[("Q.java", private)]);
    let d = &err(&c).diagnostics()[0];
    assert_eq!(d.line_col(), Some((6, 10)), "{}", d);
    assert!(
        d.message.contains("public instance method"),
        "{}",
        d.message
    );

    let no_ctor = "import org.aspectj.lang.annotation.*;\n\n@Aspect\npublic class R {\n    public R(int x) { }\n    @Before(\"execution(* *.run(..))\")\n    public void b() { }\n}\n";
    let c = compile_files(env, &[("R.java", no_ctor)]);
    let d = &err(&c).diagnostics()[0];
    assert_eq!(d.line_col(), Some((4, 14)), "{}", d);
    assert!(
        d.message.contains("no constructor without parameters"),
        "{}",
        d.message
    );
}
