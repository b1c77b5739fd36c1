//! The matching API against class and member views as the weaver reads them from
//! class files (internal names, descriptors, access flags).

use major_pointcut_lang::matcher::*;
use major_pointcut_lang::resolve::Scope;
use major_pointcut_lang::{resolve_pointcut, SourceFile};

const PUBLIC: u16 = 0x0001;
const PRIVATE: u16 = 0x0002;
const STATIC: u16 = 0x0008;
const FINAL: u16 = 0x0010;

fn world() -> SimpleWorld {
    let mut w = SimpleWorld::new();
    w.add(
        "java/lang/Object",
        &[],
        &[("hashCode", "()I"), ("<init>", "()V")],
    )
    .add(
        "java/lang/String",
        &["java/lang/Object", "java/lang/CharSequence"],
        &[],
    )
    .add("java/lang/CharSequence", &[], &[])
    .add("java/lang/Throwable", &["java/lang/Object"], &[])
    .add("java/lang/Exception", &["java/lang/Throwable"], &[])
    .add("java/lang/RuntimeException", &["java/lang/Exception"], &[])
    .add("java/lang/Deprecated", &[], &[])
    .add("java/io/IOException", &["java/lang/Exception"], &[])
    .add(
        "java/io/FileNotFoundException",
        &["java/io/IOException"],
        &[],
    )
    .add(
        "java/util/Collection",
        &[],
        &[("add", "(Ljava/lang/Object;)Z")],
    )
    .add(
        "java/util/List",
        &["java/util/Collection"],
        &[("add", "(Ljava/lang/Object;)Z")],
    )
    .add(
        "java/util/AbstractList",
        &["java/lang/Object", "java/util/List"],
        &[],
    )
    .add(
        "java/util/ArrayList",
        &["java/util/AbstractList"],
        &[("add", "(Ljava/lang/Object;)Z"), ("<init>", "(I)V")],
    )
    .add("java/util/Map", &[], &[])
    .add("java/util/Map$Entry", &[], &[])
    .add(
        "java/util/HashMap",
        &["java/lang/Object", "java/util/Map"],
        &[("<init>", "(I)V")],
    )
    .add(
        "java/util/concurrent/ConcurrentHashMap",
        &["java/lang/Object", "java/util/Map"],
        &[],
    )
    .add("java/lang/Number", &["java/lang/Object"], &[])
    .add("java/lang/Comparable", &[], &[])
    .add(
        "java/lang/Integer",
        &["java/lang/Number", "java/lang/Comparable"],
        &[],
    )
    .add(
        "java/lang/Long",
        &["java/lang/Number", "java/lang/Comparable"],
        &[],
    )
    .add("java/lang/Character", &["java/lang/Object"], &[])
    .add("com/acme/Marker", &[], &[])
    .add(
        "com/acme/OrderService",
        &["java/lang/Object"],
        &[("handle", "(Ljava/lang/String;I)V")],
    )
    .add("com/acme/OrderService$Inner", &["java/lang/Object"], &[])
    .annotate("com/acme/OrderService", &["com/acme/Marker"]);
    w
}

fn scope() -> Scope {
    Scope {
        package: Some("com.acme".into()),
        single: vec![("List".into(), "java.util.List".into())],
        on_demand: vec!["java.util".into()],
    }
}

fn compile(pc: &str, w: &SimpleWorld) -> CompiledPointcut {
    let src = SourceFile::new("test", pc);
    let resolved = resolve_pointcut(&src, &scope()).unwrap_or_else(|e| panic!("{}", e.render()));
    CompiledPointcut::compile(&resolved, &|_| None, w)
}

struct Case {
    kind: ShadowKind,
    class: &'static str,
    class_annotations: &'static [&'static str],
    name: &'static str,
    desc: &'static str,
    access: u16,
    annotations: &'static [&'static str],
    exceptions: &'static [&'static str],
}

const fn case(
    kind: ShadowKind,
    class: &'static str,
    name: &'static str,
    desc: &'static str,
    access: u16,
) -> Case {
    Case {
        kind,
        class,
        class_annotations: &[],
        name,
        desc,
        access,
        annotations: &[],
        exceptions: &[],
    }
}

fn run(pc: &str, c: &Case) -> Fuzzy {
    let w = world();
    let compiled = compile(pc, &w);
    let class = ClassView {
        name: c.class,
        access: PUBLIC,
        annotations: c.class_annotations,
    };
    let member = MemberView {
        name: c.name,
        descriptor: c.desc,
        access: c.access,
        annotations: c.annotations,
        exceptions: c.exceptions,
    };
    let enclosing_class = ClassView {
        name: "com/acme/OrderService",
        access: PUBLIC,
        annotations: &["Lcom/acme/Marker;"],
    };
    let enclosing = MemberView {
        name: "handle",
        descriptor: "(Ljava/lang/String;I)V",
        access: PUBLIC,
        annotations: &[],
        exceptions: &[],
    };
    let is_exec = matches!(
        c.kind,
        ShadowKind::MethodExecution | ShadowKind::ConstructorExecution
    );
    let shadow = Shadow {
        kind: c.kind,
        enclosing_class: if is_exec { class } else { enclosing_class },
        enclosing_member: if is_exec { member } else { enclosing },
        subject_class: class,
        subject: member,
        handler_type: (c.kind == ShadowKind::ExceptionHandler).then_some(c.class),
        before_super: false,
    };
    compiled.matches(&shadow, &w)
}

use Fuzzy::{Maybe, No, Yes};
use ShadowKind::*;

#[test]
fn table() {
    let add = case(
        MethodExecution,
        "java/util/ArrayList",
        "add",
        "(Ljava/lang/Object;)Z",
        PUBLIC,
    );
    let handle = case(
        MethodExecution,
        "com/acme/OrderService",
        "handle",
        "(Ljava/lang/String;I)V",
        PUBLIC,
    );
    let handle_call = case(
        MethodCall,
        "com/acme/OrderService",
        "handle",
        "(Ljava/lang/String;I)V",
        PUBLIC,
    );
    let ctor = case(
        ConstructorCall,
        "java/util/HashMap",
        "<init>",
        "(I)V",
        PUBLIC,
    );
    let field = case(
        FieldGet,
        "com/acme/OrderService",
        "count",
        "J",
        PRIVATE | STATIC,
    );
    let map_field = case(
        FieldSet,
        "com/acme/OrderService",
        "cache",
        "Ljava/util/Map;",
        PRIVATE | FINAL,
    );
    let ioe = case(
        ExceptionHandler,
        "java/io/FileNotFoundException",
        "handle",
        "(Ljava/lang/String;I)V",
        PUBLIC,
    );
    let clinit = case(
        StaticInitialization,
        "com/acme/OrderService",
        "<clinit>",
        "()V",
        STATIC,
    );
    let mut deprecated = case(
        MethodExecution,
        "com/acme/OrderService",
        "old",
        "()V",
        PUBLIC,
    );
    deprecated.annotations = &["Ljava/lang/Deprecated;"];
    let mut throwing = case(
        MethodExecution,
        "com/acme/OrderService",
        "load",
        "()[B",
        PUBLIC,
    );
    throwing.exceptions = &["java/io/IOException"];
    let mut annotated_class = case(
        MethodExecution,
        "com/acme/OrderService",
        "handle",
        "(Ljava/lang/String;I)V",
        PUBLIC,
    );
    annotated_class.class_annotations = &["com/acme/Marker"];
    let inner = case(
        MethodExecution,
        "com/acme/OrderService$Inner",
        "run",
        "()V",
        PUBLIC,
    );
    let varargs = case(
        MethodExecution,
        "com/acme/OrderService",
        "log",
        "([Ljava/lang/String;)V",
        PUBLIC | 0x80,
    );

    let table: Vec<(&str, &Case, Fuzzy)> = vec![
        ("execution(* *(..))", &add, Yes),
        ("execution(* *(..))", &ctor, No),
        ("call(* *(..))", &add, No),
        (
            "execution(boolean java.util.ArrayList.add(Object))",
            &add,
            Yes,
        ),
        ("execution(boolean ArrayList.add(Object))", &add, Yes),
        ("execution(* List.add(..))", &add, Yes),
        ("execution(* java.util.Collection.add(..))", &add, Yes),
        ("execution(* java.util.Map.add(..))", &add, No),
        ("execution(* java.util.List+.add(..))", &add, Yes),
        ("execution(* java.util.*List.add(..))", &add, Yes),
        ("execution(* java..*.add(..))", &add, Yes),
        ("execution(* javax..*.add(..))", &add, No),
        ("execution(int *(..))", &add, No),
        ("execution(* add(*))", &add, Yes),
        ("execution(* add())", &add, No),
        ("execution(* add(*, ..))", &add, Yes),
        ("execution(* add(.., *, ..))", &add, Yes),
        ("execution(* add(String))", &add, No),
        ("execution(public * *(..))", &add, Yes),
        ("execution(!public * *(..))", &add, No),
        ("execution(static * *(..))", &add, No),
        ("execution(* ad*(..))", &add, Yes),
        ("execution(* *dd(..))", &add, Yes),
        ("execution(* handle(String, int))", &handle, Yes),
        ("execution(* handle(CharSequence+, int))", &handle, Yes),
        ("execution(* handle(CharSequence, int))", &handle, No),
        ("execution(* handle(.., int))", &handle, Yes),
        ("execution(* handle(.., long))", &handle, No),
        (
            "execution(void com.acme.*Service.handle*(..))",
            &handle,
            Yes,
        ),
        // A simple-name wildcard sees the aspect's package (com.acme) and its
        // imports, as in AspectJ; not other packages.
        ("execution(void *Service.handle(..))", &handle, Yes),
        ("execution(boolean *List.add(..))", &add, Yes),
        ("execution(void *Service.handle(..))", &add, No),
        ("execution(* *List.add(..)) && within(*Map)", &add, No),
        ("execution(void *..*Service.handle(..))", &handle, Yes),
        ("execution(void OrderService.handle(..))", &handle, Yes),
        ("call(* OrderService.handle(..))", &handle_call, Yes),
        (
            "call(* OrderService.handle(..)) && within(com.acme.*)",
            &handle_call,
            Yes,
        ),
        (
            "call(* OrderService.handle(..)) && !within(com.acme.*)",
            &handle_call,
            No,
        ),
        (
            "call(* *(..)) && withincode(* handle(..))",
            &handle_call,
            Yes,
        ),
        ("call(* *(..)) && withincode(* other(..))", &handle_call, No),
        ("call(*.new(..))", &ctor, Yes),
        ("call(java.util.HashMap.new(int))", &ctor, Yes),
        ("call(HashMap.new(int))", &ctor, Yes),
        ("call(java.util.Map+.new(..))", &ctor, Yes),
        ("call(java.util.Map.new(..))", &ctor, No),
        ("call(*.new())", &ctor, No),
        ("execution(*.new(..))", &ctor, No),
        ("get(long *)", &field, Yes),
        ("get(static long OrderService.count)", &field, Yes),
        ("get(!static * *)", &field, No),
        ("get(private * *.count)", &field, Yes),
        ("set(* *)", &field, No),
        ("set(java.util.Map+ *)", &map_field, Yes),
        ("set(Map cache)", &map_field, Yes),
        ("set(final * *)", &map_field, Yes),
        ("handler(java.io.IOException)", &ioe, No),
        ("handler(java.io.IOException+)", &ioe, Yes),
        ("handler(*Exception)", &ioe, No),
        ("handler(java.io.*Exception)", &ioe, Yes),
        ("staticinitialization(com.acme.*)", &clinit, Yes),
        ("staticinitialization(java..*)", &clinit, No),
        ("execution(@Deprecated * *(..))", &deprecated, Yes),
        ("execution(@java.lang.Deprecated * *(..))", &deprecated, Yes),
        ("execution(!@Deprecated * *(..))", &deprecated, No),
        ("execution(@Deprecated * *(..))", &handle, No),
        ("@annotation(Deprecated)", &deprecated, Yes),
        ("@annotation(Deprecated)", &handle, No),
        (
            "execution(* *(..)) && @within(Marker)",
            &annotated_class,
            Yes,
        ),
        ("execution(* (@Marker *).*(..))", &annotated_class, Yes),
        ("execution(* (@Marker *).*(..))", &add, No),
        ("within(@Marker *)", &annotated_class, Yes),
        (
            "execution(* *(..) throws java.io.IOException)",
            &throwing,
            Yes,
        ),
        ("execution(* *(..) throws Exception+)", &throwing, Yes),
        (
            "execution(* *(..) throws !java.io.IOException)",
            &throwing,
            No,
        ),
        (
            "execution(* *(..) throws !java.io.IOException)",
            &handle,
            Yes,
        ),
        ("execution(byte[] load())", &throwing, Yes),
        ("execution(byte load())", &throwing, No),
        ("execution(* *(..)) && within(OrderService)", &inner, Yes),
        (
            "execution(* *(..)) && within(OrderService.Inner)",
            &inner,
            Yes,
        ),
        ("execution(* log(String...))", &varargs, Yes),
        // As in ajc (conformance case 067): `T[]` does not match `T...`.
        ("execution(* log(String[]))", &varargs, No),
        ("execution(* *(..)) && this(Object)", &add, Yes),
        ("execution(* *(..)) && this(java.util.List)", &add, Yes),
        ("execution(* *(..)) && this(java.util.Map)", &add, Maybe),
        (
            "execution(* *(..)) && target(java.util.AbstractList)",
            &add,
            Yes,
        ),
        ("execution(* *(..)) && args(String)", &handle, No),
        ("execution(* *(..)) && args(String, int)", &handle, Yes),
        ("execution(* *(..)) && args(.., int)", &handle, Yes),
        // An int argument widens to long, as in ajc (conformance case 100).
        ("execution(* *(..)) && args(*, long)", &handle, Yes),
        ("execution(* *(..)) && args(*, short)", &handle, No),
        ("execution(* *(..)) && args(CharSequence, ..)", &handle, Yes),
        ("execution(* *(..)) && args(Integer, ..)", &handle, Maybe),
        ("execution(* *(..)) && args()", &handle, No),
        ("get(* *) && target(*)", &field, No),
        ("get(* *) && this(OrderService)", &field, Yes),
        ("get(* *) && args()", &field, Yes),
        ("set(* *) && args(java.util.Map)", &map_field, Yes),
        ("handler(*) && args(java.io.IOException)", &ioe, Yes),
        (
            "call(* *(..)) && this(Object) && target(OrderService)",
            &handle_call,
            Yes,
        ),
        // As in ajc (conformance case 035): `args(int)` does not match an
        // `Object` argument, even one holding an Integer.
        ("execution(* *(..)) && args(int)", &add, No),
        ("execution(* *(..)) || args(int)", &add, Yes),
        ("call(* *(..)) && args(int)", &add, No),
        ("execution(* *(..)) && cflow(call(* main(..)))", &add, Maybe),
        ("execution(* *(..)) && !if(true)", &add, Maybe),
        (
            "execution(* (java.util.List || java.util.Map).add(..))",
            &add,
            Yes,
        ),
        ("execution(* (!java.util.List).add(..))", &add, Yes),
        (
            "execution(* (java.util.List+ && !java.util.ArrayList).add(..))",
            &add,
            Yes,
        ),
        ("adviceexecution()", &add, No),
    ];
    let mut failures = Vec::new();
    for (pc, c, want) in &table {
        let got = run(pc, c);
        if got != *want {
            failures.push(format!(
                "{pc} on {}.{}{}: expected {want:?}, got {got:?}",
                c.class, c.name, c.desc
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        table.len(),
        failures.join("\n")
    );
}

/// Primitive, box and reference arguments against primitive, box and
/// reference `args(..)` patterns, as ajc 1.9.5 decides them (the static part
/// of conformance case 100): each row is an argument type and the patterns
/// that match it, then those left to a run-time test.
#[test]
fn primitive_args_follow_ajc() {
    let pats = [
        "boolean",
        "byte",
        "char",
        "short",
        "int",
        "long",
        "float",
        "double",
        "Integer",
        "Long",
        "Character",
        "Number",
        "Object",
        "Comparable",
        "Integer+",
        "Number+",
        "Object+",
    ];
    let rows: &[(&str, &[&str], &[&str])] = &[
        ("Z", &["boolean", "Object", "Object+"], &[]),
        (
            "B",
            &[
                "byte", "char", "short", "int", "long", "float", "double", "Object", "Object+",
            ],
            &[],
        ),
        (
            "C",
            &[
                "char",
                "int",
                "long",
                "float",
                "double",
                "Character",
                "Object",
                "Object+",
            ],
            &[],
        ),
        (
            "S",
            &[
                "short", "int", "long", "float", "double", "Object", "Object+",
            ],
            &[],
        ),
        (
            "I",
            &[
                "int", "long", "float", "double", "Integer", "Object", "Integer+", "Object+",
            ],
            &[],
        ),
        (
            "J",
            &["long", "float", "double", "Long", "Object", "Object+"],
            &[],
        ),
        ("F", &["float", "double", "Object", "Object+"], &[]),
        ("D", &["double", "Object", "Object+"], &[]),
        (
            "Ljava/lang/Integer;",
            &[
                "int",
                "Integer",
                "Number",
                "Object",
                "Comparable",
                "Integer+",
                "Number+",
                "Object+",
            ],
            // Unrelated classes: left to a run-time test that fails.
            &["Long", "Character"],
        ),
        (
            "Ljava/lang/Number;",
            &["Number", "Object", "Number+", "Object+"],
            &["Integer", "Long", "Character", "Comparable", "Integer+"],
        ),
        (
            "Ljava/lang/Object;",
            &["Object", "Object+"],
            &[
                "Integer",
                "Long",
                "Character",
                "Number",
                "Comparable",
                "Integer+",
                "Number+",
            ],
        ),
    ];
    let mut failures = Vec::new();
    for (arg, yes, maybe) in rows {
        let desc = format!("({arg})V");
        let desc: &'static str = Box::leak(desc.into_boxed_str());
        let c = case(MethodExecution, "com/acme/OrderService", "p", desc, STATIC);
        for pat in pats {
            let want = if yes.contains(&pat) {
                Yes
            } else if maybe.contains(&pat) {
                Maybe
            } else {
                No
            };
            let pc = format!("execution(* p(..)) && args({pat})");
            let got = run(&pc, &c);
            if got != want {
                failures.push(format!("{pc} on {arg}: expected {want:?}, got {got:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(primitive_widens("byte", "char") && !primitive_widens("char", "short"));
    assert!(!primitive_widens("void", "void") && !primitive_widens("int", "boolean"));
}

#[test]
fn type_patterns_alone() {
    let w = world();
    let tp = |s: &str| {
        let t = major_pointcut_lang::parse::parse_type_pattern(s).unwrap();
        CompiledTypePattern::compile(&scope().resolve_type_pattern(&t), &w)
    };
    assert!(tp("java.util.*Map").matches_class(
        &ClassView {
            name: "java/util/HashMap",
            access: PUBLIC,
            annotations: &[]
        },
        &w
    ));
    assert!(!tp("java.util.*Map").matches_class(
        &ClassView {
            name: "java/util/concurrent/ConcurrentHashMap",
            access: PUBLIC,
            annotations: &[]
        },
        &w
    ));
    assert!(tp("java..*Map").matches_class(
        &ClassView {
            name: "java/util/concurrent/ConcurrentHashMap",
            access: PUBLIC,
            annotations: &[]
        },
        &w
    ));
    assert!(tp("Map.Entry").matches_descriptor("Ljava/util/Map$Entry;", &w));
    assert!(tp("int[][]").matches_descriptor("[[I", &w));
    assert!(!tp("int[]").matches_descriptor("[[I", &w));
    assert!(tp("*").matches_descriptor("[[I", &w));
    assert!(tp("Object+").matches_descriptor("Ljava/util/HashMap;", &w));
    assert!(!tp("Object+").matches_descriptor("I", &w));
    assert!(tp("String").matches_descriptor("Ljava/lang/String;", &w));
    assert!(tp("!String").matches_descriptor("Ljava/lang/Object;", &w));
    assert!(tp("String || int").matches_descriptor("I", &w));
    assert!(tp("*").is_any());
}

#[test]
fn could_match_follows_kinded_designators() {
    use ShadowKind::*;
    let w = world();
    let kinds = |pc: &str| -> Vec<ShadowKind> {
        let c = compile(pc, &w);
        [
            MethodCall,
            ConstructorCall,
            MethodExecution,
            ConstructorExecution,
            FieldGet,
            FieldSet,
            StaticInitialization,
            Initialization,
            PreInitialization,
            ExceptionHandler,
            AdviceExecution,
        ]
        .into_iter()
        .filter(|k| c.could_match(*k))
        .collect()
    };
    assert_eq!(kinds("call(*.new(..))"), vec![ConstructorCall]);
    assert_eq!(kinds("call(* *(..)) && within(com..*)"), vec![MethodCall]);
    assert_eq!(
        kinds("execution(* *(..)) || get(* *)"),
        vec![MethodExecution, FieldGet]
    );
    assert_eq!(kinds("call(* *(..)) && execution(* *(..))"), Vec::new());
    assert_eq!(kinds("handler(Exception+)"), vec![ExceptionHandler]);
    // Unkinded pointcuts, and negations, may match anything.
    assert_eq!(kinds("within(com.acme..*)").len(), 11);
    assert_eq!(kinds("!call(* *(..))").len(), 11);
    assert_eq!(kinds("adviceexecution()"), vec![AdviceExecution]);
}

/// Where `needs_member_details` is false, the match cannot depend on the
/// subject's modifiers (but its static bit), annotations, exceptions, or on its
/// class's modifiers and annotations: a weaver may then skip looking them up.
#[test]
fn member_details_are_only_needed_where_said() {
    let w = world();
    const VARARGS: u16 = 0x0080;
    const STATIC: u16 = 0x0008;
    let rich = |kind, class, name, desc, access| Case {
        kind,
        class,
        class_annotations: &["Lcom/acme/Marker;"],
        name,
        desc,
        access,
        annotations: &["Lcom/acme/Marker;"],
        exceptions: &["java/io/IOException"],
    };
    let cases = [
        rich(
            MethodCall,
            "com/acme/OrderService",
            "handle",
            "(Ljava/lang/String;I)V",
            PUBLIC,
        ),
        rich(
            MethodCall,
            "java/util/ArrayList",
            "add",
            "(Ljava/lang/Object;)Z",
            PUBLIC,
        ),
        rich(
            MethodCall,
            "com/acme/OrderService",
            "all",
            "([Ljava/lang/Object;)V",
            PUBLIC | STATIC | VARARGS,
        ),
        rich(
            ConstructorCall,
            "java/util/HashMap",
            "<init>",
            "(I)V",
            PUBLIC,
        ),
        rich(
            ConstructorCall,
            "com/acme/OrderService",
            "<init>",
            "()V",
            0x0002,
        ),
        rich(
            FieldGet,
            "com/acme/OrderService",
            "count",
            "I",
            0x0002 | STATIC,
        ),
        rich(
            FieldSet,
            "com/acme/OrderService",
            "name",
            "Ljava/lang/String;",
            PUBLIC,
        ),
    ];
    let pointcuts = [
        ("call(*.new(..))", false),
        ("call(* *(..))", false),
        ("call(* handle(..)) && args(String, int)", false),
        ("call(* *(..)) && target(java.util.List)", false),
        ("call(*.new(int)) || get(int *)", false),
        ("get(* *) || set(String *)", false),
        ("call(* *(..)) && !within(com.acme..*)", false),
        ("call(public * *(..))", true),
        ("call(!static * *(..))", true),
        ("call(* com.acme.OrderService.*(..))", true),
        ("call(* *(Object...))", true),
        ("call(* *(..) throws java.io.IOException)", true),
        ("call(@com.acme.Marker * *(..))", true),
        ("call(* *(..)) && @annotation(com.acme.Marker)", true),
        ("get(private * *)", true),
        ("call(com.acme.OrderService.new(..))", true),
    ];
    for (pc, needs) in pointcuts {
        let compiled = compile(pc, &w);
        for c in &cases {
            let said = compiled.needs_member_details(c.kind);
            if !compiled.could_match(c.kind) {
                continue;
            }
            if needs {
                assert!(
                    [MethodCall, ConstructorCall, FieldGet, FieldSet]
                        .iter()
                        .any(|k| compiled.needs_member_details(*k)),
                    "{pc} needs member details"
                );
            }
            if said {
                continue;
            }
            let full = run(pc, c);
            let stripped = Case {
                kind: c.kind,
                class: c.class,
                class_annotations: &[],
                name: c.name,
                desc: c.desc,
                access: c.access & STATIC,
                annotations: &[],
                exceptions: &[],
            };
            assert_eq!(full, run(pc, &stripped), "{pc} on {}.{}", c.class, c.name);
        }
    }
}

/// A world where `com/acme/Outer$Inner` is nested and `com/acme/Outer$Dollar`
/// is a top-level class with a `$` in its name (what `InnerClasses` says).
struct NestingWorld(SimpleWorld);

impl TypeWorld for NestingWorld {
    fn exists(&self, n: &str) -> bool {
        self.0.exists(n)
    }
    fn super_types(&self, n: &str) -> Vec<String> {
        self.0.super_types(n)
    }
    fn declares_method(&self, o: &str, n: &str, d: &str) -> bool {
        self.0.declares_method(o, n, d)
    }
    fn is_nested(&self, n: &str) -> bool {
        n == "com/acme/Outer$Inner"
    }
}

/// `$` and nesting as ajc 1.9.5 sees them (conformance case 101): wildcards see
/// a nested class with `.` for `$`, a top-level class with its `$`; the
/// aspect's package (`com.acme` here) is tried as a prefix; `Outer.Dollar`
/// never names the top-level `Outer$Dollar`; `within` covers nested classes
/// only.
#[test]
fn dollar_names_follow_nesting() {
    let mut s = world();
    s.add("com/acme/Outer", &["java/lang/Object"], &[])
        .add("com/acme/Outer$Inner", &["java/lang/Object"], &[])
        .add("com/acme/Outer$Dollar", &["java/lang/Object"], &[]);
    let w = NestingWorld(s);
    let tp = |s: &str| {
        let t = major_pointcut_lang::parse::parse_type_pattern(s).unwrap();
        CompiledTypePattern::compile(&scope().resolve_type_pattern(&t), &w)
    };
    let inner = "Lcom/acme/Outer$Inner;";
    let dollar = "Lcom/acme/Outer$Dollar;";
    let table = [
        ("Outer.Inner", true, false),
        ("Outer$Inner", true, false),
        ("com.acme.Outer$Inner", true, false),
        ("*$Inner", false, false),
        ("*.Inner", true, false),
        ("Outer.*", true, false),
        ("Outer*", false, true),
        ("*Inner", false, false),
        ("Outer$*", false, true),
        ("*$Dollar", false, true),
        ("Outer$Dollar", false, true),
        ("Outer.Dollar", false, false),
        ("com..*$Dollar", false, true),
        ("*..Inner", true, false),
    ];
    let mut failures = Vec::new();
    for (pattern, on_inner, on_dollar) in table {
        let p = tp(pattern);
        if p.matches_descriptor(inner, &w) != on_inner
            || p.matches_descriptor(dollar, &w) != on_dollar
        {
            failures.push(format!("{pattern}: expected {on_inner}/{on_dollar}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    let within = |pc: &str, class: &str| {
        let src = SourceFile::new("test", pc);
        let resolved = resolve_pointcut(&src, &scope()).unwrap();
        let compiled = CompiledPointcut::compile(&resolved, &|_| None, &w);
        let view = ClassView {
            name: class,
            access: PUBLIC,
            annotations: &[],
        };
        let m = MemberView {
            name: "run",
            descriptor: "()V",
            access: PUBLIC,
            annotations: &[],
            exceptions: &[],
        };
        let shadow = Shadow {
            kind: MethodExecution,
            enclosing_class: view,
            enclosing_member: m,
            subject_class: view,
            subject: m,
            handler_type: None,
            before_super: false,
        };
        compiled.matches(&shadow, &w)
    };
    assert_eq!(within("within(Outer)", "com/acme/Outer$Inner"), Yes);
    assert_eq!(within("within(Outer)", "com/acme/Outer$Dollar"), No);
}

/// Parameterized patterns match generic signatures as ajc does (conformance
/// case 102); the syntax ajc accepts parses: `!Base+.m`, wildcard type
/// arguments, `int[].new` (which matches no constructor).
#[test]
fn generic_parameters_and_new_syntax() {
    let mut w = world();
    w.add(
        "com/acme/G",
        &["java/lang/Object"],
        &[
            ("nums", "(Ljava/util/List;)V"),
            ("strs", "(Ljava/util/List;)V"),
            ("raw", "(Ljava/util/List;)V"),
        ],
    )
    .signature(
        "com/acme/G",
        "nums",
        "(Ljava/util/List;)V",
        "(Ljava/util/List<+Ljava/lang/Number;>;)V",
    )
    .signature(
        "com/acme/G",
        "strs",
        "(Ljava/util/List;)V",
        "(Ljava/util/List<Ljava/lang/String;>;)V",
    );
    let on = |pc: &str, name: &'static str| {
        let compiled = compile(pc, &w);
        let class = ClassView {
            name: "com/acme/G",
            access: PUBLIC,
            annotations: &[],
        };
        let m = MemberView {
            name,
            descriptor: "(Ljava/util/List;)V",
            access: STATIC,
            annotations: &[],
            exceptions: &[],
        };
        let shadow = Shadow {
            kind: MethodExecution,
            enclosing_class: class,
            enclosing_member: m,
            subject_class: class,
            subject: m,
            handler_type: None,
            before_super: false,
        };
        compiled.matches(&shadow, &w)
    };
    let table = [
        ("execution(* *(List<? extends Number>))", [Yes, No, No]),
        ("execution(* *(List<String>))", [No, Yes, No]),
        ("execution(* *(List<? super Integer>))", [No, No, No]),
        ("execution(* *(List<*>))", [Yes, Yes, No]),
        ("execution(* *(List))", [Yes, Yes, Yes]),
        ("execution(* *(!List<String>))", [Yes, No, Yes]),
    ];
    for (pc, want) in table {
        let got = [on(pc, "nums"), on(pc, "strs"), on(pc, "raw")];
        assert_eq!(got, want, "{pc}");
    }
    assert_eq!(on("execution(* !com.acme.G+.*(..))", "nums"), No);
    assert_eq!(on("execution(* !java.util.Map+.*(..))", "nums"), Yes);
    // `int[].new` parses and matches no constructor.
    let ctor = case(
        ConstructorCall,
        "java/util/HashMap",
        "<init>",
        "(I)V",
        PUBLIC,
    );
    assert_eq!(run("call(int[].new(..))", &ctor), No);
    assert_eq!(run("call(!java.util.Map+.new(..))", &ctor), No);
    assert_eq!(run("call(!java.util.List+.new(..))", &ctor), Yes);
}

/// Every signature a join point has (conformance case 103): overridden
/// methods with a covariant return, overridden generic methods (erased and
/// parameterized), and inherited generic methods parameterized as seen from
/// the receiver's class.
#[test]
fn overridden_and_parameterized_signatures() {
    let mut w = world();
    w.add("p/Base", &["java/lang/Object"], &[("copy", "()Lp/Base;")])
        .add(
            "p/Sub",
            &["p/Base"],
            &[("copy", "()Lp/Sub;")],
        )
        .add("java/util/function/Function", &[], &[("apply", "(Ljava/lang/Object;)Ljava/lang/Object;")])
        .add(
            "p/Doubler",
            &["java/lang/Object", "java/util/function/Function"],
            &[("apply", "(Ljava/lang/Integer;)Ljava/lang/Integer;")],
        )
        .add("p/Box", &["java/lang/Object"], &[("put", "(Ljava/lang/Object;)V")])
        .add("p/IntBox", &["p/Box"], &[])
        .signature("java/util/function/Function", "apply", "(Ljava/lang/Object;)Ljava/lang/Object;", "(TT;)TR;")
        .signature("p/Box", "put", "(Ljava/lang/Object;)V", "(TT;)V")
        .class_signature("java/util/function/Function", "<T:Ljava/lang/Object;R:Ljava/lang/Object;>Ljava/lang/Object;")
        .class_signature(
            "p/Doubler",
            "Ljava/lang/Object;Ljava/util/function/Function<Ljava/lang/Integer;Ljava/lang/Integer;>;",
        )
        .class_signature("p/Box", "<T:Ljava/lang/Object;>Ljava/lang/Object;")
        .class_signature("p/IntBox", "Lp/Box<Ljava/lang/Integer;>;");
    let on = |pc: &str,
              kind: ShadowKind,
              class: &'static str,
              name: &'static str,
              desc: &'static str| {
        let compiled = compile(pc, &w);
        let view = ClassView {
            name: class,
            access: PUBLIC,
            annotations: &[],
        };
        let m = MemberView {
            name,
            descriptor: desc,
            access: PUBLIC,
            annotations: &[],
            exceptions: &[],
        };
        let shadow = Shadow {
            kind,
            enclosing_class: view,
            enclosing_member: m,
            subject_class: view,
            subject: m,
            handler_type: None,
            before_super: false,
        };
        compiled.matches(&shadow, &w)
    };
    let copy = |pc: &str| on(pc, MethodExecution, "p/Sub", "copy", "()Lp/Sub;");
    assert_eq!(copy("execution(p.Base p.Base+.copy())"), Yes);
    assert_eq!(copy("execution(p.Sub p.Base+.copy())"), Yes);
    assert_eq!(copy("execution(p.Base p.Sub.copy())"), No);
    let apply = |pc: &str| {
        on(
            pc,
            MethodExecution,
            "p/Doubler",
            "apply",
            "(Ljava/lang/Integer;)Ljava/lang/Integer;",
        )
    };
    assert_eq!(
        apply("execution(* java.util.function.Function.apply(..))"),
        Yes
    );
    assert_eq!(
        apply("execution(* java.util.function.Function.apply(Object))"),
        Yes
    );
    assert_eq!(
        apply("execution(Integer java.util.function.Function.apply(Integer))"),
        Yes
    );
    assert_eq!(
        apply("execution(* java.util.function.Function.apply(String))"),
        No
    );
    let put = |pc: &str| on(pc, MethodCall, "p/IntBox", "put", "(Ljava/lang/Object;)V");
    assert_eq!(put("call(* p.Box.put(Integer))"), Yes);
    assert_eq!(put("call(* p.Box.put(Object))"), No);
    assert_eq!(put("call(* p.IntBox.put(Object))"), Yes);
    assert_eq!(put("call(* p.IntBox.put(Integer))"), Yes);
    // On a plain Box the erased signature is the only one.
    let raw = |pc: &str| on(pc, MethodCall, "p/Box", "put", "(Ljava/lang/Object;)V");
    assert_eq!(raw("call(* p.Box.put(Object))"), Yes);
    assert_eq!(raw("call(* p.Box.put(Integer))"), No);
}
