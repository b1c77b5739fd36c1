//! The code full coverage weaves without guards (`weave/bypass.rs`,
//! `weave/straight.rs`): where the bypass decision serves one before advice
//! without parameters, the decision and the advice call are one call of a
//! dispatch method of `java.lang.MajorBypass` (3 bytes, so that HotSpot,
//! whose inlining budgets count bytecode bytes, still inlines small woven
//! methods); a call whose advice all have dispatches is woven as those calls
//! beside it (with `dup` for the object an `after returning` gets), and a
//! method whose shadows are all of that kind makes no decision; where a
//! guard is left (an advice with `thisJoinPointStaticPart`), the decision is
//! one call of `MajorBypass.bypassed()` kept in a local. The bypass class has
//! the dispatches, over C1's inlining budget (35 bytes) on purpose.

use std::path::{Path, PathBuf};
use std::process::Command;

use major_archive::Archive;
use major_classfile::{ClassFile, Code, CodeAttribute, Insn};
use major_weaver::jdk::Jdk;
use major_weaver::weave::bypass::{dispatches_in, BYPASS};

const PROGRAM: &str = r#"package app;

public class Main {
    private int size = 3;

    int size() {
        return size;
    }

    int twice() {
        return 2 * size();
    }

    int thrice() {
        return 3 * size();
    }

    public static void main(String[] args) {
        System.out.println(new Main().twice() + new Main().thrice());
    }
}
"#;

const ASPECT: &str = r#"package tools;

aspect Entry {
    static int executions;
    static int calls;
    static String last;

    before(): execution(* app..*(..)) {
        executions++;
    }

    before(): call(int app.Main.size()) && within(app..*) {
        calls++;
    }

    before(): call(int app.Main.size()) && withincode(int app.Main.thrice()) {
        last = thisJoinPointStaticPart.getSignature().getName();
    }

    // (The aspect lives in java.base: it cannot name the program's classes.)
    after() returning(Object o): call(app.Main.new(..)) && within(app..*) {
        System.out.println("made " + o.getClass().getSimpleName());
    }
}
"#;

/// [`PROGRAM`] compiled and woven with java.base (as a patch) and `aspect`:
/// the temporary directory, the program's classes, the weave's output.
fn weave_program(jdk: &Jdk, aspect: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src/app");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("Main.java"), PROGRAM).unwrap();
    let classes = dir.path().join("classes");
    let o = Command::new(jdk.javac().unwrap())
        .args(["--release", "11", "-nowarn", "-d"])
        .arg(&classes)
        .arg(src.join("Main.java"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let aspect_file = dir.path().join("Aspect.aj");
    std::fs::write(&aspect_file, aspect).unwrap();
    let woven = dir.path().join("woven");
    // java.base and the program, woven together (java.base as a patch).
    let o = Command::new(env!("CARGO_BIN_EXE_major"))
        .args(["weave", "--no-cache", "--jdk"])
        .arg(&jdk.home)
        .args(["--jdk-form", "patch", "--module", "java.base", "-a"])
        .arg(&aspect_file)
        .arg(&classes)
        .arg("-o")
        .arg(&woven)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (dir, classes, woven)
}

/// The woven program run, verified, on the woven java.base.
fn run_verified(jdk: &Jdk, woven: &Path) -> std::process::Output {
    let o = Command::new(jdk.java())
        .arg(format!("@{}", woven.join("java.args").display()))
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(woven.join("classes"))
        .arg("app.Main")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

/// The code of method `name` of `class` in the class directory `dir`.
fn code(dir: &Path, class: &str, name: &str) -> (Code, usize, ClassFile<'static>) {
    let bytes: &'static [u8] = Box::leak(
        std::fs::read(dir.join(format!("{class}.class")))
            .unwrap()
            .into_boxed_slice(),
    );
    let cf = ClassFile::parse(bytes).unwrap();
    let m = cf
        .methods
        .iter()
        .find(|m| cf.member_name(m).unwrap() == name)
        .unwrap_or_else(|| panic!("{class}.{name}"));
    let parsed = CodeAttribute::parse(m.attribute("Code").expect("Code"), &cf.pool).unwrap();
    let len = parsed.code.len();
    let code = Code::decode(&parsed, &cf.pool).unwrap();
    (code, len, cf)
}

/// The first instruction of `code` that is not a label: `invokestatic
/// OWNER.NAME`, as (owner, name).
fn first_call(code: &Code, cf: &ClassFile<'_>) -> (String, String) {
    let first = code
        .insns
        .iter()
        .find(|i| !matches!(i, Insn::Label(_)))
        .unwrap();
    match first {
        Insn::Cp { op: 184, index } => {
            let r = cf.pool.member_ref(*index).unwrap();
            (r.owner.into_owned(), r.name.into_owned())
        }
        other => panic!("first instruction {other:?}"),
    }
}

#[test]
fn advice_with_dispatches_is_called_without_guards() {
    let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
        eprintln!("SKIP: no JDK with javac");
        return;
    };
    let (dir, classes, woven) = weave_program(&jdk, ASPECT);
    let app = woven.join("classes");

    // The bypass class: a dispatch per advice whose parameters are `Object`
    // formals, if any (not the one with `thisJoinPointStaticPart`), each
    // over C1's inlining budget.
    let base = Archive::open(&woven.join("java.base.jar")).unwrap();
    let name = format!("{BYPASS}.class");
    let at = base.entries().iter().position(|e| e.name == name).unwrap();
    let bypass = base.read(at).unwrap();
    let bypass_dir = dir.path().join("bypass");
    std::fs::create_dir_all(bypass_dir.join("java/lang")).unwrap();
    std::fs::write(bypass_dir.join(&name), &bypass).unwrap();
    let dispatches = dispatches_in(&bypass).unwrap();
    assert_eq!(dispatches.len(), 3, "{dispatches:?}");
    assert_eq!(
        dispatches.iter().map(|d| d.arity()).sum::<usize>(),
        1,
        "{dispatches:?}"
    );
    for d in &dispatches {
        assert_eq!(d.aspect, "tools/Entry");
        let (_, dispatch_len, _) = code(&bypass_dir, BYPASS, &d.name);
        assert!(dispatch_len > 35, "the dispatch has {dispatch_len} bytes");
    }
    // The calls of `MajorBypass` in a woven method, in order (name and
    // descriptor).
    let bypass_calls = |code: &Code, cf: &ClassFile<'_>| -> Vec<(String, String)> {
        code.insns
            .iter()
            .filter_map(|i| match i {
                Insn::Cp { op: 184, index } => {
                    let r = cf.pool.member_ref(*index).unwrap();
                    (r.owner == BYPASS).then(|| (r.name.into_owned(), r.descriptor.into_owned()))
                }
                _ => None,
            })
            .collect()
    };
    let is_dispatch = |name: &str| dispatches.iter().any(|d| d.name == name);

    // size(): a getter with its execution advised, and nothing else: the
    // dispatch call, then the getter.
    let (original, original_len, _) = code(&classes, "app/Main", "size");
    let (woven_code, woven_len, cf) = code(&app, "app/Main", "size");
    assert_eq!(woven_len, original_len + 3);
    let (owner, name) = first_call(&woven_code, &cf);
    assert_eq!(owner, BYPASS);
    assert!(is_dispatch(&name), "{name}");
    let rest: Vec<&Insn> = woven_code
        .insns
        .iter()
        .filter(|i| !matches!(i, Insn::Label(_)))
        .skip(1)
        .collect();
    let before: Vec<&Insn> = original
        .insns
        .iter()
        .filter(|i| !matches!(i, Insn::Label(_)))
        .collect();
    assert_eq!(rest.len(), before.len());

    // twice(): its execution and a call of size() advised, each through its
    // dispatch: no decision, no guard, 3 bytes each.
    let (_, original_len, _) = code(&classes, "app/Main", "twice");
    let (woven_code, woven_len, cf) = code(&app, "app/Main", "twice");
    assert_eq!(woven_len, original_len + 6);
    let calls = bypass_calls(&woven_code, &cf);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(
        calls.iter().all(|(n, d)| is_dispatch(n) && d == "()V"),
        "{calls:?}"
    );
    assert!(!woven_code.insns.iter().any(|i| i.is_branch()));

    // thrice(): the call of size() has an advice without a dispatch too: one
    // decision, `bypassed()`, that the guards test.
    let (woven_code, _, cf) = code(&app, "app/Main", "thrice");
    assert_eq!(
        first_call(&woven_code, &cf),
        (BYPASS.to_string(), "bypassed".to_string())
    );
    let calls = bypass_calls(&woven_code, &cf);
    assert!(!calls.iter().any(|(n, _)| is_dispatch(n)), "{calls:?}");

    // main(): after each `new Main()` (whose `<init>` leaves the object on
    // the stack), `dup` and the dispatch that passes it on.
    let (woven_code, _, cf) = code(&app, "app/Main", "main");
    let insns: Vec<&Insn> = woven_code
        .insns
        .iter()
        .filter(|i| !matches!(i, Insn::Label(_)))
        .collect();
    let mut passed = 0;
    for w in insns.windows(3) {
        if let (Insn::Cp { op: 183, index }, Insn::Simple(89), Insn::Cp { op: 184, index: d }) =
            (w[0], w[1], w[2])
        {
            let init = cf.pool.member_ref(*index).unwrap();
            let call = cf.pool.member_ref(*d).unwrap();
            assert_eq!((&*init.owner, &*init.name), ("app/Main", "<init>"));
            assert!(is_dispatch(&call.name), "{}", call.name);
            assert_eq!(call.descriptor, "(Ljava/lang/Object;)V");
            passed += 1;
        }
    }
    assert_eq!(passed, 2, "{insns:?}");

    // And it runs, verified, on the woven java.base, every advice run.
    let o = run_verified(&jdk, &woven);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "made Main\nmade Main\n15\n"
    );
}

/// A call pointcut that matches every call, `MajorBypass.bypassed()`'s too,
/// with an advice that needs a guard (`thisJoinPointStaticPart`): the
/// decision the weaver puts first in a method is no join point of it. (It
/// was: guarded by the local it had not stored yet, it read an undefined
/// local, and a JDK woven so crashed at its start.) Every method still
/// starts with the decision, and java.base and the program run verified.
/// Every call, with a guard (`thisJoinPointStaticPart`).
const CALLS: &str = r#"package tools;

aspect Calls {
    static long calls;
    static String last;

    before(): call(* *(..)) && !within(Calls) {
        calls++;
        last = thisJoinPointStaticPart.getSignature().getName();
    }
}
"#;

#[test]
fn the_bypass_decision_is_no_call_join_point() {
    let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
        eprintln!("SKIP: no JDK with javac");
        return;
    };
    let (_dir, _, woven) = weave_program(&jdk, CALLS);
    let app = woven.join("classes");
    for method in ["twice", "thrice", "main"] {
        let (woven_code, _, cf) = code(&app, "app/Main", method);
        let insns: Vec<&Insn> = woven_code
            .insns
            .iter()
            .filter(|i| !matches!(i, Insn::Label(_)))
            .collect();
        assert_eq!(
            first_call(&woven_code, &cf),
            (BYPASS.to_string(), "bypassed".to_string()),
            "{method}: {insns:?}"
        );
        assert!(
            // istore, or istore_<n>
            matches!(insns[1], Insn::Local { op: 54, .. } | Insn::Simple(59..=62)),
            "{method}: the decision is stored at once: {insns:?}"
        );
    }
    let o = run_verified(&jdk, &woven);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "15\n");
}
