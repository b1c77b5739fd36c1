//! `major weave` end to end through the command line: the compiled-aspect
//! cache, failures that leave no output behind, raw copies of untouched
//! entries, deterministic output, methods too large to weave, and aspect
//! diagnostics. A small program is compiled with the JDK's javac, jarred,
//! woven by the `major` binary and run under `java -Xverify:all`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use major_archive::{Archive, OutputArchive, OutputKind};
use major_weaver::jdk::Jdk;

/// How many `PartN` classes the program has (each calls `new Main(N)`).
const PARTS: usize = 6;

/// The aspect most tests weave: one line per constructor call of `app.Main`.
const COUNT_ASPECT: &str = r#"aspect Count {
    before(): call(app.Main.new(..)) {
        System.out.println("new");
    }
}
"#;

fn main_java() -> String {
    let parts = (0..PARTS)
        .map(|i| format!(" + Part{i}.make()"))
        .collect::<String>();
    format!(
        r#"package app;

import java.nio.charset.StandardCharsets;

public class Main {{
    final int n;

    Main(int n) {{
        this.n = n;
    }}

    public static void main(String[] args) throws Exception {{
        System.out.println("start");
        int sum = new Main(100).n{parts};
        System.out.println("sum " + sum + ", twice " + Other.twice(sum));
        byte[] data = Main.class.getResourceAsStream("data.txt").readAllBytes();
        System.out.println("data: " + new String(data, StandardCharsets.UTF_8).trim());
    }}
}}
"#
    )
}

const OTHER_JAVA: &str = r#"package app;

public class Other {
    static int twice(int x) {
        return 2 * x;
    }
}
"#;

const DATA_TXT: &str = "hello resource\n";

/// What the program prints, woven with an aspect printing `line` before each
/// `new Main(..)`.
fn expected_output(line: &str) -> String {
    let sum: usize = 100 + (0..PARTS).sum::<usize>();
    format!(
        "start\n{}sum {sum}, twice {}\ndata: hello resource\n",
        format!("{line}\n").repeat(PARTS + 1),
        2 * sum
    )
}

/// A temporary directory holding the compiled program and its jar.
struct App {
    dir: tempfile::TempDir,
    jdk: Jdk,
    /// `app/*.class` and `app/data.txt`.
    classes: PathBuf,
    /// The same, jarred (with the JDK's `jar` tool when there is one).
    jar: PathBuf,
}

fn jdk_with_javac() -> Option<Jdk> {
    let jdk = Jdk::find().filter(|j| j.javac().is_some());
    if jdk.is_none() {
        eprintln!("SKIP: no JDK with javac");
    }
    jdk
}

fn javac(jdk: &Jdk, out: &Path, files: &[PathBuf]) {
    let o = Command::new(jdk.javac().unwrap())
        .args(["--release", "11", "-nowarn", "-d"])
        .arg(out)
        .args(files)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Jars the directory `from` into `to`: with the JDK's `jar` tool (deflated
/// entries, a manifest, directory entries, real timestamps), else with
/// major's own writer.
fn jar_dir(jdk: &Jdk, from: &Path, to: &Path) {
    let tool = jdk.home.join("bin/jar");
    if tool.is_file() {
        let o = Command::new(tool)
            .arg("--create")
            .arg("--file")
            .arg(to)
            .arg("-C")
            .arg(from)
            .arg(".")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    } else {
        let input = Archive::open(from).unwrap();
        let mut out = OutputArchive::create(to, OutputKind::Zip).unwrap();
        for (i, e) in input.entries().iter().enumerate() {
            out.write(&e.name, &input.read(i).unwrap()).unwrap();
        }
        out.finish().unwrap();
    }
}

impl App {
    /// Compiles and jars the program; `None` (after printing `SKIP`) without javac.
    fn build() -> Option<App> {
        let jdk = jdk_with_javac()?;
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src/app");
        std::fs::create_dir_all(&src).unwrap();
        let mut files = Vec::new();
        let mut write = |name: &str, text: &str| {
            let p = src.join(name);
            std::fs::write(&p, text).unwrap();
            files.push(p);
        };
        write("Main.java", &main_java());
        write("Other.java", OTHER_JAVA);
        for i in 0..PARTS {
            write(
                &format!("Part{i}.java"),
                &format!(
                    "package app;\n\nclass Part{i} {{\n    static int make() {{\n        return new Main({i}).n;\n    }}\n}}\n"
                ),
            );
        }
        let classes = dir.path().join("classes");
        javac(&jdk, &classes, &files);
        std::fs::write(classes.join("app/data.txt"), DATA_TXT).unwrap();
        let jar = dir.path().join("in.jar");
        jar_dir(&jdk, &classes, &jar);
        Some(App {
            dir,
            jdk,
            classes,
            jar,
        })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes an aspect file into the temporary directory.
    fn aspect(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    /// `major weave --java-home <the JDK>` followed by `args`.
    fn weave(&self, args: &[&Path]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_major"));
        c.arg("weave")
            .arg("--java-home")
            .arg(&self.jdk.home)
            .args(args);
        c
    }

    /// Runs `java -Xverify:all -cp <cp> <main>`, requiring success; its stdout.
    fn java(&self, cp: &Path, main: &str) -> String {
        let o = Command::new(self.jdk.java())
            .arg("-Xverify:all")
            .arg("-cp")
            .arg(cp)
            .arg(main)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        String::from_utf8(o.stdout).unwrap()
    }
}

fn p(s: &str) -> &Path {
    Path::new(s)
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Runs a command, requiring exit code 0; its stderr.
fn ok(mut c: Command) -> String {
    let o = c.output().expect("run major");
    assert!(o.status.success(), "{:?}: {}", c, text(&o));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// How the aspects were had, from the `--timings` lines on stderr: `true` when
/// they came from the cache, `false` when javac compiled them.
fn from_cache(stderr: &str) -> bool {
    let compiled = stderr
        .lines()
        .filter(|l| l.starts_with("time: compile aspects"))
        .count();
    let cached = stderr
        .lines()
        .filter(|l| l.starts_with("time: aspects (cached)"))
        .count();
    assert_eq!(compiled + cached, 1, "one aspect phase expected:\n{stderr}");
    cached == 1
}

/// The names in a directory, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A zip's entries as stored, from its central directory: name → (method,
/// CRC-32, the compressed bytes). Enough of the format for the jars here
/// (no zip64; an archive comment, as major writes, is skipped).
fn raw_entries(zip: &[u8]) -> BTreeMap<String, (u16, u32, Vec<u8>)> {
    let u16_at = |o: usize| u16::from_le_bytes([zip[o], zip[o + 1]]);
    let u32_at = |o: usize| u32::from_le_bytes(zip[o..o + 4].try_into().unwrap());
    let eocd = (0..=zip.len() - 22)
        .rev()
        .find(|&o| u32_at(o) == 0x0605_4b50 && o + 22 + u16_at(o + 20) as usize == zip.len())
        .expect("no end of central directory");
    let count = u16_at(eocd + 10) as usize;
    let mut at = u32_at(eocd + 16) as usize;
    let mut out = BTreeMap::new();
    for _ in 0..count {
        assert_eq!(u32_at(at), 0x0201_4b50, "bad central directory header");
        let method = u16_at(at + 10);
        let crc = u32_at(at + 16);
        let compressed = u32_at(at + 20) as usize;
        let name_len = u16_at(at + 28) as usize;
        let extra_len = u16_at(at + 30) as usize;
        let comment_len = u16_at(at + 32) as usize;
        let local = u32_at(at + 42) as usize;
        let name = String::from_utf8(zip[at + 46..at + 46 + name_len].to_vec()).unwrap();
        assert_eq!(u32_at(local), 0x0403_4b50, "bad local header of {name}");
        let data = local + 30 + u16_at(local + 26) as usize + u16_at(local + 28) as usize;
        out.insert(name, (method, crc, zip[data..data + compressed].to_vec()));
        at += 46 + name_len + extra_len + comment_len;
    }
    out
}

#[test]
fn weaving_twice_reuses_the_compiled_aspect() {
    let Some(app) = App::build() else { return };
    let cache = app.path("cache");
    let aspect = app.aspect("A.aj", COUNT_ASPECT);
    let weave = |out: &str| {
        let out = app.path(out);
        let mut c = app.weave(&[p("--cache-dir"), &cache, p("--timings"), p("-a")]);
        c.arg(&aspect).arg(&app.jar).arg("-o").arg(&out);
        (from_cache(&ok(c)), out)
    };

    // A miss compiles and stores; the same aspect again is a hit.
    let (cached, out1) = weave("out1.jar");
    assert!(!cached, "the first run cannot come from an empty cache");
    let (cached, out2) = weave("out2.jar");
    assert!(cached, "the second run should reuse the compiled aspect");
    assert!(
        std::fs::read(&out1).unwrap() == std::fs::read(&out2).unwrap(),
        "a cached run wrote a different jar"
    );
    assert_eq!(app.java(&out2, "app.Main"), expected_output("new"));

    // The first javac run left a class-data archive of javac for later runs
    // (JDK 13 and later; this JDK's javac is 17 or newer).
    let archives: Vec<String> = listing(&cache)
        .into_iter()
        .filter(|f| f.contains("javac-") && f.ends_with(".jsa"))
        .collect();
    assert_eq!(archives.len(), 1, "{:?}", listing(&cache));

    // A changed aspect text is a miss, and the program sees the new advice
    // (javac mapping the archive).
    std::fs::write(&aspect, COUNT_ASPECT.replace("\"new\"", "\"made\"")).unwrap();
    let (cached, out3) = weave("out3.jar");
    assert!(!cached, "an edited aspect must be compiled again");
    assert_eq!(app.java(&out3, "app.Main"), expected_output("made"));
    // Back to the first text: its entry is still there.
    std::fs::write(&aspect, COUNT_ASPECT).unwrap();
    let (cached, out4) = weave("out4.jar");
    assert!(cached, "the first aspect text should still be cached");
    assert!(std::fs::read(&out1).unwrap() == std::fs::read(&out4).unwrap());

    // Damaged cache files are misses: compiled again, then stored afresh.
    let files = listing(&cache);
    assert!(!files.is_empty());
    for f in &files {
        let f = cache.join(f);
        if f.is_file() {
            let len = std::fs::metadata(&f).unwrap().len() as usize;
            let mut garbage = b"MAJORAC1".to_vec();
            garbage.extend((0..len).map(|i| (i * 131 + 7) as u8));
            std::fs::write(&f, garbage).unwrap();
        }
    }
    let (cached, out5) = weave("out5.jar");
    assert!(!cached, "a damaged cache file must not be used");
    assert!(std::fs::read(&out1).unwrap() == std::fs::read(&out5).unwrap());
    let (cached, _) = weave("out6.jar");
    assert!(
        cached,
        "the recompiled aspect should have been stored again"
    );
    // Plain garbage (no magic, short) too.
    for f in listing(&cache) {
        std::fs::write(cache.join(f), b"\x00garbage").unwrap();
    }
    let (cached, _) = weave("out7.jar");
    assert!(!cached);

    // --no-cache always compiles, and writes the same jar.
    let out8 = app.path("out8.jar");
    let mut c = app.weave(&[p("--no-cache"), p("--timings"), p("-a")]);
    c.arg(&aspect).arg(&app.jar).arg("-o").arg(&out8);
    let stderr = ok(c);
    assert!(!from_cache(&stderr), "--no-cache used the cache:\n{stderr}");
    assert!(!stderr.contains("(cached)"), "{stderr}");
    assert!(std::fs::read(&out1).unwrap() == std::fs::read(&out8).unwrap());
}

#[test]
fn a_corrupt_entry_fails_and_leaves_no_output() {
    let Some(app) = App::build() else { return };
    let aspect = app.aspect("A.aj", COUNT_ASPECT);
    let cache = app.path("cache");
    // A jar with the program and a class file that is not one.
    let bad = app.path("bad.jar");
    let input = Archive::open(&app.jar).unwrap();
    let mut o = OutputArchive::create(&bad, OutputKind::Zip).unwrap();
    for (i, e) in input.entries().iter().enumerate() {
        o.write(&e.name, &input.read(i).unwrap()).unwrap();
    }
    let mut garbage = vec![0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 55];
    garbage.extend_from_slice(b"\x00\x10garbage, not a constant pool");
    o.write("app/Bad.class", &garbage).unwrap();
    o.finish().unwrap();

    let outdir = app.path("out");
    std::fs::create_dir(&outdir).unwrap();
    // An earlier output of major (which a weave may replace).
    let out_jar = outdir.join("out.jar");
    let mut old = OutputArchive::create(&out_jar, OutputKind::Zip).unwrap();
    old.write("old.txt", b"old").unwrap();
    old.finish().unwrap();
    let old = std::fs::read(&out_jar).unwrap();
    let fails = |inputs: &[&Path], out: &Path, needle: &str| {
        let mut c = app.weave(&[p("--cache-dir"), &cache, p("-a"), &aspect]);
        c.args(inputs).arg("-o").arg(out);
        let o = c.output().unwrap();
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{t}");
        assert!(t.contains(needle), "stderr should name {needle}:\n{t}");
        assert_eq!(std::fs::read(&out_jar).unwrap(), old, "{t}");
        assert_eq!(listing(&outdir), ["out.jar"], "leftovers beside the output");
    };

    // Failing while weaving, before anything is written.
    fails(&[&bad], &out_jar, "app/Bad.class");
    let woven_dir = outdir.join("woven");
    fails(&[&bad], &woven_dir, "app/Bad.class");
    assert!(!woven_dir.exists());
    // Failing while writing (two inputs hold the same class): the partly
    // written temporary is removed too.
    fails(&[&app.jar, &app.classes], &out_jar, "written twice");
    // Several inputs into a directory, one jar each: the second failing
    // leaves neither the first nor the directory behind.
    fails(&[&app.jar, &bad], &woven_dir, "app/Bad.class");
    assert!(!woven_dir.exists());
}

#[test]
fn untouched_entries_are_copied_byte_identically() {
    let Some(app) = App::build() else { return };
    let aspect = app.aspect("A.aj", COUNT_ASPECT);
    let out = app.path("out.jar");
    let mut c = app.weave(&[p("--no-cache"), p("-a"), &aspect]);
    c.arg(&app.jar).arg("-o").arg(&out);
    let stderr = ok(c);
    // Main and the parts call `new Main(..)`; Other does not.
    assert!(
        stderr.contains(&format!("woven {} of {} classes", PARTS + 1, PARTS + 2)),
        "{stderr}"
    );

    let input = Archive::open(&app.jar).unwrap();
    let output = Archive::open(&out).unwrap();
    let read = |a: &Archive, name: &str| {
        let i = a.find(name).unwrap_or_else(|| panic!("no {name}"));
        a.read(i).unwrap().into_owned()
    };
    for name in ["app/Other.class", "app/data.txt", "META-INF/MANIFEST.MF"] {
        assert_eq!(read(&input, name), read(&output, name), "{name} changed");
    }
    assert_eq!(read(&output, "app/data.txt"), DATA_TXT.as_bytes());
    for name in ["app/Main.class", "app/Part0.class"] {
        assert_ne!(read(&input, name), read(&output, name), "{name} not woven");
    }
    // The output mirrors the input, in order, then adds the aspect and the runtime.
    let names = |a: &Archive| {
        a.entries()
            .iter()
            .map(|e| e.name.clone())
            .collect::<Vec<_>>()
    };
    let (ins, outs) = (names(&input), names(&output));
    assert_eq!(ins[..], outs[..ins.len()]);
    for added in ["Count.class", "org/aspectj/lang/JoinPoint.class"] {
        assert!(outs[ins.len()..].iter().any(|n| n == added), "{outs:?}");
    }

    // Untouched entries are copied as stored: same method, CRC and compressed
    // bytes (no recompression).
    let raw_in = raw_entries(&std::fs::read(&app.jar).unwrap());
    let raw_out = raw_entries(&std::fs::read(&out).unwrap());
    for name in ["app/Other.class", "app/data.txt", "META-INF/MANIFEST.MF"] {
        let (a, b) = (&raw_in[name], &raw_out[name]);
        assert_eq!((a.0, a.1), (b.0, b.1), "{name}: method or CRC changed");
        assert!(a.2 == b.2, "{name}: stored bytes differ");
    }
    assert_eq!(app.java(&out, "app.Main"), expected_output("new"));
}

#[test]
fn output_is_deterministic_across_thread_counts() {
    let Some(app) = App::build() else { return };
    let aspect = app.aspect(
        "Trace.aj",
        r#"aspect Trace {
    before(): call(app.Main.new(..)) {
        System.out.println("new at " + thisJoinPointStaticPart.getSourceLocation());
    }

    after() returning(int r): execution(static int app.Part*.make()) {
        System.out.println("made " + r);
    }
}
"#,
    );
    let mut outs = Vec::new();
    for threads in ["1", "2", "4"] {
        let out = app.path(&format!("out-{threads}.jar"));
        let mut c = app.weave(&[p("--no-cache"), p("-a"), &aspect]);
        c.env("RAYON_NUM_THREADS", threads)
            .arg(&app.jar)
            .arg("-o")
            .arg(&out);
        ok(c);
        outs.push((threads, std::fs::read(&out).unwrap()));
    }
    for (threads, bytes) in &outs[1..] {
        assert!(
            *bytes == outs[0].1,
            "output with {threads} threads differs from 1 thread"
        );
    }
    let stdout = app.java(&app.path("out-2.jar"), "app.Main");
    assert_eq!(stdout.matches("new at ").count(), PARTS + 1, "{stdout}");
    assert!(stdout.contains("new at Part3.java:5\nmade 3\n"), "{stdout}");
}

/// Compiles class `app.Big` with `body` (methods calling `f(1, 2, 3, 4, 5)`,
/// `main` calling `big()` and then `f(0, 0, 0, 0, 1)`), weaves it with a
/// before advice using `thisJoinPoint` on every call of `f`, and runs it; the
/// major stderr, the classes and the woven directory.
fn weave_big(jdk: &Jdk, dir: &Path, body: &str, calls: usize) -> (String, PathBuf, PathBuf) {
    let src = dir.join("src/app");
    std::fs::create_dir_all(&src).unwrap();
    let java = format!(
        r#"package app;

public class Big {{
    static int sum;

    static void f(int a, int b, int c, int d, int e) {{
        sum += a + b + c + d + e;
    }}

{body}
    public static void main(String[] args) {{
        big();
        f(0, 0, 0, 0, 1);
        System.out.println("sum " + sum);
    }}
}}
"#
    );
    let file = src.join("Big.java");
    std::fs::write(&file, java).unwrap();
    let classes = dir.join("classes");
    javac(jdk, &classes, &[file]);
    let aspect = dir.join("Args.aj");
    std::fs::write(
        &aspect,
        r#"aspect Args {
    static int args;

    before(): call(void app.Big.f(..)) {
        args += thisJoinPoint.getArgs().length;
    }

    after(): execution(void app.Big.main(..)) {
        System.out.println("args " + args);
    }
}
"#,
    )
    .unwrap();
    let woven = dir.join("woven");
    let mut c = Command::new(env!("CARGO_BIN_EXE_major"));
    c.args(["weave", "--no-cache", "--java-home"])
        .arg(&jdk.home)
        .arg("-a")
        .arg(&aspect)
        .arg(&classes)
        .arg("-o")
        .arg(&woven);
    let stderr = ok(c);
    let o = Command::new(jdk.java())
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(&woven)
        .arg("app.Big")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let woven_calls = if stderr.contains("left unwoven") {
        1
    } else {
        calls + 1
    };
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("sum {}\nargs {}\n", 15 * calls + 1, 5 * woven_calls)
    );
    (stderr, classes, woven)
}

#[test]
fn a_method_too_large_to_weave_is_reported_and_left_unwoven() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    // 2000 calls of 8 bytes each: javac accepts the method, but the before
    // advice with thisJoinPoint (five boxed arguments) adds far more than
    // 64 KiB.
    const CALLS: usize = 2000;
    let body = format!(
        "    static void big() {{\n{}    }}\n",
        "        f(1, 2, 3, 4, 5);\n".repeat(CALLS)
    );
    let (stderr, classes, woven) = weave_big(&jdk, dir.path(), &body, CALLS);
    let warning = stderr
        .lines()
        .find(|l| l.contains("left unwoven"))
        .unwrap_or_else(|| panic!("no `left unwoven` warning:\n{stderr}"));
    assert!(
        warning.starts_with("warning: ")
            && warning.contains("app/Big")
            && warning.contains("big()V")
            && warning.contains("65535"),
        "{warning}"
    );
    assert_eq!(
        stderr.matches("warning: left unwoven").count(),
        1,
        "only big() is too large:\n{stderr}"
    );
    // What big() would have had is not counted: only main's call is advised.
    assert!(
        stderr.contains("advised shadows: method-call 1, method-execution 1"),
        "{stderr}"
    );

    // The big method is as it was; the rest of the class is woven.
    let dump = |from: &Path| {
        let o = Command::new(env!("CARGO_BIN_EXE_major"))
            .arg("dump")
            .arg(from)
            .args(["app/Big", "--method", "big"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        String::from_utf8(o.stdout).unwrap()
    };
    assert_eq!(dump(&classes), dump(&woven));
    // The static parts of big()'s calls were dropped with it: main's call
    // loads the only one (a dynamic constant of the woven class itself).
    let woven_big = dump_class(&woven, "app/Big");
    assert_eq!(woven_big.matches(":staticPart:").count(), 1, "{woven_big}");
}

/// `major dump` of a whole class.
fn dump_class(from: &Path, class: &str) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_major"))
        .arg("dump")
        .arg(from)
        .arg(class)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn thousands_of_join_points_in_one_class_are_woven() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    // 3000 small methods, each with one advised call: 3000 static parts, more
    // than one initializer method can create under the 64 KiB limit.
    const CALLS: usize = 3000;
    let mut body = String::new();
    for i in 0..CALLS {
        body.push_str(&format!("    static void m{i}() {{ f(1, 2, 3, 4, 5); }}\n"));
    }
    body.push_str("    static void big() {\n");
    for i in 0..CALLS {
        body.push_str(&format!("        m{i}();\n"));
    }
    body.push_str("    }\n");
    let (stderr, _, woven) = weave_big(&jdk, dir.path(), &body, CALLS);
    assert!(!stderr.contains("left unwoven"), "{stderr}");
    assert!(
        stderr.contains(&format!("method-call {}", CALLS + 1)),
        "{stderr}"
    );
    // One static part per shadow, each a dynamic constant of its own.
    let woven_big = dump_class(&woven, "app/Big");
    assert_eq!(
        woven_big.matches(":staticPart:").count(),
        CALLS + 1,
        "{woven_big}"
    );
}

#[test]
fn a_bad_aspect_is_reported_at_its_line() {
    let Some(app) = App::build() else { return };
    app.aspect(
        "A.aj",
        "aspect Bad {\n    before(): call(app.Main.new(..)) {\n        int x = \"s\";\n    }\n}\n",
    );
    // Relative paths, as a user types them; run twice: a failed compilation
    // is not cached, its diagnostics come again.
    for _ in 0..2 {
        let o = app
            .weave(&[
                p("--cache-dir"),
                p("cache"),
                p("-a"),
                p("A.aj"),
                p("in.jar"),
                p("-o"),
                p("out.jar"),
            ])
            .current_dir(app.dir.path())
            .output()
            .unwrap();
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{t}");
        assert!(t.contains("A.aj:3:"), "no A.aj:3 in:\n{t}");
        assert!(t.contains("incompatible types"), "{t}");
        assert!(
            t.contains("int x = \"s\";"),
            "the source line is shown:\n{t}"
        );
        assert!(!app.path("out.jar").exists(), "output written: {t}");
    }
    let cache = app.path("cache");
    if cache.exists() {
        assert!(
            listing(&cache).iter().all(|f| !f.ends_with(".classes")),
            "a failed compilation was cached: {:?}",
            listing(&cache)
        );
    }
    let leftovers: Vec<String> = listing(app.dir.path())
        .into_iter()
        .filter(|n| n.contains("major-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Around advice never moves the body of a `@CallerSensitive` method into a
/// proceed method (the frame `Reflection.getCallerClass()` expects would no
/// longer be its caller's); before/after advice still apply, and the run says
/// what it left out.
#[test]
fn around_leaves_caller_sensitive_methods_alone() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src/app");
    std::fs::create_dir_all(&src).unwrap();
    let file = src.join("Sensitive.java");
    std::fs::write(
        &file,
        r#"package app;

public class Sensitive {
    @jdk.internal.reflect.CallerSensitive
    static String who() { return "sensitive"; }

    static String plain() { return "plain"; }

    public static void main(String[] args) {
        System.out.println(who() + " " + plain());
    }
}
"#,
    )
    .unwrap();
    let classes = dir.path().join("classes");
    // Not --release: the annotation is internal to java.base.
    let o = Command::new(jdk.javac().unwrap())
        .args([
            "--add-exports",
            "java.base/jdk.internal.reflect=ALL-UNNAMED",
            "-nowarn",
            "-d",
        ])
        .arg(&classes)
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let aspect = dir.path().join("Wrap.aj");
    std::fs::write(
        &aspect,
        r#"aspect Wrap {
    String around(): execution(static String app.Sensitive.*()) {
        return "[" + proceed() + "]";
    }

    before(): execution(static String app.Sensitive.who()) {
        System.out.print("<before who>");
    }
}
"#,
    )
    .unwrap();
    let woven = dir.path().join("woven");
    let mut c = Command::new(env!("CARGO_BIN_EXE_major"));
    c.args(["weave", "--no-cache", "--java-home"])
        .arg(&jdk.home)
        .arg("-a")
        .arg(&aspect)
        .arg(&classes)
        .arg("-o")
        .arg(&woven);
    let stderr = ok(c);
    assert!(
        stderr.contains("caller-sensitive app/Sensitive.who()Ljava/lang/String;"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("caller-sensitive").count(), 1, "{stderr}");
    let o = Command::new(jdk.java())
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(&woven)
        .arg("app.Sensitive")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "<before who>sensitive [plain]\n"
    );
}

/// The README's main job: `major demo` compiles, weaves and runs its example.
#[test]
fn the_demo_weaves_and_runs_its_example() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_major"))
        .args(["demo", "--jdk"])
        .arg(&jdk.home)
        .arg("--keep")
        .arg(dir.path())
        .env("MAJOR_CACHE_DIR", dir.path().join("cache"))
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("total area of 6 shapes: 58"), "{t}");
    // The 4 of Main, and 7 in Trace's advice (a StringBuilder for each of
    // its messages): aspects are woven too; ajc counts the same 11.
    assert!(t.contains("ObjectTracker: 11 allocations"), "{t}");
    assert_eq!(
        t.matches("[trace] Main.Shape.area() at line 26").count(),
        6,
        "{t}"
    );
    assert!(
        t.contains("[trace] execution(Main.total(..)) over 6 shapes"),
        "{t}"
    );
    assert!(dir.path().join("woven/Main.class").is_file());
    // Then the JDK's own java.base, woven with ObjectTracker, runs the
    // program: the class library's allocations are counted too.
    if jdk.home.join("jmods/java.base.jmod").is_file() {
        assert_eq!(t.matches("total area of 6 shapes: 58").count(), 2, "{t}");
        let jdk_line = t
            .lines()
            .filter(|l| l.starts_with("ObjectTracker: "))
            .nth(1)
            .unwrap_or_else(|| panic!("no full-coverage run:\n{t}"));
        let n: u64 = jdk_line["ObjectTracker: ".len()..]
            .split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert!(n > 1000, "{jdk_line}");
    } else {
        eprintln!(
            "SKIP (part): no jmods/java.base.jmod in {}",
            jdk.home.display()
        );
    }
}

/// A class the weave needs to know (here, to merge two types in a frame) but
/// that neither the inputs nor the class path hold fails the run: the message
/// names the class, the method and the missing type and says to add it to the
/// class path, and nothing is written. With the class path, the same weave
/// works and the program verifies.
#[test]
fn a_class_missing_from_the_class_path_is_named() {
    let Some(jdk) = jdk_with_javac() else { return };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let mut files = Vec::new();
    for (name, text) in [
        ("lib/Base.java", "package lib;\npublic class Base {}\n"),
        ("lib/One.java", "package lib;\npublic class One extends Base {}\n"),
        ("lib/Two.java", "package lib;\npublic class Two extends Base {}\n"),
        (
            "app/Use.java",
            "package app;\n\npublic class Use {\n    static Object pick(boolean c) {\n        lib.Base b = c ? new lib.One() : new lib.Two();\n        return b;\n    }\n\n    public static void main(String[] a) {\n        System.out.println(pick(a.length == 0).getClass().getSimpleName());\n    }\n}\n",
        ),
    ] {
        let p = src.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        files.push(p);
    }
    let classes = dir.path().join("classes");
    javac(&jdk, &classes, &files);
    // The program alone in one jar, its library in another.
    let (app_dir, lib_dir) = (dir.path().join("app"), dir.path().join("lib"));
    for (d, pkg) in [(&app_dir, "app"), (&lib_dir, "lib")] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::rename(classes.join(pkg), d.join(pkg)).unwrap();
    }
    let (app_jar, lib_jar) = (dir.path().join("app.jar"), dir.path().join("lib.jar"));
    jar_dir(&jdk, &app_dir, &app_jar);
    jar_dir(&jdk, &lib_dir, &lib_jar);
    let aspect = Path::new(env!("CARGO_MANIFEST_DIR")).join("../aspects/ObjectTracker.aj");
    let out = dir.path().join("out.jar");
    let weave = |extra: &[&Path]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_major"));
        c.arg("weave")
            .arg("--java-home")
            .arg(&jdk.home)
            .arg("--cache-dir")
            .arg(dir.path().join("cache"))
            .arg("-a")
            .arg(&aspect)
            .args(extra)
            .arg(&app_jar)
            .arg("-o")
            .arg(&out);
        c.output().unwrap()
    };
    // Without the library, pick() cannot be woven soundly (its frames merge
    // two library classes): --strict fails naming it and writes nothing ...
    let o = weave(&[p("--strict")]);
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    for needle in ["app/Use", "pick", "lib/", "class path"] {
        assert!(t.contains(needle), "stderr should name {needle}:\n{t}");
    }
    assert!(!out.exists(), "nothing written");
    // ... and by default pick() is left unwoven with a warning naming it.
    let o = weave(&[]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let warning = t
        .lines()
        .find(|l| l.starts_with("warning: left unwoven:"))
        .unwrap_or_else(|| panic!("no warning:\n{t}"));
    for needle in ["app/Use", "pick", "lib/"] {
        assert!(warning.contains(needle), "{warning}");
    }
    assert!(t.contains("1 method left unwoven"), "{t}");
    std::fs::remove_file(&out).unwrap();
    let o = weave(&[p("--classpath"), &lib_jar]);
    assert!(o.status.success(), "{}", text(&o));
    let cp = std::env::join_paths([&out, &lib_jar]).unwrap();
    let run = Command::new(jdk.java())
        .arg("-Xverify:all")
        .arg("-cp")
        .arg(&cp)
        .arg("app.Use")
        .output()
        .unwrap();
    let t = text(&run);
    assert!(run.status.success(), "{t}");
    assert!(t.contains("One") && t.contains("ObjectTracker: "), "{t}");
}
