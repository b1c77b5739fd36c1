//! The JVMTI calling-context oracle (`tests/jvmti/cct_oracle.c`) on the CCT
//! test programs (`tests/java/cct/`), under JDK 17 and JDK 25: its trees are
//! checked against facts computed here, independently of it (recursion
//! formulas, numbers of threads and calls the programs make, which frame
//! calls which after an exception), and its own depth check (every event
//! compares the recorded stack with the thread's real frame count) must find
//! no mismatch: entries and exits balance, exceptions included.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use major_tests::cct_compare::oracle::{self, Run};
use major_tests::cct_compare::{compare_files, leaf, parent, Difference, Folded};
use major_tests::{jdk17, jdk25, skip};

/// A scratch directory for this test binary, emptied when a run first uses
/// it: under Cargo's temporary directory for tests (`target/tmp`), so that
/// what one run leaves (its tests share it, so none can remove it) is
/// replaced by the next, never piled up in the system's temporary directory.
fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cct-oracle");
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    })
}

/// The compiled test programs (javac of JDK 17, `--release 11`).
fn classes() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let home = jdk17()?;
        let d = scratch().join("classes");
        std::fs::create_dir_all(&d).unwrap();
        oracle::compile_programs(&home, &d);
        Some(d)
    })
    .as_deref()
}

/// The JDKs to run on, each with the oracle built against its headers.
fn jdks() -> &'static [(String, PathBuf, PathBuf)] {
    static JDKS: OnceLock<Vec<(String, PathBuf, PathBuf)>> = OnceLock::new();
    JDKS.get_or_init(|| {
        let mut v = Vec::new();
        for (name, home) in [("jdk17", jdk17()), ("jdk25", jdk25())] {
            let Some(home) = home else {
                eprintln!("SKIP on {name}: not installed");
                continue;
            };
            let dir = scratch().join(name);
            std::fs::create_dir_all(&dir).unwrap();
            match oracle::build(&home, &dir) {
                Ok(lib) => v.push((name.to_string(), home.join("bin/java"), lib)),
                Err(why) => eprintln!("SKIP on {name}: {why}"),
            }
        }
        v
    })
}

/// Runs `program` under the oracle (with its depth check) on every JDK and
/// checks what holds of every tree; `None` (after saying why) without a JDK.
fn runs(program: &str, options: &str) -> Option<Vec<(String, Run)>> {
    let Some(classes) = classes() else {
        skip("no JDK 17 to compile the CCT programs");
        return None;
    };
    if jdks().is_empty() {
        skip("no JDK with JVMTI headers and a C compiler");
        return None;
    }
    let mut out = Vec::new();
    for (name, java, lib) in jdks() {
        let tag = if options.is_empty() { "" } else { "-start" };
        let file = scratch().join(format!("{program}-{name}{tag}.folded"));
        let opts = if options.is_empty() {
            "check=1".to_string()
        } else {
            format!("check=1,{options}")
        };
        let run = oracle::run(java, lib, &opts, classes, program, &file);
        well_formed(program, name, &run);
        out.push((name.clone(), run));
    }
    Some(out)
}

/// What every oracle tree satisfies: sorted bytewise, every node's caller
/// listed, every count at least 1, frame names of the agreed form, and the
/// depth check clean.
fn well_formed(program: &str, jdk: &str, run: &Run) {
    let what = format!("{program} on {jdk}");
    assert_eq!(
        run.stats.depth_mismatches,
        Some(0),
        "{what}: the oracle's stack went out of step with the thread's:\n{}",
        run.stderr
    );
    assert!(run.text.ends_with('\n'), "{what}: not newline-terminated");
    let lines: Vec<&str> = run.text.lines().collect();
    assert!(
        lines.windows(2).all(|w| w[0].as_bytes() < w[1].as_bytes()),
        "{what}: lines not sorted bytewise"
    );
    assert_eq!(
        run.stats.nodes as usize,
        run.tree.len(),
        "{what}: node count"
    );
    for (path, &count) in &run.tree {
        assert!(count >= 1, "{what}: {path} has count 0");
        if let Some(p) = parent(path) {
            assert!(
                run.tree.contains_key(p),
                "{what}: {path} without its caller"
            );
        }
        for frame in path.split(';') {
            assert!(
                frame.ends_with(')') && frame.contains('(') && !frame.contains(' '),
                "{what}: frame {frame:?}"
            );
            assert!(!frame.contains('/'), "{what}: unnormalised frame {frame:?}");
            let class = frame.split('(').next().unwrap();
            assert!(
                !class.contains("$$Lambda$"),
                "{what}: lambda class number kept in {frame:?}"
            );
        }
    }
}

/// Sum of the counts of the nodes whose innermost frame is `frame`.
fn calls_of(tree: &Folded, frame: &str) -> u64 {
    tree.iter()
        .filter(|(p, _)| leaf(p) == frame)
        .map(|(_, &c)| c)
        .sum()
}

/// The nodes whose innermost frame is `frame`.
fn nodes_of<'a>(tree: &'a Folded, frame: &str) -> Vec<(&'a str, u64)> {
    tree.iter()
        .filter(|(p, _)| leaf(p) == frame)
        .map(|(p, &c)| (p.as_str(), c))
        .collect()
}

fn count(tree: &Folded, path: &str) -> u64 {
    tree.get(path).copied().unwrap_or(0)
}

/// fib(n)'s invocations at recursion depth k (fib(n) itself at depth 1).
fn fib_calls_at_depth(n: u32, k: u32) -> u64 {
    match (n, k) {
        (_, 1) => 1,
        (0 | 1, _) => 0,
        _ => fib_calls_at_depth(n - 1, k - 1) + fib_calls_at_depth(n - 2, k - 1),
    }
}

/// `prefix;frame;frame;...` with `frame` repeated `k` times.
fn repeated(prefix: &str, frame: &str, k: u32) -> String {
    let mut s = prefix.to_string();
    for _ in 0..k {
        s.push(';');
        s.push_str(frame);
    }
    s
}

const FIB: &str = "CctRecursion.fib(int)";

/// The fib(10) chain under main, and the even/odd chain.
fn check_recursion(what: &str, tree: &Folded) {
    let main = "CctRecursion.main(java.lang.String[])";
    assert_eq!(count(tree, main), 1, "{what}");
    assert_eq!(fib_calls_at_depth(10, 1), 1);
    // Sanity of the formula itself: fib(n) makes 2 fib(n+1) - 1 calls.
    let all: u64 = (1..=10).map(|k| fib_calls_at_depth(10, k)).sum();
    assert_eq!(all, 2 * 89 - 1);
    for k in 1..=10 {
        assert_eq!(
            count(tree, &repeated(main, FIB, k)),
            fib_calls_at_depth(10, k),
            "{what}: fib at depth {k}"
        );
    }
    assert!(
        !tree.contains_key(&repeated(main, FIB, 11)),
        "{what}: too deep"
    );
    // Every fib node is on that chain, and fib calls nothing else of the program.
    assert_eq!(calls_of(tree, FIB), all, "{what}: fib calls in all");
    // even(7) -> odd(6) -> ... -> odd(0): 8 frames, each entered once.
    let mut path = main.to_string();
    for i in (0..=7).rev() {
        let f = if i % 2 == 1 { "even" } else { "odd" };
        path.push_str(&format!(";CctRecursion.{f}(int)"));
        assert_eq!(count(tree, &path), 1, "{what}: {path}");
    }
    assert_eq!(calls_of(tree, "CctRecursion.even(int)"), 4, "{what}");
    assert_eq!(calls_of(tree, "CctRecursion.odd(int)"), 4, "{what}");
}

#[test]
fn recursion_counts_follow_the_recursion_formula() {
    let Some(runs) = runs("CctRecursion", "") else {
        return;
    };
    for (jdk, run) in &runs {
        check_recursion(&format!("CctRecursion on {jdk}"), &run.tree);
        assert_eq!(run.stats.exits_by_exception, 0, "{jdk}: no exceptions here");
    }
}

#[test]
fn start_records_only_inside_the_start_frame() {
    let Some(runs) = runs("CctRecursion", "start=CctRecursion.main(") else {
        return;
    };
    for (jdk, run) in &runs {
        let what = format!("CctRecursion start=main on {jdk}");
        assert!(
            run.tree
                .keys()
                .all(|p| p.starts_with("CctRecursion.main(java.lang.String[])")),
            "{what}: a path outside main"
        );
        check_recursion(&what, &run.tree);
    }
}

#[test]
fn exceptions_through_java_and_native_frames_keep_the_stacks_right() {
    let Some(runs) = runs("CctExceptions", "") else {
        return;
    };
    let main = "CctExceptions.main(java.lang.String[])";
    for (jdk, run) in &runs {
        let what = format!("CctExceptions on {jdk}");
        let t = &run.tree;
        // 1. a -> b -> c, 4 times; b recovers for i = 0 and 2, the other two
        // reach main; after() is always main's child.
        let a = format!("{main};CctExceptions.a(int)");
        let b = format!("{a};CctExceptions.b(int)");
        assert_eq!(count(t, &a), 4, "{what}");
        assert_eq!(count(t, &b), 4, "{what}");
        assert_eq!(count(t, &format!("{b};CctExceptions.c(int)")), 4, "{what}");
        assert_eq!(
            count(t, &format!("{b};CctExceptions.recover()")),
            2,
            "{what}"
        );
        // after(): 4 - 2 (Java frames) + 3 (reflection) + 1 + 1 + 1 + 6
        // (null receivers) = 14, every one a child of main, none of a frame
        // an exception left.
        assert_eq!(
            nodes_of(t, "CctExceptions.after()"),
            vec![(format!("{main};CctExceptions.after()").as_str(), 14)],
            "{what}"
        );
        // 6. A native instance method called on null is not entered: the
        // call throws in main, and its NullPointerException is made there.
        for native in [
            "java.lang.Object.getClass()",
            "java.lang.String.intern()",
            "java.lang.Object.notify()",
        ] {
            assert!(
                !t.contains_key(&format!("{main};{native}")),
                "{what}: {native} entered on null"
            );
        }
        assert!(
            count(
                t,
                &format!("{main};java.lang.NullPointerException.<init>()")
            ) >= 6,
            "{what}: the null receivers' exceptions under main"
        );
        // Nothing of the program under c(int), which only throws.
        assert!(
            t.keys()
                .all(|p| !p.contains("CctExceptions.c(int);CctExceptions")),
            "{what}"
        );
        // 2. Reflection: deep(3) three times under main, a chain of 4 frames.
        let deep = "CctExceptions.deep(int)";
        let reflective: Vec<(&str, u64)> = nodes_of(t, deep)
            .into_iter()
            .filter(|(p, _)| {
                p.starts_with(main) && !p.contains("Boom") && !parent(p).unwrap().ends_with(deep)
            })
            .collect();
        assert_eq!(reflective.len(), 1, "{what}: {reflective:?}");
        let (top, n) = reflective[0];
        assert_eq!(n, 3, "{what}");
        assert!(
            top.contains("java.lang.reflect.Method.invoke("),
            "{what}: {top}"
        );
        if jdk == "jdk17" {
            // Through the native accessor (JDK 18 on reflect with method handles).
            assert!(
                top.contains("jdk.internal.reflect.NativeMethodAccessorImpl.invoke0("),
                "{what}: {top}"
            );
        }
        for k in 1..=4 {
            assert_eq!(
                count(t, &repeated(top, deep, k - 1)),
                3,
                "{what}: depth {k}"
            );
        }
        assert!(!t.contains_key(&repeated(top, deep, 4)), "{what}");
        // 3. Class.forName runs Boom's initializer (a native frame calling
        // Java code), which throws from deep(2).
        let boom = nodes_of(t, "CctExceptions$Boom.<clinit>()");
        assert_eq!(boom.len(), 1, "{what}: {boom:?}");
        let (clinit, n) = boom[0];
        assert_eq!(n, 1);
        assert!(clinit.starts_with(main), "{what}: {clinit}");
        assert!(
            parent(clinit)
                .unwrap()
                .contains("java.lang.Class.forName0("),
            "{what}: {clinit}"
        );
        assert_eq!(count(t, &repeated(clinit, deep, 3)), 1, "{what}");
        assert!(!t.contains_key(&repeated(clinit, deep, 4)), "{what}");
        // 4. Class.forName calls the failing loader, which throws.
        let load = nodes_of(
            t,
            "CctExceptions$FailingLoader.loadClass(java.lang.String,boolean)",
        );
        assert_eq!(load.len(), 1, "{what}: {load:?}");
        assert!(load[0].0.starts_with(main) && load[0].0.contains("java.lang.Class.forName0("));
        assert_eq!(
            count(
                t,
                &format!(
                    "{};CctExceptions$FailingLoader.refuse(java.lang.String)",
                    load[0].0
                )
            ),
            1,
            "{what}"
        );
        // 5. The dying thread: its run is a root of its own, deep(4) under
        // dies(); the VM then calls the handler through
        // Thread.dispatchUncaughtException, a root too.
        let dies = nodes_of(t, "CctExceptions.dies()");
        assert_eq!(dies.len(), 1, "{what}: {dies:?}");
        assert!(
            dies[0].0.starts_with("java.lang.Thread.run()"),
            "{what}: {dies:?}"
        );
        assert_eq!(count(t, &repeated(dies[0].0, deep, 5)), 1, "{what}");
        assert!(!t.contains_key(&repeated(dies[0].0, deep, 6)), "{what}");
        assert_eq!(
            nodes_of(
                t,
                "CctExceptions$Handler.uncaughtException(java.lang.Thread,java.lang.Throwable)"
            ),
            vec![(
                "java.lang.Thread.dispatchUncaughtException(java.lang.Throwable);\
                 CctExceptions$Handler.uncaughtException(java.lang.Thread,java.lang.Throwable)",
                1
            )],
            "{what}"
        );
        // The exceptions' exits were seen as such: at least the program's
        // own (c, b, a twice; 3 x 4 deep; 3 deep + Boom; 5 deep + dies + run).
        assert!(
            run.stats.exits_by_exception >= 4 + 2 + 2 + 12 + 4 + 6,
            "{what}: {:?}",
            run.stats
        );
    }
}

#[test]
fn reflection_calls_reach_their_targets() {
    let Some(runs) = runs("CctReflection", "") else {
        return;
    };
    let main = "CctReflection.main(java.lang.String[])";
    for (jdk, run) in &runs {
        let what = format!("CctReflection on {jdk}");
        let t = &run.tree;
        assert_eq!(calls_of(t, "CctReflection.work(int)"), 20, "{what}");
        assert_eq!(calls_of(t, "CctReflection.helper(int)"), 20, "{what}");
        for (p, n) in nodes_of(t, "CctReflection.work(int)") {
            assert!(p.starts_with(main), "{what}: {p}");
            assert_eq!(
                count(t, &format!("{p};CctReflection.helper(int)")),
                n,
                "{what}: {p}"
            );
        }
        assert_eq!(calls_of(t, "CctReflection$Made.<init>()"), 5, "{what}");
        if jdk == "jdk17" {
            // The first calls go through the native accessor.
            let native: u64 = nodes_of(t, "CctReflection.work(int)")
                .iter()
                .filter(|(p, _)| {
                    parent(p)
                        .unwrap()
                        .ends_with("NativeMethodAccessorImpl.invoke0(java.lang.reflect.Method,java.lang.Object,java.lang.Object[])")
                })
                .map(|&(_, n)| n)
                .sum();
            assert!((1..20).contains(&native), "{what}: {native} native calls");
        }
    }
}

#[test]
fn lambdas_and_streams_are_named_without_their_numbers() {
    let Some(runs) = runs("CctLambdas", "") else {
        return;
    };
    let main = "CctLambdas.main(java.lang.String[])";
    for (jdk, run) in &runs {
        let what = format!("CctLambdas on {jdk}");
        let t = &run.tree;
        assert_eq!(calls_of(t, "CctLambdas.sq(int)"), 100, "{what}");
        for (p, _) in nodes_of(t, "CctLambdas.sq(int)") {
            assert!(p.starts_with(main), "{what}: {p}");
            assert!(
                p.contains(";CctLambdas$$Lambda.applyAsInt(int);"),
                "{what}: {p}"
            );
        }
        // The filter's lambda body runs once per element too.
        assert_eq!(calls_of(t, "CctLambdas.lambda$main$1(int)"), 100, "{what}");
        // The Runnable, called by main directly.
        let run_lambda = format!("{main};CctLambdas$$Lambda.run()");
        assert_eq!(count(t, &run_lambda), 3, "{what}");
        assert_eq!(
            count(
                t,
                &format!("{run_lambda};CctLambdas.lambda$main$2();CctLambdas.tick()")
            ),
            3,
            "{what}"
        );
        // The method reference: main calls the lambda class, which calls twice.
        assert_eq!(
            count(
                t,
                &format!("{main};CctLambdas$$Lambda.applyAsInt(int);CctLambdas.twice(int)")
            ),
            7,
            "{what}"
        );
    }
}

#[test]
fn every_thread_has_its_run_and_the_trees_merge() {
    let Some(runs) = runs("CctThreads", "") else {
        return;
    };
    for (jdk, run) in &runs {
        let what = format!("CctThreads on {jdk}");
        let t = &run.tree;
        // 4 workers: one merged root, count 4 (the VM calls run()).
        let worker = "CctThreads$Worker.run()";
        assert_eq!(nodes_of(t, worker), vec![(worker, 4)], "{what}");
        for k in 1..=12 {
            assert_eq!(
                count(t, &repeated(worker, "CctThreads.fib(int)", k)),
                4 * fib_calls_at_depth(12, k),
                "{what}: worker fib depth {k}"
            );
        }
        // 3 tasks, through Thread.run().
        let tasks = nodes_of(t, "CctThreads$Task.run()");
        assert_eq!(tasks.len(), 1, "{what}: {tasks:?}");
        let (task, n) = tasks[0];
        assert_eq!(n, 3, "{what}");
        assert!(task.starts_with("java.lang.Thread.run()"), "{what}: {task}");
        for k in 1..=5 {
            assert_eq!(
                count(t, &repeated(task, "CctThreads.fib(int)", k)),
                3 * fib_calls_at_depth(5, k),
                "{what}: task fib depth {k}"
            );
        }
        // main, the 7 threads it started, and the JDK's (at least the
        // DestroyJavaVM thread's shutdown) all had events.
        let started = 7;
        assert!(run.stats.threads > started, "{what}: {:?}", run.stats);
    }
}

#[test]
fn static_initializers_run_once_inside_their_trigger() {
    let Some(runs) = runs("CctStatics", "") else {
        return;
    };
    let main = "CctStatics.main(java.lang.String[])";
    for (jdk, run) in &runs {
        let what = format!("CctStatics on {jdk}");
        let t = &run.tree;
        let a = format!("{main};CctStatics$A.<clinit>()");
        let compute = format!("{a};CctStatics$A.compute()");
        let b = format!("{compute};CctStatics$B.<clinit>()");
        for p in [&a, &compute, &b, &format!("{b};CctStatics$B.seed()")] {
            assert_eq!(count(t, p), 1, "{what}: {p}");
        }
        assert_eq!(calls_of(t, "CctStatics$A.<clinit>()"), 1, "{what}");
        assert_eq!(calls_of(t, "CctStatics$B.<clinit>()"), 1, "{what}");
    }
}

/// The oracle's tree through major's profile outputs: read back as a
/// calls-only profile, `calls.folded` comes out byte for byte as the oracle
/// wrote it (the two sides agree on the exchange format), and the other
/// outputs are written and name the program's hot method.
#[test]
fn the_oracle_tree_through_the_profile_outputs() {
    let Some(runs) = runs("CctThreads", "") else {
        return;
    };
    for (jdk, run) in &runs {
        let what = format!("CctThreads on {jdk}");
        let cct = major_weaver::profile::Cct::parse_calls_folded(&run.text, Path::new(&what))
            .unwrap_or_else(|e| panic!("{e}"));
        let dir = scratch().join(format!("profile-{jdk}"));
        let options = major_weaver::profile::Options {
            title: what.clone(),
            ..Default::default()
        };
        let written = major_weaver::profile::write_profile(&cct, &dir, &options).unwrap();
        assert_eq!(written.len(), 4, "{what}: calls.folded, svg, json, summary");
        let calls = std::fs::read_to_string(dir.join("calls.folded")).unwrap();
        assert!(
            calls == run.text,
            "{what}: calls.folded differs from the oracle's"
        );
        let svg = std::fs::read_to_string(dir.join("flamegraph.svg")).unwrap();
        assert!(
            svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>"),
            "{what}"
        );
        assert!(
            svg.contains("CctThreads$Worker.run()"),
            "{what}: worker not drawn"
        );
        let summary = std::fs::read_to_string(dir.join("summary.txt")).unwrap();
        let methods = summary
            .split("== calls: hottest application methods by calls, all contexts (calls) ==\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{what}: no application methods in\n{summary}"));
        let first = methods.lines().next().unwrap();
        // fib: 4 x fib(12) + 3 x fib(5) calls = 4 x 465 + 3 x 15.
        assert!(first.ends_with("CctThreads.fib(int)"), "{what}: {first}");
        assert!(first.contains("1,905"), "{what}: {first}");
    }
}

/// Two runs of the same single-threaded program give the same tree under
/// main: compared file against file ([`compare_files`]), every difference
/// is outside main (the JDK's own threads, whose work depends on timing).
#[test]
fn two_runs_agree_under_main() {
    let Some(classes) = classes() else {
        return skip("no JDK 17 to compile the CCT programs");
    };
    let Some((name, java, lib)) = jdks().first() else {
        return skip("no JDK with JVMTI headers and a C compiler");
    };
    let files: Vec<PathBuf> = (1..=2)
        .map(|i| {
            let f = scratch().join(format!("CctExceptions-{name}-run{i}.folded"));
            oracle::run(java, lib, "", classes, "CctExceptions", &f);
            f
        })
        .collect();
    let main = "CctExceptions.main(java.lang.String[])";
    let classify = |d: &Difference| -> Option<String> {
        (!d.path().starts_with(main)).then(|| "outside main".to_string())
    };
    let c = compare_files(&files[0], &files[1], &classify).unwrap();
    eprintln!("{}", c.report(10));
    assert!(c.is_exact(), "{}", c.report(20));
    assert!(c.equal > 1000, "{}", c.report(20));
}
