//! Incremental weaving of a class directory (`major_weaver::incremental`):
//! a generated Java project (hierarchies, interfaces, calls across classes
//! and packages) goes through a scripted sequence of edits — method bodies,
//! classes added and deleted, supertypes changed, the aspect changed, a
//! resource changed, the output damaged — recompiled by javac after each.
//! After every edit the same classes are woven incrementally into one
//! directory and fully into a fresh one; the two must hold the same files
//! with the same bytes (the state file included), the reports must say the
//! same, and where the number of re-woven classes is predictable it is
//! checked.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use major_weaver::incremental::Summary;
use major_weaver::jdk::Jdk;
use major_weaver::weave_run::{run, WeaveOptions, WeaveReport};

/// One generated class `gen.g<k % 4>.C<k>`.
#[derive(Clone, Debug)]
struct Class {
    /// Super class: `None` is `gen.core.Base`, else another generated class.
    sup: Option<usize>,
    service: bool,
    /// Changes the method bodies only.
    rev: u32,
    /// Adds a method (the class's details change).
    extra: bool,
    /// Classes whose static `s(int)` it calls.
    statics: Vec<usize>,
    /// Classes it instantiates and calls `work(int)` on.
    news: Vec<usize>,
}

/// The project: generated classes plus a fixed core.
#[derive(Clone, Debug)]
struct Project {
    classes: BTreeMap<usize, Class>,
    base_rev: u32,
    base_extra: bool,
    resource: String,
}

fn fq(k: usize) -> String {
    format!("gen.g{}.C{k}", k % 4)
}

impl Project {
    fn new(n: usize) -> Project {
        let mut classes = BTreeMap::new();
        for k in 0..n {
            let others = |v: Vec<usize>| -> Vec<usize> {
                let mut v: Vec<usize> = v.into_iter().filter(|&j| j != k).collect();
                v.dedup();
                v
            };
            classes.insert(
                k,
                Class {
                    sup: (k % 5 != 0).then(|| k - 1),
                    service: k % 3 == 0,
                    rev: 0,
                    extra: false,
                    statics: others(vec![(k * 7 + 3) % n, (k * 11 + 5) % n]),
                    news: others(vec![(k * 5 + 1) % n]),
                },
            );
        }
        Project {
            classes,
            base_rev: 1,
            base_extra: false,
            resource: "greeting=hello\n".into(),
        }
    }

    /// Removes class `k` and every use of it (its subclasses extend Base).
    fn delete(&mut self, k: usize) {
        self.classes.remove(&k);
        for c in self.classes.values_mut() {
            c.statics.retain(|&j| j != k);
            c.news.retain(|&j| j != k);
            if c.sup == Some(k) {
                c.sup = None;
            }
        }
    }

    /// Every callers of `k` (`s` or `work` calls).
    fn callers(&self, k: usize) -> BTreeSet<usize> {
        self.classes
            .iter()
            .filter(|(_, c)| c.statics.contains(&k) || c.news.contains(&k))
            .map(|(j, _)| *j)
            .collect()
    }

    fn sources(&self) -> BTreeMap<String, String> {
        let mut s = BTreeMap::new();
        s.insert(
            "gen/api/Service.java".into(),
            "package gen.api;\npublic interface Service {\n    int serve(int x);\n}\n".into(),
        );
        s.insert(
            "gen/api/Named.java".into(),
            "package gen.api;\npublic interface Named {\n    String name();\n}\n".into(),
        );
        s.insert(
            "gen/core/Base.java".into(),
            format!(
                "package gen.core;\npublic abstract class Base implements gen.api.Named {{\n    \
                 public int value;\n    public int work(int x) {{\n        value += x * {};\n        \
                 return value;\n    }}\n    public String name() {{\n        return getClass().getSimpleName();\n    \
                 }}\n{}}}\n",
                self.base_rev,
                if self.base_extra {
                    "    public int more() {\n        return value;\n    }\n"
                } else {
                    ""
                }
            ),
        );
        for (k, c) in &self.classes {
            let sup = c.sup.map(fq).unwrap_or_else(|| "gen.core.Base".into());
            let mut body = String::new();
            for j in &c.statics {
                body.push_str(&format!("        r += {}.s(r);\n", fq(*j)));
            }
            for j in &c.news {
                body.push_str(&format!("        r += new {}().work(r);\n", fq(*j)));
            }
            let mut t = format!(
                "package gen.g{};\npublic class C{k} extends {sup}{} {{\n    \
                 public static int s(int x) {{\n        return x * {} + {k};\n    }}\n    \
                 public int m(int x) {{\n        int r = x + value;\n{body}        return r;\n    }}\n",
                k % 4,
                if c.service {
                    " implements gen.api.Service"
                } else {
                    ""
                },
                c.rev + 2,
            );
            if c.service {
                t.push_str(&format!(
                    "    public int serve(int x) {{\n        return m(x) + {};\n    }}\n",
                    c.rev
                ));
            }
            if c.extra {
                t.push_str(&format!(
                    "    public int extra{k}() {{\n        return {};\n    }}\n",
                    c.rev
                ));
            }
            t.push_str("}\n");
            s.insert(format!("gen/g{}/C{k}.java", k % 4), t);
        }
        let first = self.classes.keys().next().copied().unwrap_or(0);
        s.insert(
            "gen/Main.java".into(),
            format!(
                "package gen;\npublic class Main {{\n    public static void main(String[] a) {{\n        \
                 System.out.println(new {}().m(1));\n    }}\n}}\n",
                fq(first)
            ),
        );
        s
    }
}

const ASPECT: &str = r#"public aspect Watch {
    static int n;

    before(): execution(public int gen..Service+.serve(int)) {
        n++;
    }

    after() returning(int r): call(int gen..Service+.work(int)) {
        n += r;
    }

    before(): call(int gen..*.s(int)) && !within(gen.g2.*) {
        n++;
    }

    before(): get(int gen.core.Base+.value) && within(gen.g1..*) {
        n++;
    }
}
"#;

/// Everything under `dir`, relative name → bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in walk(dir) {
        let rel = e
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        out.insert(rel, std::fs::read(&e).unwrap());
    }
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// The test's working state: the project, its sources and classes, the two
/// outputs.
struct Bench {
    jdk: Jdk,
    root: PathBuf,
    aspect: String,
    step: usize,
    /// The classes go into a jar, woven into a jar (else a directory into a
    /// directory).
    jar: bool,
    /// With `jar`: the classes split between a jar and a directory, both
    /// woven into one jar.
    several: bool,
}

impl Bench {
    fn classes(&self) -> PathBuf {
        self.root.join("classes")
    }

    fn incremental(&self) -> PathBuf {
        self.output("woven-incremental")
    }

    /// The output called `name` (a jar's, `name.jar`).
    fn output(&self, name: &str) -> PathBuf {
        match self.jar {
            true => self.root.join(format!("{name}.jar")),
            false => self.root.join(name),
        }
    }

    /// What a weave wrote to `out`: every file of a directory (its state
    /// included), or a jar's entries and its state beside it.
    fn written(&self, out: &Path) -> BTreeMap<String, Vec<u8>> {
        if !self.jar {
            return files(out);
        }
        let a = major_archive::Archive::open(out).unwrap();
        let mut m: BTreeMap<String, Vec<u8>> = (0..a.entries().len())
            .map(|i| (a.entries()[i].name.clone(), a.read(i).unwrap().into_owned()))
            .collect();
        m.insert("(jar)".into(), std::fs::read(out).unwrap());
        let state = major_weaver::incremental::state_beside(out);
        m.insert("(state)".into(), std::fs::read(state).unwrap());
        m
    }

    /// The inputs: the classes directory, or a jar of it, or (`several`) a
    /// jar of packages `gen.g0`, `gen.g1` and `gen.api` and a directory of
    /// the rest.
    fn inputs(&self) -> Vec<PathBuf> {
        if !self.jar {
            return vec![self.classes()];
        }
        let jar = self.root.join("classes.jar");
        let rest = self.root.join("rest");
        let _ = std::fs::remove_dir_all(&rest);
        let mut out =
            major_archive::OutputArchive::create(&jar, major_archive::OutputKind::Zip).unwrap();
        for (name, bytes) in files(&self.classes()) {
            let in_jar = ["gen/g0/", "gen/g1/", "gen/api/"]
                .iter()
                .any(|p| name.starts_with(p));
            if in_jar || !self.several {
                out.write(&name, &bytes).unwrap();
            } else {
                let f = rest.join(&name);
                std::fs::create_dir_all(f.parent().unwrap()).unwrap();
                std::fs::write(f, bytes).unwrap();
            }
        }
        out.finish().unwrap();
        match self.several {
            true => vec![jar, rest],
            false => vec![jar],
        }
    }

    /// Compiles `p` from scratch and brings `classes` up to date the way a
    /// build does: changed files rewritten, unchanged ones left alone, files
    /// of deleted classes removed.
    fn build(&self, p: &Project) {
        let src = self.root.join("src");
        let out = self.root.join("build");
        for d in [&src, &out] {
            let _ = std::fs::remove_dir_all(d);
            std::fs::create_dir_all(d).unwrap();
        }
        let mut paths = Vec::new();
        for (name, text) in p.sources() {
            let f = src.join(&name);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(&f, text).unwrap();
            paths.push(f);
        }
        let o = Command::new(self.jdk.javac().unwrap())
            .args(["--release", "11", "-nowarn", "-g", "-d"])
            .arg(&out)
            .args(&paths)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::write(out.join("gen/app.properties"), &p.resource).unwrap();
        let classes = self.classes();
        let new = files(&out);
        let old = if classes.exists() {
            files(&classes)
        } else {
            BTreeMap::new()
        };
        for (name, bytes) in &new {
            if old.get(name) != Some(bytes) {
                let f = classes.join(name);
                std::fs::create_dir_all(f.parent().unwrap()).unwrap();
                std::fs::write(f, bytes).unwrap();
            }
        }
        for name in old.keys().filter(|n| !new.contains_key(*n)) {
            std::fs::remove_file(classes.join(name)).unwrap();
        }
    }

    fn weave(&self, out: &Path) -> WeaveReport {
        self.weave_with(out, true)
    }

    /// Weaves into `out`, keeping per-class report records if `records`.
    fn weave_with(&self, out: &Path, records: bool) -> WeaveReport {
        let aspect = self.root.join("Watch.aj");
        std::fs::write(&aspect, &self.aspect).unwrap();
        run(&WeaveOptions {
            aspects: vec![aspect],
            inputs: self.inputs(),
            output: out.to_path_buf(),
            classpath: Vec::new(),
            jdk: self.jdk.clone(),
            bundle_runtime: true,
            strict: false,
            full_coverage: false,
            bypass: Default::default(),
            cache: Some(self.root.join("cache")),
            jars: Default::default(),
            modules: Vec::new(),
            class_records: records,
        })
        .unwrap_or_else(|e| panic!("step {}: {e}", self.step))
    }

    /// Builds `p`, weaves incrementally and fully, compares; returns the
    /// incremental weave's summary.
    fn check(&mut self, what: &str, p: &Project) -> Summary {
        self.step += 1;
        self.build(p);
        // Every other step without per-class report records: the output,
        // the state and the summary must not depend on them.
        let records = self.step % 2 == 1;
        let t = std::time::Instant::now();
        let inc = self.weave_with(&self.incremental(), records);
        let t_inc = t.elapsed();
        let full_dir = self.output(&format!("woven-full-{}", self.step));
        let t = std::time::Instant::now();
        let full = self.weave(&full_dir);
        let t_full = t.elapsed();
        let (a, b) = (self.written(&self.incremental()), self.written(&full_dir));
        let differ: Vec<&String> = a
            .keys()
            .chain(b.keys())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .filter(|n| a.get(*n) != b.get(*n))
            .collect();
        assert!(
            differ.is_empty(),
            "step {} ({what}): the incremental output differs from a full weave in {differ:?}",
            self.step
        );
        assert!(
            a.contains_key(".major/incremental") || a.contains_key("(state)"),
            "no state written"
        );
        // The reports say the same (but for how the weave went).
        let said = |r: &WeaveReport| {
            format!(
                "{} {} {:?} {:?} {:?} {:?} {:?} {:?}",
                r.classes,
                r.woven,
                r.advised,
                r.unmatched,
                r.declare_warnings,
                r.notes,
                r.skipped_methods,
                r.added_classes.iter().collect::<BTreeSet<_>>()
            )
        };
        assert_eq!(said(&inc), said(&full), "step {} ({what})", self.step);
        // The JSON report's per-class records too (shadows per kind, advice
        // per kind, declares with their methods).
        if records {
            assert_eq!(
                inc.class_records, full.class_records,
                "step {} ({what}): class records",
                self.step
            );
        } else {
            assert!(
                inc.class_records.is_empty(),
                "step {} ({what}): class records kept though not asked for",
                self.step
            );
        }
        assert!(full
            .class_records
            .iter()
            .any(|c| !c.advice_kinds.is_empty()));
        if self.jar {
            std::fs::remove_file(major_weaver::incremental::state_beside(&full_dir)).unwrap();
            std::fs::remove_file(&full_dir).unwrap();
        } else {
            std::fs::remove_dir_all(&full_dir).unwrap();
        }
        let s = inc.incremental.clone().expect("a weave keeping state");
        eprintln!(
            "step {:>2} {what:<48} re-woven {:>3} of {:>3}, copied {}, removed {}{} \
             ({:.0} ms incremental, {:.0} ms full)",
            self.step,
            s.rewoven,
            s.classes,
            s.recopied,
            s.removed,
            s.full
                .as_deref()
                .map(|w| format!(" [full: {w}]"))
                .unwrap_or_default(),
            t_inc.as_secs_f64() * 1e3,
            t_full.as_secs_f64() * 1e3
        );
        s
    }
}

/// Asserts an incremental (not full) weave that re-wove `n` classes.
fn rewove(s: &Summary, n: usize) {
    assert!(s.full.is_none(), "a full weave: {:?}", s.full);
    assert_eq!(s.rewoven, n, "{s:?}");
}

#[test]
fn incremental_weaves_equal_full_weaves_over_a_sequence_of_edits() {
    edit_sequence(false);
}

/// The same edits, the classes in a jar woven into a jar: written whole, the
/// classes that need no weave taken from the previous jar.
#[test]
fn incremental_jar_weaves_equal_full_weaves_over_a_sequence_of_edits() {
    edit_sequence(true);
}

/// The same edits, the classes split between a jar and a directory, both
/// woven into one jar.
#[test]
fn incremental_weaves_of_several_inputs_equal_full_weaves_over_a_sequence_of_edits() {
    edit_sequence_of(true, true);
}

fn edit_sequence(jar: bool) {
    edit_sequence_of(jar, false);
}

fn edit_sequence_of(jar: bool, several: bool) {
    let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
        eprintln!("SKIP: no JDK with javac");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut b = Bench {
        jdk,
        root: dir.path().to_path_buf(),
        aspect: ASPECT.to_string(),
        step: 0,
        jar,
        several,
    };
    let mut p = Project::new(56);
    let total = 56 + 4;

    let s = b.check("first weave", &p);
    assert!(s.full.is_some());
    assert_eq!((s.rewoven, s.classes), (total, total));

    let s = b.check("nothing changed", &p);
    rewove(&s, 0);
    assert_eq!((s.recopied, s.removed), (0, 0));

    p.classes.get_mut(&50).unwrap().rev += 1;
    rewove(&b.check("a method body of a leaf class", &p), 1);

    // C0 is called from many classes: its bodies are not what they see.
    assert!(p.callers(0).len() > 1);
    p.classes.get_mut(&0).unwrap().rev += 1;
    rewove(
        &b.check("a method body of a class called everywhere", &p),
        1,
    );

    for k in [3, 17, 42] {
        p.classes.get_mut(&k).unwrap().rev += 1;
    }
    rewove(&b.check("method bodies of three classes", &p), 3);

    p.classes.insert(
        56,
        Class {
            sup: None,
            service: false,
            rev: 0,
            extra: false,
            statics: vec![1],
            news: vec![2],
        },
    );
    rewove(&b.check("a class added", &p), 1);

    p.classes.get_mut(&10).unwrap().statics.push(56);
    rewove(&b.check("a call of the new class", &p), 1);

    p.delete(56);
    let s = b.check("a class deleted (and its call)", &p);
    rewove(&s, 1);
    assert!(s.removed >= 1, "{s:?}");

    // A class becomes a Service: `Service+` matches it, and every call of
    // work(int) on it (from its callers) now matches `call(* Service+.work)`.
    let callers = p.callers(13);
    assert!(!p.classes[&13].service && !callers.is_empty());
    p.classes.get_mut(&13).unwrap().service = true;
    let s = b.check("a class implements Service", &p);
    assert!(s.full.is_none());
    assert!(s.rewoven > callers.len(), "{s:?}, callers {callers:?}");
    assert!(s.rewoven < total, "{s:?}");

    p.classes.get_mut(&13).unwrap().service = false;
    let s = b.check("... and no longer does", &p);
    assert!(s.full.is_none() && s.rewoven > callers.len(), "{s:?}");

    // A super class changes: C20 extended Base, now C19 (a Service's
    // subclass chain: C18 is a Service).
    assert_eq!(p.classes[&20].sup, None);
    p.classes.get_mut(&20).unwrap().sup = Some(19);
    let s = b.check("a super class changed", &p);
    assert!(s.full.is_none() && s.rewoven >= 2, "{s:?}");

    p.classes.get_mut(&5).unwrap().extra = true;
    let s = b.check("a method added to a class", &p);
    assert!(s.full.is_none() && s.rewoven >= 1, "{s:?}");

    p.base_rev += 1;
    rewove(&b.check("the body of the common base class", &p), 1);

    p.base_extra = true;
    let s = b.check("a method added to the common base class", &p);
    assert!(s.full.is_none() && s.rewoven > 50, "{s:?}");

    p.resource = "greeting=hi\n".into();
    let s = b.check("a resource changed", &p);
    rewove(&s, 0);
    assert_eq!(s.recopied, 1);

    b.aspect = ASPECT.replace("!within(gen.g2.*)", "!within(gen.g3.*)");
    let s = b.check("the aspect changed", &p);
    assert!(s.full.is_some(), "{s:?}");
    assert_eq!(s.rewoven, total);

    rewove(&b.check("nothing changed after the aspect", &p), 0);

    b.aspect = ASPECT.to_string();
    assert!(b.check("the aspect changed back", &p).full.is_some());

    // A class renamed: one deleted, one added.
    let c = p.classes.remove(&30).unwrap();
    p.delete(30);
    p.classes.insert(57, c);
    let s = b.check("a class renamed", &p);
    assert!(
        s.full.is_none() && s.rewoven >= 1 && s.removed >= 1,
        "{s:?}"
    );

    if jar {
        // The output jar rewritten behind major's back: a full weave.
        let out = b.incremental();
        let mut bytes = std::fs::read(&out).unwrap();
        bytes.extend_from_slice(b"trailing");
        std::fs::write(&out, bytes).unwrap();
        let s = b.check("the output jar changed", &p);
        assert!(
            s.full
                .as_deref()
                .is_some_and(|w| w.contains("not as major left it")),
            "{s:?}"
        );
    } else {
        // A woven file removed from the output behind major's back.
        let gone = b.incremental().join("gen/g1/C41.class");
        std::fs::remove_file(&gone).unwrap();
        rewove(&b.check("an output file deleted", &p), 1);
    }

    // A damaged state: a full weave, saying why.
    let state = match jar {
        true => major_weaver::incremental::state_beside(&b.incremental()),
        false => b.incremental().join(".major/incremental"),
    };
    let mut bytes = std::fs::read(&state).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x20;
    std::fs::write(&state, bytes).unwrap();
    let s = b.check("the state damaged", &p);
    assert!(
        s.full.as_deref().is_some_and(|w| w.contains("damaged")),
        "{s:?}"
    );
    // Truncated (a write cut short): the same.
    let bytes = std::fs::read(&state).unwrap();
    std::fs::write(&state, &bytes[..bytes.len() - 40]).unwrap();
    let s = b.check("the state truncated", &p);
    assert!(
        s.full.as_deref().is_some_and(|w| w.contains("damaged")),
        "{s:?}"
    );
    // A state an older major wrote (the text format of version 3, its
    // first line): a full weave, saying so.
    let bytes = std::fs::read(&state).unwrap();
    let header = b"major incremental state 6\n";
    let at = bytes
        .windows(header.len())
        .position(|w| w == header)
        .expect("the state's first line");
    let mut older = bytes[..at].to_vec();
    older.extend_from_slice(b"major incremental state 3\nkey 00\ntable 0\nglobal\nend 00\n");
    std::fs::write(&state, older).unwrap();
    let s = b.check("a state of an older version", &p);
    assert!(
        s.full
            .as_deref()
            .is_some_and(|w| w.contains("not a state of this version")),
        "{s:?}"
    );

    for k in [7, 8, 9, 44] {
        p.delete(k);
    }
    let s = b.check("four classes deleted", &p);
    assert!(s.full.is_none() && s.removed >= 4, "{s:?}");

    p.classes.get_mut(&1).unwrap().rev += 1;
    p.classes.get_mut(&2).unwrap().extra = true;
    let s = b.check("a body and a new method in a chain", &p);
    assert!(s.full.is_none() && s.rewoven >= 2, "{s:?}");

    rewove(&b.check("nothing changed at the end", &p), 0);
    assert!(b.step >= 20);
}

/// Whether a weave compiled its aspects with javac (rather than taking
/// javac's output from the aspect cache).
fn ran_javac(r: &WeaveReport) -> bool {
    let phases: Vec<&str> = r.timings.iter().map(|(p, _)| *p).collect();
    assert!(
        phases.contains(&"compile aspects") != phases.contains(&"aspects (cached)"),
        "{phases:?}"
    );
    phases.contains(&"compile aspects")
}

/// The aspect cache keys javac's output on the classes javac read: an edit of
/// a class the aspect does not name leaves the cached output in use (the
/// incremental update of that edit runs no javac), an edit of the class it
/// names (a constant javac inlines into the aspect) compiles again, and the
/// woven program prints the new constant.
#[test]
fn javac_runs_again_only_when_a_class_the_aspects_read_changes() {
    let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
        eprintln!("SKIP: no JDK with javac");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (src, classes, out) = (root.join("src"), root.join("classes"), root.join("out"));
    let aspect = root.join("Tag.aj");
    std::fs::write(
        &aspect,
        "aspect Tag {\n    before(): execution(* app.Main.main(..)) {\n        \
         System.out.println(app.Util.TAG);\n    }\n}\n",
    )
    .unwrap();
    // Writes the classes: Util.TAG is `tag`; Other's body returns `other`.
    let build = |tag: &str, other: u32, extra: bool| {
        let mut units = vec![
            (
                "Main",
                "package app;\npublic class Main {\n    public static void main(String[] a) {\n        \
                 System.out.println(\"main \" + Other.f());\n    }\n}\n"
                    .to_string(),
            ),
            (
                "Util",
                format!("package app;\npublic class Util {{\n    public static final String TAG = \"{tag}\";\n}}\n"),
            ),
            (
                "Other",
                format!("package app;\npublic class Other {{\n    public static int f() {{\n        return {other};\n    }}\n}}\n"),
            ),
        ];
        if extra {
            units.push(("Extra", "package app;\npublic class Extra {}\n".to_string()));
        }
        let _ = std::fs::remove_dir_all(&src);
        std::fs::create_dir_all(src.join("app")).unwrap();
        let paths: Vec<PathBuf> = units
            .iter()
            .map(|(n, t)| {
                let f = src.join(format!("app/{n}.java"));
                std::fs::write(&f, t).unwrap();
                f
            })
            .collect();
        let _ = std::fs::remove_dir_all(&classes);
        let o = Command::new(jdk.javac().unwrap())
            .args(["--release", "11", "-d"])
            .arg(&classes)
            .args(&paths)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let weave = || {
        run(&WeaveOptions {
            aspects: vec![aspect.clone()],
            inputs: vec![classes.clone()],
            output: out.clone(),
            classpath: Vec::new(),
            jdk: jdk.clone(),
            bundle_runtime: true,
            strict: false,
            full_coverage: false,
            bypass: Default::default(),
            cache: Some(root.join("cache")),
            jars: Default::default(),
            modules: Vec::new(),
            class_records: true,
        })
        .unwrap()
    };
    let prints = || {
        let o = Command::new(jdk.java())
            .arg("-cp")
            .arg(&out)
            .arg("app.Main")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };

    build("one", 1, false);
    assert!(ran_javac(&weave()), "the first weave compiles");
    assert_eq!(prints(), "one\nmain 1\n");
    assert!(!ran_javac(&weave()), "nothing changed: cached");

    build("one", 2, false);
    let r = weave();
    assert!(!ran_javac(&r), "Other is not read by javac: cached");
    rewove(r.incremental.as_ref().unwrap(), 1);
    assert_eq!(prints(), "one\nmain 2\n");

    build("two", 2, false);
    assert!(ran_javac(&weave()), "Util is read by javac: compiled again");
    assert_eq!(
        prints(),
        "two\nmain 2\n",
        "the aspect prints the new constant"
    );
    assert!(!ran_javac(&weave()), "and cached again");

    // A class added: javac resolves names against what exists, so the
    // compilation is not reused.
    build("two", 2, true);
    assert!(ran_javac(&weave()), "a class added: compiled again");
    assert_eq!(prints(), "two\nmain 2\n");

    // The class removed again: the names are those of the entry stored
    // with Util's `two`, which still holds (one entry per key: the one stored
    // for `one` was replaced).
    build("two", 3, false);
    assert!(!ran_javac(&weave()), "the entry of the same names again");
    assert_eq!(prints(), "two\nmain 3\n");
    build("one", 3, false);
    assert!(ran_javac(&weave()), "Util changed back: compiled again");
    assert_eq!(prints(), "one\nmain 3\n");
}

/// File stamps (`major_weaver::incremental::stamps`): an input whose stamp
/// is the one recorded is neither read nor hashed; a file touched but
/// unchanged is hashed and not woven again; a file rewritten with the same
/// size and its old modification time restored is caught by its
/// status-change time; a file written in the seconds before a weave is
/// racy and hashed by the next one; a jar entry rewritten with the same size
/// is caught by its CRC-32. Every output is compared with a full weave.
#[test]
fn file_stamps_tell_unchanged_inputs_and_catch_same_size_rewrites() {
    let Some(jdk) = Jdk::find().filter(|j| j.javac().is_some()) else {
        eprintln!("SKIP: no JDK with javac");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (src, classes) = (root.join("src"), root.join("classes"));
    let aspect = root.join("Watch.aj");
    std::fs::write(
        &aspect,
        "aspect Watch {\n    before(): call(* app..*.*(..)) && within(app..*) {\n        \
         System.out.println(\"call\");\n    }\n}\n",
    )
    .unwrap();
    std::fs::create_dir_all(src.join("app")).unwrap();
    let units = [
        (
            "A",
            "package app;\npublic class A {\n    public static String s() {\n        \
             return \"aaaa\";\n    }\n}\n",
        ),
        (
            "B",
            "package app;\npublic class B {\n    public static void main(String[] x) {\n        \
             System.out.println(A.s() + C.n());\n    }\n}\n",
        ),
        (
            "C",
            "package app;\npublic class C {\n    public static int n() {\n        return 1;\n    }\n}\n",
        ),
    ];
    let paths: Vec<PathBuf> = units
        .iter()
        .map(|(n, t)| {
            let f = src.join(format!("app/{n}.java"));
            std::fs::write(&f, t).unwrap();
            f
        })
        .collect();
    let o = Command::new(jdk.javac().unwrap())
        .args(["--release", "11", "-d"])
        .arg(&classes)
        .args(&paths)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let weave = |input: &Path, out: &Path| -> Summary {
        run(&WeaveOptions {
            aspects: vec![aspect.clone()],
            inputs: vec![input.to_path_buf()],
            output: out.to_path_buf(),
            classpath: Vec::new(),
            jdk: jdk.clone(),
            bundle_runtime: true,
            strict: false,
            full_coverage: false,
            bypass: Default::default(),
            cache: Some(root.join("cache")),
            jars: Default::default(),
            modules: Vec::new(),
            class_records: true,
        })
        .unwrap()
        .incremental
        .expect("a weave keeping state")
    };
    // What a weave left in `out`: a directory's files, or a jar and its
    // state beside it.
    let left = |out: &Path| -> BTreeMap<String, Vec<u8>> {
        if out.is_dir() {
            return files(out);
        }
        let state = major_weaver::incremental::state_beside(out);
        BTreeMap::from([
            ("(jar)".to_string(), std::fs::read(out).unwrap()),
            ("(state)".to_string(), std::fs::read(state).unwrap()),
        ])
    };
    let mut fulls = 0;
    let mut same_as_full = |input: &Path, out: &Path, what: &str| {
        fulls += 1;
        let name = match out.extension() {
            Some(_) => format!("full-{fulls}.jar"),
            None => format!("full-{fulls}"),
        };
        let full = root.join(name);
        assert!(weave(input, &full).full.is_some(), "{what}: a fresh output");
        assert!(
            left(out) == left(&full),
            "{what}: the incremental output differs from a full weave"
        );
    };
    let racy = || std::thread::sleep(std::time::Duration::from_secs(3));
    let a_class = classes.join("app/A.class");
    let out = root.join("woven");

    // The first weave writes the state and the stamps (those of classes
    // written in the seconds before it started are racy: hashed again).
    assert!(weave(&classes, &out).full.is_some());
    racy();
    let s = weave(&classes, &out);
    assert!(s.full.is_none() && s.rewoven == 0, "{s:?}");
    // Now their stamps are trusted: nothing is read.
    let s = weave(&classes, &out);
    assert_eq!((s.rewoven, s.hashed), (0, 0), "{s:?}");
    same_as_full(&classes, &out, "unchanged");

    // Touched, not changed: hashed, not woven again.
    let f = std::fs::File::options().write(true).open(&a_class).unwrap();
    f.set_modified(std::time::SystemTime::now()).unwrap();
    drop(f);
    let s = weave(&classes, &out);
    assert!(s.full.is_none(), "{s:?}");
    assert_eq!((s.rewoven, s.hashed), (0, 1), "{s:?}");
    // Touched just before that weave started: racy, hashed again.
    let s = weave(&classes, &out);
    assert_eq!(
        (s.rewoven, s.hashed),
        (0, 1),
        "the touched file is racy: {s:?}"
    );
    racy();
    let s = weave(&classes, &out);
    assert_eq!((s.rewoven, s.hashed), (0, 1), "{s:?}");
    let s = weave(&classes, &out);
    assert_eq!((s.rewoven, s.hashed), (0, 0), "no longer racy: {s:?}");
    same_as_full(&classes, &out, "touched");

    // Rewritten with the same size, its modification time restored: the
    // status-change time tells.
    let mtime = std::fs::metadata(&a_class).unwrap().modified().unwrap();
    let bytes = std::fs::read(&a_class).unwrap();
    let at = bytes.windows(4).position(|w| w == b"aaaa").unwrap();
    let mut changed = bytes.clone();
    changed[at..at + 4].copy_from_slice(b"bbbb");
    std::fs::write(&a_class, &changed).unwrap();
    let f = std::fs::File::options().write(true).open(&a_class).unwrap();
    f.set_modified(mtime).unwrap();
    drop(f);
    assert_eq!(
        std::fs::metadata(&a_class).unwrap().len(),
        bytes.len() as u64
    );
    assert_eq!(
        std::fs::metadata(&a_class).unwrap().modified().unwrap(),
        mtime
    );
    let s = weave(&classes, &out);
    assert!(s.full.is_none(), "{s:?}");
    assert_eq!((s.rewoven, s.hashed), (1, 1), "{s:?}");
    same_as_full(&classes, &out, "same size, mtime restored");

    // A jar: its entries are told by their CRC-32 and sizes.
    let jar = root.join("classes.jar");
    let write_jar = || {
        let _ = std::fs::remove_file(&jar);
        let mut o =
            major_archive::OutputArchive::create(&jar, major_archive::OutputKind::Zip).unwrap();
        for (name, bytes) in files(&classes) {
            o.write(&name, &bytes).unwrap();
        }
        o.finish().unwrap();
    };
    write_jar();
    let out = root.join("woven.jar");
    assert!(weave(&jar, &out).full.is_some());
    let s = weave(&jar, &out);
    assert_eq!((s.rewoven, s.hashed), (0, 0), "{s:?}");
    // One entry changed with the same size.
    std::fs::write(&a_class, &bytes).unwrap();
    write_jar();
    let s = weave(&jar, &out);
    assert!(s.full.is_none(), "{s:?}");
    assert_eq!((s.rewoven, s.hashed), (1, 1), "{s:?}");
    same_as_full(&jar, &out, "a jar entry of the same size");
}
