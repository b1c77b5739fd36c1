//! `thisCallingContext`: the calling-context tree the weaver keeps, checked
//! on a program whose tree is known (recursion, exceptions caught several
//! frames up, a thread, calls of `Object`'s methods with and without
//! overrides), woven as an application and with the JDK's `java.base`; and
//! FailureContext's report of where an exception escaping `main` was thrown.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn major() -> Command {
    Command::new(env!("CARGO_BIN_EXE_major"))
}

fn java_home() -> Option<PathBuf> {
    let h = PathBuf::from("/usr/lib/jvm/java-17-openjdk-amd64");
    if h.join("bin/javac").exists() {
        Some(h)
    } else {
        eprintln!("skipped: no JDK 17 at {}", h.display());
        None
    }
}

const PROGRAM: &str = r#"
public class Tree {
    static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
    static int thrower(int d) {
        if (d == 0) throw new IllegalStateException("x");
        return thrower(d - 1);
    }
    static void leaf() {}
    static final class Own { @Override public int hashCode() { return 7; } }
    public static void main(String[] args) throws Exception {
        System.out.println(fib(6));
        for (int i = 0; i < 4; i++) {
            try { thrower(2); } catch (IllegalStateException e) { leaf(); }
        }
        Object plain = new Object();
        Object own = new Own();
        int h = plain.hashCode() + own.hashCode() + own.hashCode();
        Thread t = new Thread(Tree::leaf);
        t.start();
        t.join();
        System.out.println(h != 0);
    }
}
"#;

const FAILING: &str = r#"
public class Fail {
    static int depth(int n, String tag) {
        if (n == 0) return Integer.parseInt(tag);
        return depth(n - 1, tag + n);
    }
    public static void main(String[] args) {
        try { depth(1, "ok"); } catch (NumberFormatException e) { System.out.println("caught"); }
        System.out.println(depth(2, "x"));
    }
}
"#;

/// Runs `Fail` (with `java` options `opts` before the class) and checks
/// FailureContext's report of where its exception was thrown: the frames
/// with their arguments; with the JDK woven, `Integer.parseInt`'s too.
fn check_failure(mut java: Command, jdk_frames: bool, dir: &Path) {
    // CctProfiler is woven too: its profile goes to the test's directory.
    let run = java
        .arg(format!(
            "-Dmajor.cct.out={}",
            dir.join("fail.cct").display()
        ))
        .arg("Fail")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert_eq!(String::from_utf8_lossy(&run.stdout), "caught\n");
    let report: Vec<&str> = err
        .lines()
        .skip_while(|l| !l.starts_with("calling context of java.lang.NumberFormatException"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    let app: Vec<&str> = report
        .iter()
        .copied()
        .filter(|l| l.starts_with("  Fail."))
        .collect();
    assert_eq!(
        app,
        [
            "  Fail.depth(int,java.lang.String) args [0, x21]",
            "  Fail.depth(int,java.lang.String) args [1, x2]",
            "  Fail.depth(int,java.lang.String) args [2, x]",
            "  Fail.main(java.lang.String[]) args [[]]",
        ],
        "{err}"
    );
    let parse = report
        .iter()
        .any(|l| l.starts_with("  java.lang.Integer.parseInt(java.lang.String,int)"));
    assert_eq!(parse, jdk_frames, "{err}");
    if jdk_frames {
        // The exception is made by NumberFormatException.forInputString,
        // which returns it, and thrown by parseInt(String, int).
        assert_eq!(
            report[0], "  java.lang.Integer.parseInt(java.lang.String,int)",
            "{err}"
        );
    }
}

/// The profile the runtime wrote (format 3: each thread's tree; read and
/// merged by `Cct::read`) as a map from context path (frames joined by `;`)
/// to calls.
fn read_profile(path: &Path) -> BTreeMap<String, u64> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // Format 3 as the runtime writes it, or 2 as `major profile` rewrites it.
    assert!(
        text.starts_with("major-cct 3\nmetrics calls\n")
            || text.starts_with("major-cct 2\nmetrics calls\n"),
        "{text:.200}"
    );
    let cct = major_weaver::profile::Cct::read(path).unwrap_or_else(|e| panic!("{e}"));
    let mut out = BTreeMap::new();
    for (i, p) in cct.paths().into_iter().enumerate() {
        assert!(
            out.insert(p.clone(), cct.nodes[i].calls).is_none(),
            "{p} twice"
        );
    }
    out
}

/// The facts both weaves must show.
fn check_tree(p: &BTreeMap<String, u64>) {
    let main = "Tree.main(java.lang.String[])";
    assert_eq!(p.get(main), Some(&1), "main entered once");
    // fib(6): the number of calls at each recursion depth, counted here.
    fn calls_at(n: u32, depth: usize, counts: &mut Vec<u64>) {
        if counts.len() <= depth {
            counts.push(0);
        }
        counts[depth] += 1;
        if n >= 2 {
            calls_at(n - 1, depth + 1, counts);
            calls_at(n - 2, depth + 1, counts);
        }
    }
    let mut expected = Vec::new();
    calls_at(6, 0, &mut expected);
    for (depth, want) in expected.iter().enumerate() {
        let path = std::iter::once(main.to_string())
            .chain(std::iter::repeat_n("Tree.fib(int)".to_string(), depth + 1))
            .collect::<Vec<_>>()
            .join(";");
        assert_eq!(p.get(&path), Some(want), "{path}");
    }
    // Exceptions caught three frames up: the handler's calls are main's children.
    assert_eq!(p.get(&format!("{main};Tree.leaf()")), Some(&4));
    let t3 = format!("{main};Tree.thrower(int);Tree.thrower(int);Tree.thrower(int)");
    assert_eq!(p.get(&t3), Some(&4));
    assert!(!p
        .keys()
        .any(|k| k.starts_with(&format!("{t3};Tree.leaf()"))));
    // Object's methods are entered at their calls; an override is its own frame.
    assert_eq!(
        p.get(&format!("{main};java.lang.Object.hashCode()")),
        Some(&1)
    );
    assert_eq!(p.get(&format!("{main};Tree$Own.hashCode()")), Some(&2));
    assert_eq!(
        p.get(&format!("{main};java.lang.Object.<init>()")),
        Some(&1)
    );
    assert_eq!(
        p.get(&format!(
            "{main};Tree$Own.<init>();java.lang.Object.<init>()"
        )),
        Some(&1)
    );
    // The thread's own tree, merged at the root.
    let lambda_leaf = p
        .iter()
        .filter(|(k, _)| {
            (*k == "Tree.leaf()" || k.ends_with(";Tree.leaf()")) && !k.starts_with(main)
        })
        .map(|(_, c)| c)
        .sum::<u64>();
    assert_eq!(lambda_leaf, 1, "the thread's leaf() outside main's tree");
}

fn compile(home: &Path, dir: &Path) -> PathBuf {
    let src = dir.join("src");
    fs::create_dir_all(&src).unwrap();
    fs::write(src.join("Tree.java"), PROGRAM).unwrap();
    fs::write(src.join("Fail.java"), FAILING).unwrap();
    let classes = dir.join("classes");
    let ok = Command::new(home.join("bin/javac"))
        .args(["-d"])
        .arg(&classes)
        .arg(src.join("Tree.java"))
        .arg(src.join("Fail.java"))
        .status()
        .unwrap()
        .success();
    assert!(ok, "javac");
    classes
}

#[test]
fn application_weave_keeps_the_calling_context_tree() {
    let Some(home) = java_home() else { return };
    let dir = tempfile::tempdir().unwrap();
    let classes = compile(&home, dir.path());
    let woven = dir.path().join("woven");
    let out = major()
        .args(["weave", "--aspect"])
        .arg(repo().join("aspects/CctProfiler.aj"))
        .arg("--aspect")
        .arg(repo().join("aspects/FailureContext.aj"))
        .arg(&classes)
        .arg("-o")
        .arg(&woven)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let profile = dir.path().join("app.cct");
    let run = Command::new(home.join("bin/java"))
        .arg("-Xverify:all")
        .arg(format!("-Dmajor.cct.out={}", profile.display()))
        .arg("-cp")
        .arg(&woven)
        .arg("Tree")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&run.stdout), "8\ntrue\n");
    let p = read_profile(&profile);
    check_tree(&p);
    // Only woven code and calls without woven bodies: no JDK frames here.
    assert!(!p.keys().any(|k| k.contains("java.io.PrintStream")));
    let mut java = Command::new(home.join("bin/java"));
    java.arg("-Xverify:all").arg("-cp").arg(&woven);
    check_failure(java, false, dir.path());
}

#[test]
fn woven_java_base_keeps_the_complete_calling_context_tree() {
    let Some(home) = java_home() else { return };
    let dir = tempfile::tempdir().unwrap();
    let classes = compile(&home, dir.path());
    let woven = dir.path().join("jdk");
    let out = major()
        .args(["weave", "--jdk"])
        .arg(&home)
        .args(["--jdk-form", "patch", "--module", "java.base", "--aspect"])
        .arg(repo().join("aspects/CctProfiler.aj"))
        .arg("--aspect")
        .arg(repo().join("aspects/FailureContext.aj"))
        .arg(&classes)
        .arg("-o")
        .arg(&woven)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let profile = dir.path().join("full.cct");
    let run = major()
        .arg("run")
        .arg(&woven)
        .arg("--")
        .arg("-Xverify:all")
        .arg(format!("-Dmajor.cct.out={}", profile.display()))
        .arg("-cp")
        .arg(woven.join("classes"))
        .arg("Tree")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&run.stdout), "8\ntrue\n");
    let p = read_profile(&profile);
    check_tree(&p);
    let main = "Tree.main(java.lang.String[])";
    // The JDK's frames, complete: the exception's constructors down to
    // Object's and the native fillInStackTrace(int).
    let t3 = format!("{main};Tree.thrower(int);Tree.thrower(int);Tree.thrower(int)");
    let ctor = format!(
        "{t3};java.lang.IllegalStateException.<init>(java.lang.String);\
         java.lang.RuntimeException.<init>(java.lang.String);\
         java.lang.Exception.<init>(java.lang.String);\
         java.lang.Throwable.<init>(java.lang.String)"
    );
    assert_eq!(p.get(&ctor), Some(&4), "{ctor}");
    assert_eq!(
        p.get(&format!("{ctor};java.lang.Object.<init>()")),
        Some(&4)
    );
    assert_eq!(
        p.get(&format!(
            "{ctor};java.lang.Throwable.fillInStackTrace();java.lang.Throwable.fillInStackTrace(int)"
        )),
        Some(&4)
    );
    assert_eq!(
        p.get(&format!("{main};java.io.PrintStream.println(int)")),
        Some(&1)
    );
    assert_eq!(p.get(&format!("{main};java.lang.Thread.start()")), Some(&1));
    // The thread runs Thread.run() first.
    assert!(p
        .keys()
        .any(|k| k.starts_with("java.lang.Thread.run()") && k.ends_with("Tree.leaf()")));
    let mut java = major();
    java.arg("run")
        .arg(&woven)
        .arg("--")
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(woven.join("classes"));
    check_failure(java, true, dir.path());

    // `major profile` on the woven JDK: the outputs, and the tree in them.
    let out_dir = dir.path().join("profile");
    let run = major()
        .args(["profile", "--woven"])
        .arg(&woven)
        .arg("-o")
        .arg(&out_dir)
        .arg("--")
        .arg("-cp")
        .arg(woven.join("classes"))
        .arg("Tree")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(err.contains("hottest application contexts"), "{err}");
    check_profile_outputs(&out_dir);
}

/// The outputs of `major profile` in `dir`: every file, `calls.folded`
/// holding the tree [`check_tree`] knows (as folded stacks).
fn check_profile_outputs(dir: &Path) {
    for f in [
        "profile.cct",
        "calls.folded",
        "flamegraph.svg",
        "speedscope.json",
        "summary.txt",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing in {}", dir.display());
    }
    let folded = fs::read_to_string(dir.join("calls.folded")).unwrap();
    let tree: BTreeMap<String, u64> = folded
        .lines()
        .map(|l| {
            let (p, c) = l.rsplit_once(' ').expect("path COUNT");
            (p.to_string(), c.parse().unwrap())
        })
        .collect();
    assert_eq!(tree, read_profile(&dir.join("profile.cct")));
    check_tree(&tree);
    let svg = fs::read_to_string(dir.join("flamegraph.svg")).unwrap();
    assert!(svg.contains("Tree.fib(int)"));
}

#[test]
fn major_profile_runs_a_program_woven_as_it_loads() {
    let Some(home) = java_home() else { return };
    let dir = tempfile::tempdir().unwrap();
    let classes = compile(&home, dir.path());
    let out_dir = dir.path().join("profile");
    let run = major()
        .args(["profile", "--java-home"])
        .arg(&home)
        .arg("-o")
        .arg(&out_dir)
        .arg("--")
        .arg("-cp")
        .arg(&classes)
        .arg("Tree")
        .env("MAJOR_CACHE_DIR", dir.path().join("cache"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert_eq!(String::from_utf8_lossy(&run.stdout), "8\ntrue\n");
    check_profile_outputs(&out_dir);
    // Every class woven as it loads: the JDK's frames are there too.
    let folded = fs::read_to_string(out_dir.join("calls.folded")).unwrap();
    assert!(folded.contains("Tree.main(java.lang.String[]);java.io.PrintStream.println(int) 1\n"));
    // With wall time: a wall.folded beside, main's context in it.
    let timed = dir.path().join("timed");
    let run = major()
        .args(["profile", "--times", "--java-home"])
        .arg(&home)
        .arg("-o")
        .arg(&timed)
        .arg("--")
        .arg("-cp")
        .arg(&classes)
        .arg("Tree")
        .env("MAJOR_CACHE_DIR", dir.path().join("cache"))
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let wall = read_folded(&timed.join("wall.folded"));
    // Lines hold self time and those without any are left out: main's own
    // line may be missing (its callees' times can add up to all of its
    // own), its subtree's may not.
    assert!(
        wall.keys()
            .any(|k| k.starts_with("Tree.main(java.lang.String[])")),
        "{wall:?}"
    );
    assert!(!timed.join("cpu.folded").exists(), "no CPU time measured");
    // A program that fails: its exit code, and still a profile.
    let run = major()
        .args(["profile", "--java-home"])
        .arg(&home)
        .arg("-o")
        .arg(dir.path().join("failing"))
        .arg("--")
        .arg("-cp")
        .arg(&classes)
        .arg("Fail")
        .env("MAJOR_CACHE_DIR", dir.path().join("cache"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert!(dir.path().join("failing/calls.folded").is_file());
}

const CPU_AND_WALL: &str = r#"
public class CpuWall {
    static long sink;
    // Spins until the thread has used 300 ms of CPU time, however loaded
    // the machine is.
    static void spin() {
        java.lang.management.ThreadMXBean t =
            java.lang.management.ManagementFactory.getThreadMXBean();
        long end = t.getCurrentThreadCpuTime() + 300_000_000L;
        long x = 0;
        while (t.getCurrentThreadCpuTime() < end) {
            for (int i = 0; i < 10_000; i++) { x += x * 31 + 7; }
        }
        sink = x;
    }
    static void nap() throws InterruptedException { Thread.sleep(400); }
    public static void main(String[] args) throws Exception {
        spin();
        nap();
        System.out.println(sink != 42);
    }
}
"#;

/// `major profile --cpu`: wall and CPU time per context. A method that
/// spins for 300 ms of its thread's CPU time has at least that, and at most
/// its wall time; one that sleeps almost none;
/// `cpu.folded` and `wall.folded` are written, and the summary lists CPU
/// time.
#[test]
fn major_profile_cpu_measures_cpu_time_per_context() {
    let Some(home) = java_home() else { return };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    fs::create_dir_all(&src).unwrap();
    fs::write(src.join("CpuWall.java"), CPU_AND_WALL).unwrap();
    let classes = dir.path().join("classes");
    assert!(Command::new(home.join("bin/javac"))
        .arg("-d")
        .arg(&classes)
        .arg(src.join("CpuWall.java"))
        .status()
        .unwrap()
        .success());
    let out = dir.path().join("cpu");
    let run = major()
        .args(["profile", "--cpu", "--java-home"])
        .arg(&home)
        .arg("-o")
        .arg(&out)
        .arg("--")
        .arg("-cp")
        .arg(&classes)
        .arg("CpuWall")
        .env("MAJOR_CACHE_DIR", dir.path().join("cache"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert_eq!(String::from_utf8_lossy(&run.stdout), "true\n");
    for f in ["calls.folded", "wall.folded", "cpu.folded", "profile.cct"] {
        assert!(out.join(f).is_file(), "{f} missing: {err}");
    }
    let cct = major_weaver::profile::Cct::read(&out.join("profile.cct")).unwrap();
    assert!(cct.has_wall && cct.has_cpu);
    let paths = cct.paths();
    let node = |p: &str| {
        paths
            .iter()
            .position(|q| q == p)
            .unwrap_or_else(|| panic!("no context {p}"))
    };
    let main = "CpuWall.main(java.lang.String[])";
    let spin = &cct.nodes[node(&format!("{main};CpuWall.spin()"))];
    let nap = &cct.nodes[node(&format!("{main};CpuWall.nap()"))];
    let ms = |ns: u64| ns / 1_000_000;
    assert!(ms(spin.wall) >= 300, "spin wall {} ms", ms(spin.wall));
    // Spinning: the 300 ms of CPU time it waited for (the profiler's clock
    // started a little before spin's), and never more than the wall time.
    assert!(
        ms(spin.cpu) >= 295 && spin.cpu <= spin.wall + 5_000_000,
        "spin: cpu {} ms, wall {} ms",
        ms(spin.cpu),
        ms(spin.wall)
    );
    assert!(ms(nap.wall) >= 400, "nap wall {} ms", ms(nap.wall));
    assert!(
        ms(nap.cpu) < 50,
        "nap: cpu {} ms while sleeping",
        ms(nap.cpu)
    );
    // main's CPU time holds spin's.
    let m = &cct.nodes[node(main)];
    assert!(m.cpu >= spin.cpu && m.wall >= spin.wall + nap.wall);
    let summary = fs::read_to_string(out.join("summary.txt")).unwrap();
    assert!(summary.to_lowercase().contains("cpu"), "{summary}");
}

/// A folded-stacks file (`path COUNT` lines) as a map.
fn read_folded(path: &Path) -> BTreeMap<String, u64> {
    fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| {
            let (p, c) = l.rsplit_once(' ').expect("path COUNT");
            (p.to_string(), c.parse().expect("count"))
        })
        .collect()
}

/// The tree seen through the program's own frames: each context's count goes
/// to the path of its application frames (`Cct*` classes, not their hidden
/// lambda classes); contexts whose innermost frame is not the program's are
/// left out.
fn project(tree: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    let app = |f: &str| f.starts_with("Cct") && !f.contains("$$Lambda");
    let mut out = BTreeMap::new();
    for (path, count) in tree {
        let frames: Vec<&str> = path.split(';').collect();
        if !app(frames[frames.len() - 1]) {
            continue;
        }
        let key = frames
            .iter()
            .copied()
            .filter(|f| app(f))
            .collect::<Vec<_>>()
            .join(";");
        *out.entry(key).or_insert(0) += count;
    }
    out
}

/// The CCT test programs (`tests/java/cct/`) profiled single-phase and under
/// the independent JVMTI oracle (`tests/jvmti/cct_oracle.c`): through the
/// programs' own frames — recursion, exceptions through native frames,
/// reflection, lambdas, threads, static initializers — the trees are equal,
/// node for node and count for count. The JDK's own contexts differ in
/// known ways (ARCHITECTURE.md, "Calling context"), printed here.
#[test]
fn profiles_of_the_cct_programs_agree_with_the_jvmti_oracle() {
    let Some(home) = java_home() else { return };
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("libcct_oracle.so");
    let include = home.join("include");
    let cc = Command::new("cc")
        .args(["-shared", "-fPIC", "-O2"])
        .arg(format!("-I{}", include.display()))
        .arg(format!("-I{}", include.join("linux").display()))
        .arg("-o")
        .arg(&lib)
        .arg(repo().join("tests/jvmti/cct_oracle.c"))
        .output()
        .expect("cc");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let classes = dir.path().join("classes");
    let mut javac = Command::new(home.join("bin/javac"));
    javac.args(["--release", "11", "-d"]).arg(&classes);
    for e in fs::read_dir(repo().join("tests/java/cct")).unwrap() {
        javac.arg(e.unwrap().path());
    }
    assert!(javac.status().unwrap().success(), "javac");
    for program in [
        "CctRecursion",
        "CctExceptions",
        "CctReflection",
        "CctLambdas",
        "CctThreads",
        "CctStatics",
        "CctLeaves",
    ] {
        let oracle_out = dir.path().join(format!("{program}.oracle"));
        let o = Command::new(home.join("bin/java"))
            .arg(format!(
                "-agentpath:{}=out={}",
                lib.display(),
                oracle_out.display()
            ))
            .arg("-cp")
            .arg(&classes)
            .arg(program)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{program} under the oracle: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let prof = dir.path().join(format!("{program}.profile"));
        let m = major()
            .args(["profile", "--java-home"])
            .arg(&home)
            .arg("-o")
            .arg(&prof)
            .arg("--")
            .arg("-cp")
            .arg(&classes)
            .arg(program)
            .env("MAJOR_CACHE_DIR", dir.path().join("cache"))
            .output()
            .unwrap();
        assert!(
            m.status.success(),
            "{program} profiled: {}",
            String::from_utf8_lossy(&m.stderr)
        );
        assert_eq!(o.stdout, m.stdout, "{program}: the same output");
        let oracle = read_folded(&oracle_out);
        let ours = read_folded(&prof.join("calls.folded"));
        let (po, pm) = (project(&oracle), project(&ours));
        assert!(!po.is_empty(), "{program}: the oracle saw the program");
        assert_eq!(po, pm, "{program}: the program's contexts");
        let only_oracle = oracle.keys().filter(|k| !ours.contains_key(*k)).count();
        let only_ours = ours.keys().filter(|k| !oracle.contains_key(*k)).count();
        let counts = oracle
            .iter()
            .filter(|(k, v)| ours.get(*k).is_some_and(|w| w != *v))
            .count();
        eprintln!(
            "{program}: {} program contexts equal; whole tree: oracle {} nodes, major {} \
             ({only_oracle} only the oracle's, {only_ours} only major's, {counts} counts differ)",
            po.len(),
            oracle.len(),
            ours.len()
        );
    }
}

const ENDINGS: &str = r#"
import java.util.ArrayList;
import java.util.List;

public class Endings {
    static void work(int i) { if (i % 2 == 0) Integer.toString(i); }
    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "exit":
                work(1);
                System.exit(3);
            case "threads": {
                List<Thread> ts = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    final int n = i;
                    Thread t = new Thread(() -> work(n));
                    ts.add(t);
                    t.start();
                }
                for (Thread t : ts) t.join();
                return;
            }
            case "oom": {
                List<long[]> hog = new ArrayList<>();
                while (true) hog.add(new long[1 << 20]);
            }
            case "halt":
                work(2);
                Runtime.getRuntime().halt(5);
        }
    }
}
"#;

/// `major profile` on programs that end badly: `System.exit` (its code, and
/// a profile), hundreds of threads (each thread's tree merged), running out
/// of memory (a profile after the `OutOfMemoryError`), and `Runtime.halt`
/// (no shutdown hook runs: no profile, and a message saying why).
#[test]
fn major_profile_survives_programs_that_end_badly() {
    let Some(home) = java_home() else { return };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("Endings.java");
    fs::write(&src, ENDINGS).unwrap();
    let classes = dir.path().join("classes");
    let ok = Command::new(home.join("bin/javac"))
        .arg("-d")
        .arg(&classes)
        .arg(&src)
        .status()
        .unwrap()
        .success();
    assert!(ok, "javac");
    let profile = |case: &str, jvm: &[&str]| {
        let out = dir.path().join(case);
        let o = major()
            .args(["profile", "--java-home"])
            .arg(&home)
            .arg("-o")
            .arg(&out)
            .arg("--")
            .args(jvm)
            .arg("-cp")
            .arg(&classes)
            .args(["Endings", case])
            .env("MAJOR_CACHE_DIR", dir.path().join("cache"))
            .output()
            .unwrap();
        (o, out)
    };
    let (o, out) = profile("exit", &[]);
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let tree = read_folded(&out.join("calls.folded"));
    assert_eq!(
        tree.get("Endings.main(java.lang.String[]);Endings.work(int)"),
        Some(&1)
    );

    let (o, out) = profile("threads", &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let tree = read_folded(&out.join("calls.folded"));
    let work: u64 = tree
        .iter()
        .filter(|(k, _)| k.ends_with("Endings.work(int)") && !k.starts_with("Endings.main"))
        .map(|(_, v)| v)
        .sum();
    assert_eq!(work, 300, "every thread's work() in the merged tree");

    let (o, out) = profile("oom", &["-Xmx64m"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("OutOfMemoryError"), "{err}");
    assert!(
        out.join("calls.folded").is_file(),
        "a profile after running out of memory: {err}"
    );

    let (o, out) = profile("halt", &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(5), "{err}");
    assert!(err.contains("the program wrote no profile"), "{err}");
    assert!(!out.join("calls.folded").exists());
}

/// Drives `major.runtime.CallingContext` directly (its `ThreadLocal` form,
/// as an application weave calls it): child tables that grow many times
/// while their node is current, counts, a handler's restore, null nodes (a
/// bypass was on) doing nothing, a native call's entry and return, a
/// dispatched call entered only without an override, where an exception was
/// thrown, two frames with one hash kept apart, and the raw profile's counts;
/// then its time columns, with numbers of every length and sign.
const DRIVER: &str = r#"
import major.runtime.CallingContext;

public class TreeDriver {
    static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }
    static int h(int i) { return 0x9E3779B9 * (i + 1); }
    /** A frame as woven code passes it: an interned string and its hash. */
    static CallingContext enter(String frame, int hash) {
        return CallingContext.enterContext(frame.intern(), hash);
    }
    static CallingContext now() { return CallingContext.currentContext(); }

    public static void main(String[] args) throws Exception {
        CallingContext top = enter("P.top()", h(100000));
        check(top == now() && top.frame.equals("P.top()") && top.calls == 1, "top");
        // Child i entered i % 7 + 1 times, each with three children of its
        // own: the top's table grows from one pair to 1024 meanwhile.
        for (int round = 0; round < 7; round++) {
            for (int i = 0; i < 300; i++) {
                if (round > i % 7) continue;
                CallingContext c = enter("P.c" + i + "()", h(i));
                check(c == now() && c.parent == top && c.frame.equals("P.c" + i + "()"), "entered " + i);
                for (int g = 0; g < 3; g++) {
                    CallingContext.exitContext(enter("P.g" + g + "()", h(1000 + g)));
                }
                CallingContext.exitContext(c);
                check(now() == top, "returned from " + i);
            }
        }
        for (int i = 0; i < 300; i++) {
            CallingContext c = enter("P.c" + i + "()", h(i));
            check(c.calls == i % 7 + 2, "calls of " + i + ": " + c.calls);
            CallingContext g = enter("P.g1()", h(1001));
            check(g.calls == i % 7 + 2 && g.parent == c, "grandchild of " + i);
            // An exception handler of c's frame: c again, whatever was entered.
            CallingContext.restoreContext(c);
            check(now() == c, "restored " + i);
            CallingContext.exitContext(c);
        }
        // Null nodes (a bypass was on at the entry): nothing.
        CallingContext.exitContext(null);
        CallingContext.restoreContext(null);
        CallingContext.exitThrown(new Error(), null);
        CallingContext.enterNative(null, "java.lang.System.nanoTime()", h(2000));
        CallingContext.enterDispatched(new Object(), null, "java.lang.Object.hashCode()", h(2001));
        check(now() == top, "null nodes change nothing");
        // A call of a method without a woven body, and its return.
        CallingContext.enterNative(top, "java.lang.System.nanoTime()", h(2000));
        check(now().frame.equals("java.lang.System.nanoTime()") && now().parent == top, "native entered");
        CallingContext.restoreContext(top);
        check(now() == top, "native returned");
        // Object.hashCode() on a String runs String's override (a woven body
        // of its own): not entered; on an Object, entered.
        CallingContext.enterDispatched("x", top, "java.lang.Object.hashCode()", h(2001));
        check(now() == top, "an override is not Object.hashCode()");
        CallingContext.enterDispatched(new Object(), top, "java.lang.Object.hashCode()", h(2001));
        check(now().frame.equals("java.lang.Object.hashCode()"), "Object.hashCode() entered");
        CallingContext.restoreContext(top);
        // An exception unwinding a frame: noted where.
        CallingContext c5 = enter("P.c5()", h(5));
        Throwable t = new RuntimeException("t");
        check(CallingContext.exitThrown(t, c5) == t, "exitThrown returns its exception");
        check(CallingContext.thrownIn(t, top) == c5 && now() == top, "thrown in c5");
        // Two frames with one hash: two nodes.
        CallingContext a = enter("Q.a()", 42);
        CallingContext.exitContext(a);
        CallingContext b = enter("Q.b()", 42);
        CallingContext.exitContext(b);
        check(a != b && a.frame.equals("Q.a()") && b.frame.equals("Q.b()") && a.calls == 1 && b.calls == 1, "one hash, two frames");
        CallingContext.exitContext(top);
        CallingContext.writeProfile(args[0], false);
        // The time columns: numbers of every length and sign, each child's
        // wall time one of them and its CPU time the bits' complement.
        long[] times = {0, 9, 10, 99, 100, 12345, 999999999L, 1000000000L, 2147483647L,
            2147483648L, 9999999999L, 10000000000L, 1234567890123456789L, Long.MAX_VALUE,
            -1, -10, -2147483648L, Long.MIN_VALUE};
        for (int i = 0; i < 300; i++) {
            CallingContext c = enter("P.c" + i + "()", h(i));
            c.wall = times[i % times.length];
            c.cpu = ~c.wall;
            CallingContext.exitContext(c);
        }
        CallingContext.writeProfile(args[1], true, true);
        System.out.println("ok");
    }
}
"#;

#[test]
fn the_runtime_tree_grows_counts_and_restores() {
    let Some(home) = java_home() else { return };
    let dir = tempfile::tempdir().unwrap();
    let classes = compile(&home, dir.path());
    // An application weave puts the runtime beside the program.
    let woven = dir.path().join("woven");
    let out = major()
        .args(["weave", "--aspect"])
        .arg(repo().join("aspects/CctProfiler.aj"))
        .arg(&classes)
        .arg("-o")
        .arg(&woven)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let src = dir.path().join("driver");
    fs::create_dir_all(&src).unwrap();
    fs::write(src.join("TreeDriver.java"), DRIVER).unwrap();
    let ok = Command::new(home.join("bin/javac"))
        .arg("-cp")
        .arg(&woven)
        .arg("-d")
        .arg(&src)
        .arg(src.join("TreeDriver.java"))
        .status()
        .unwrap()
        .success();
    assert!(ok, "javac");
    let profile = dir.path().join("driver.cct");
    let timed = dir.path().join("timed.cct");
    let run = Command::new(home.join("bin/java"))
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(format!("{}:{}", woven.display(), src.display()))
        .arg("TreeDriver")
        .arg(&profile)
        .arg(&timed)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert_eq!(String::from_utf8_lossy(&run.stdout), "ok\n");
    check_time_columns(&timed);
    let p = read_profile(&profile);
    let top = "P.top()";
    assert_eq!(p[top], 1);
    for i in 0..300u64 {
        let c = format!("{top};P.c{i}()");
        assert_eq!(p[&c], i % 7 + 2 + u64::from(i == 5), "{c}");
        assert_eq!(p[&format!("{c};P.g0()")], i % 7 + 1, "{c}");
        assert_eq!(p[&format!("{c};P.g1()")], i % 7 + 2, "{c}");
        assert_eq!(p[&format!("{c};P.g2()")], i % 7 + 1, "{c}");
    }
    for leaf in [
        "java.lang.System.nanoTime()",
        "java.lang.Object.hashCode()",
        "Q.a()",
        "Q.b()",
    ] {
        assert_eq!(p[&format!("{top};{leaf}")], 1, "{leaf}");
    }
    assert_eq!(
        p.len(),
        1 + 300 * 4 + 4,
        "{:?}",
        p.keys().take(5).collect::<Vec<_>>()
    );
}

/// The driver's timed profile as written: every wall time it set, each
/// child's CPU time its complement, each number as Java prints it.
fn check_time_columns(path: &Path) {
    let text = fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("major-cct 3"));
    assert_eq!(lines.next(), Some("metrics calls wall_ns cpu_ns"));
    let mut walls = std::collections::BTreeSet::new();
    for line in lines.skip_while(|l| !l.starts_with("nodes ")).skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 5, "{line:?}");
        let wall: i64 = fields[3]
            .parse()
            .unwrap_or_else(|e| panic!("{line:?}: {e}"));
        let cpu: i64 = fields[4]
            .parse()
            .unwrap_or_else(|e| panic!("{line:?}: {e}"));
        assert_eq!(fields[3], wall.to_string(), "{line:?}");
        assert_eq!(fields[4], cpu.to_string(), "{line:?}");
        if wall != 0 || cpu != 0 {
            assert_eq!(cpu, !wall, "{line:?}");
            walls.insert(wall);
        }
    }
    let want = [
        0,
        9,
        10,
        99,
        100,
        12345,
        999_999_999,
        1_000_000_000,
        2_147_483_647,
        2_147_483_648,
        9_999_999_999,
        10_000_000_000,
        1_234_567_890_123_456_789,
        i64::MAX,
        -1,
        -10,
        -2_147_483_648,
        i64::MIN,
    ];
    assert_eq!(walls, want.into_iter().collect(), "the wall times written");
}
